/**
 * @koa/router's `exclusive` option: the router runs one matched layer alone, the last matched
 * (`true`) or the first with the fewest parameters (`'specificity'`), where without it the first
 * matched runs and hands on with next(). The entry point does not model which one runs (rule F):
 * each answer grants no more than the route @koa/router ran allows, and exactly its policy where
 * that route is the only one of the URL serving the method. Each handler says which ran.
 */
import Router from '@koa/router';
import Koa from 'koa';
import t, { type Test } from 'tap';

import { createCors } from '@lib/cors/koa';

import { serve, type TestServer } from '../../helpers/http.js';
import { KOA_SPECIFICITY, KOA_WILDCARD } from '../../helpers/installed-versions.js';

const quiet = { warn: () => {}, error: () => {} };
// Each policy grants its one fixed origin to any caller, so the origin granted names the policy applied.
const BASE = { origin: 'https://base.test' };
const OPEN = { origin: 'https://open.test' };
const APP = { origin: 'https://app.test' };
const CALLER = 'https://caller.test';

type Exclusive = false | true | 'specificity';

/**
 * `seen` ran the route `expected.ran` names, and was granted its policy's origin or none (under
 * rule F, routes of other policies matching the URL for the method narrow it to nothing).
 */
function noMoreThan(
  t: Test,
  seen: { ran: string | undefined; granted: string | undefined },
  expected: { ran: string; granted: string },
  message = expected.ran,
): void {
  t.equal(seen.ran, expected.ran, message);
  t.ok(seen.granted === undefined || seen.granted === expected.granted, `${message}: no more than its policy (${seen.granted})`);
}
type Declare = (router: Router, cors: ReturnType<typeof createCors>) => void;
/** What the server answered: the route that ran, and the origin granted. */
type Send = (method: string, path: string, headers?: Record<string, string>) => Promise<{ ran: string | undefined; granted: string | undefined }>;

/** The Koa application of one router of `exclusive`, its routes declared by `declare`, served. */
async function serveRouter(t: Test, exclusive: Exclusive, declare: Declare): Promise<TestServer> {
  const app = new Koa();
  const router = new Router({ exclusive } as never);
  const cors = createCors(BASE, { logger: quiet });
  declare(router, cors);
  app.use(cors);
  app.use(router.routes());
  cors.mirror(app);
  const server = await serve(app.callback());
  t.teardown(server.close);
  return server;
}

async function serveRoutes(t: Test, exclusive: Exclusive, declare: Declare): Promise<Send> {
  const server = await serveRouter(t, exclusive, declare);
  return async (method, path, headers = {}) => {
    const answer = await server.send(method, path, { Origin: CALLER, ...headers });
    return { ran: answer.headers['x-ran'] as string | undefined, granted: answer.headers['access-control-allow-origin'] as string | undefined };
  };
}

/** A handler that answers and says it ran. */
const answers = (name: string) => (ctx: Koa.Context) => {
  ctx.set('x-ran', name);
  ctx.body = name;
};

const preflight = (method: string) => ({ 'Access-Control-Request-Method': method });

const usersThenMe: Declare = (router, cors) => {
  router.get('/users/:id', cors.route(OPEN), answers(':id'));
  router.get('/users/me', cors.route(APP), answers('me'));
};
const meThenUsers: Declare = (router, cors) => {
  router.get('/users/me', cors.route(APP), answers('me'));
  router.get('/users/:id', cors.route(OPEN), answers(':id'));
};

t.test('routes of two paths matching one URL: the policy of the one the router runs', async (t) => {
  const cases: [Exclusive, Declare, string, typeof OPEN][] = [
    [false, usersThenMe, ':id', OPEN],
    [true, usersThenMe, 'me', APP],
    ['specificity', usersThenMe, 'me', APP],
    [false, meThenUsers, 'me', APP],
    [true, meThenUsers, ':id', OPEN],
    ['specificity', meThenUsers, 'me', APP],
  ];
  for (const [exclusive, declare, ran, policy] of cases.filter(([mode]) => mode !== 'specificity' || KOA_SPECIFICITY)) {
    const order = declare === usersThenMe ? '/users/:id first' : '/users/me first';
    const send = await serveRoutes(t, exclusive, declare);
    noMoreThan(t, await send('GET', '/users/me'), { ran, granted: policy.origin }, `exclusive: ${exclusive}, ${order}: GET runs ${ran}, under its policy`);
    const asked = await send('OPTIONS', '/users/me', preflight('GET'));
    t.equal(asked.ran, undefined, `exclusive: ${exclusive}, ${order}: the engine answers the preflight`);
    t.ok(asked.granted === undefined || asked.granted === policy.origin, `exclusive: ${exclusive}, ${order}: the preflight alike`);
  }
});

t.test('routes of one path: the route the exclusive router runs alone decides its methods', async (t) => {
  const getThenAll: Declare = (router, cors) => {
    router.get('/things', cors.route(OPEN), answers('GET'));
    router.all('/things', cors.route(APP), answers('all'));
  };
  // Without exclusive, the GET route runs first for GET (every-method-routes.test.ts covers it).
  const last = await serveRoutes(t, true, getThenAll);
  noMoreThan(t, await last('GET', '/things'), { ran: 'all', granted: APP.origin }, 'exclusive: true runs the route of every method, declared last, for GET');
  noMoreThan(t, await last('PUT', '/things'), { ran: 'all', granted: APP.origin });
  if (KOA_SPECIFICITY) {
    const first = await serveRoutes(t, 'specificity', getThenAll);
    noMoreThan(t, await first('GET', '/things'), { ran: 'GET', granted: OPEN.origin }, "'specificity' runs the first of equal parameters: the GET route");
    noMoreThan(t, await first('PUT', '/things'), { ran: 'all', granted: APP.origin });
  }

  const allThenGet: Declare = (router, cors) => {
    router.all('/things', cors.route(APP), answers('all'));
    router.get('/things', cors.route(OPEN), answers('GET'));
  };
  // Refused without exclusive (whether GET reaches its route depends on next()); here one route runs.
  const allLast = await serveRoutes(t, true, allThenGet);
  noMoreThan(t, await allLast('GET', '/things'), { ran: 'GET', granted: OPEN.origin }, 'exclusive: true runs the GET route, declared last');
  noMoreThan(t, await allLast('HEAD', '/things'), { ran: 'GET', granted: OPEN.origin }, 'and for HEAD, which it serves');
  noMoreThan(t, await allLast('DELETE', '/things'), { ran: 'all', granted: APP.origin });
  if (KOA_SPECIFICITY) {
    const allFirst = await serveRoutes(t, 'specificity', allThenGet);
    noMoreThan(t, await allFirst('GET', '/things'), { ran: 'all', granted: APP.origin }, "'specificity' runs the route of every method, declared first");
  }

  const getThenHead: Declare = (router, cors) => {
    router.get('/things', cors.route(OPEN), answers('GET'));
    router.head('/things', cors.route(APP), answers('HEAD'));
  };
  const headLast = await serveRoutes(t, true, getThenHead);
  noMoreThan(t, await headLast('HEAD', '/things'), { ran: 'HEAD', granted: APP.origin }, 'exclusive: true runs the HEAD route, declared last, for HEAD');
  noMoreThan(t, await headLast('GET', '/things'), { ran: 'GET', granted: OPEN.origin });
});

t.test('an exclusive router whose last layer is its own middleware runs no route: the answer grants no more than the route of the URL', async (t) => {
  const send = await serveRoutes(t, true, (router, cors) => {
    router.get('/users/:id', cors.route(OPEN), answers(':id'));
    router.use(async (_ctx, next) => next());
  });
  const seen = await send('GET', '/users/7');
  t.equal(seen.ran, undefined, 'the router ran its middleware alone');
  // The router's middleware decides nothing (it hands on, here to Koa's 404): the answer grants
  // no more than the one route of the URL allows.
  t.equal(seen.granted, OPEN.origin, 'no more than the route of the URL allows');
});

t.test('a HEAD route the exclusive router runs, beside a GET route of another path that serves HEAD', async (t) => {
  for (const exclusive of KOA_SPECIFICITY ? ([true, 'specificity'] as const) : ([true] as const)) {
    const send = await serveRoutes(t, exclusive, (router, cors) => {
      router.get('/a/:id', cors.route(OPEN), answers('GET'));
      router.head('/a/me', cors.route(APP), answers('HEAD'));
    });
    noMoreThan(t, await send('HEAD', '/a/me'), { ran: 'HEAD', granted: APP.origin }, `exclusive: ${exclusive}: the HEAD route runs, under its policy`);
    noMoreThan(t, await send('GET', '/a/me'), { ran: 'GET', granted: OPEN.origin });
  }
});

// exclusive: 'specificity' is a mode of @koa/router 15 on.
const onSpecificity = KOA_SPECIFICITY ? t.test.bind(t) : () => undefined;

onSpecificity('a method the exclusive router leaves to its middleware on a URL: answered as one its path does not declare', async (t) => {
  // 'specificity' runs the first of the fewest parameters: GET finds the GET route first, PUT the middleware.
  const server = await serveRouter(t, 'specificity', (router, cors) => {
    router.get('/a/:id', cors.route(OPEN), answers('GET'));
    router.use('/a/:x', async (_ctx, next) => next());
    router.put('/a/:id', cors.route(APP), answers('PUT'));
  });
  // The router's middleware decides nothing: PUT is answered under the one route serving it.
  const put = await server.send('PUT', '/a/7', { Origin: APP.origin });
  t.equal(put.headers['x-ran'], undefined, 'no route runs PUT here');
  t.equal(put.headers['access-control-allow-origin'], APP.origin, "the PUT route's policy, no more");
  const stranger = await server.send('OPTIONS', '/a/7', { Origin: OPEN.origin, 'Access-Control-Request-Method': 'PUT' });
  t.equal(stranger.headers['access-control-allow-origin'], APP.origin, "a preflight for PUT names the PUT route's origin, not the GET route's");
  const plain = await server.send('OPTIONS', '/a/7');
  t.equal(plain.headers.allow, 'GET, HEAD, PUT, OPTIONS', 'Allow lists the methods the routes of the URL serve');
  t.equal((await server.send('GET', '/a/7', { Origin: CALLER })).headers['access-control-allow-origin'], OPEN.origin);
});

t.test('a plain OPTIONS the exclusive router leaves to its own middleware, on a path with an OPTIONS route, goes on to the application', async (t) => {
  const server = await serveRouter(t, true, (router, cors) => {
    router.options('/a', cors.route(APP), answers('OPTIONS'));
    router.use(async (ctx) => {
      ctx.set('x-ran', 'middleware');
      ctx.status = 299;
    });
    router.get('/a', cors.route(OPEN), answers('GET'));
  });
  const plain = await server.send('OPTIONS', '/a', { Origin: CALLER });
  t.equal(plain.status, 299, 'the middleware the router runs alone answers, not the engine');
  t.equal(plain.headers['x-ran'], 'middleware');
});

t.test('a router used inside an exclusive router without a path, and on its own: the same path in each is its own path', async (t) => {
  // outer.use(inner.routes()) lends outer inner's layers with their RegExps; keyed by those, the
  // two routers' GET /s were one path under two policies, refused at mirror() (found by a review probe).
  const app = new Koa();
  const cors = createCors(BASE, { logger: quiet });
  const inner = new Router();
  inner.get('/s', cors.route(OPEN), answers('inner /s'));
  inner.get('/only-inner', cors.route(OPEN), answers('inner /only-inner'));
  const outer = new Router({ exclusive: true } as never);
  outer.use(inner.routes());
  outer.get('/s', cors.route(APP), answers('outer /s'));
  app.use(cors).use(outer.routes()).use(inner.routes());
  t.doesNotThrow(() => cors.mirror(app));
  const server = await serve(app.callback());
  t.teardown(server.close);
  const send = async (path: string, headers: Record<string, string> = {}) => {
    const answer = await server.send('GET', path, { Origin: CALLER, ...headers });
    return [answer.headers['x-ran'], answer.headers['access-control-allow-origin']];
  };
  // Both routers' /s match: what both allow (rule F), nothing; a route only one of them has keeps its policy.
  t.same(await send('/s'), ['outer /s', undefined], 'the exclusive router runs its last matched route, under no more than its policy');
  t.same(await send('/only-inner'), ['inner /only-inner', OPEN.origin], "inner's route, run by the outer router");
});

t.test("a router's routes() as a route's handler is refused; a router app.use()d after the routes were read is read with the next request", async (t) => {
  // Both were found by a review probe: the inner router's routes ran under the outer route's
  // policy ('*'), and a late router's POST under an earlier router's policy of its path.
  const app = new Koa();
  const cors = createCors(BASE, { logger: quiet });
  const inner = new Router();
  inner.get('/api/admin', cors.route(APP), answers('inner /api/admin'));
  const outer = new Router();
  outer.all(`/api/${KOA_WILDCARD}`, cors.route(OPEN), inner.routes() as never);
  app.use(cors).use(outer.routes());
  t.throws(() => cors.mirror(app), { code: 'CORS_MOUNT_UNSEEN', message: /router\.use\(\)/ });

  const sealed = new Koa();
  const sealedCors = createCors(BASE, { logger: quiet });
  const early = new Router();
  early.get('/account', sealedCors.route(OPEN), answers('early /account'));
  sealed.use(sealedCors).use(early.routes());
  sealedCors.mirror(sealed);
  const late = new Router();
  late.post('/account', sealedCors.route(APP), answers('late /account'));
  sealed.use(late.routes());
  const server = await serve(sealed.callback());
  t.teardown(server.close);
  const preflight = await server.send('OPTIONS', '/account', { Origin: APP.origin, 'Access-Control-Request-Method': 'POST' });
  t.equal(preflight.headers['access-control-allow-origin'], APP.origin, "the late router's POST under its own policy");
  const other = await server.send('OPTIONS', '/account', { Origin: OPEN.origin, 'Access-Control-Request-Method': 'POST' });
  t.equal(other.headers['access-control-allow-origin'], APP.origin, "never the earlier router's of its path");
});
