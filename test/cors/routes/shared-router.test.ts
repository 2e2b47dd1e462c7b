/**
 * mirror() of a large router asks the application's own router for each lookup instead of copying
 * it into a second tree (core/shared-router.ts: past 1,000 routes, where a copy would double the
 * application's memory). Each case compares the shared lookup with the copy, request by request:
 * the same answer, whatever the router's settings, spellings and methods.
 */
import Router from 'find-my-way';
import { createCors, type CorsOptions } from '@lib/cors/standalone';
import t from 'tap';

import { fakeExchange } from '../../helpers/fake-http.js';

/** Past the threshold at which the engine shares a mirrored router. */
const FILLER = 1_100;
const OPTIONS: CorsOptions = { origin: ['https://a.test', 'https://b.test'], exposedHeaders: ['X-Total'], maxAge: 60 };

type Routes = (router: Router.Instance<Router.HTTPVersion.V1>) => void;

/** The routes every case holds besides the filler, spelled as applications spell them. */
const varied: Routes = (router) => {
  router.on('GET', '/users', () => {});
  router.on(['GET', 'DELETE'], '/users/:id', () => {});
  router.on('PUT', '/users/:userId', () => {});
  router.on('OPTIONS', '/own', () => {});
  router.on('GET', '/own', () => {});
  router.on('POST', '/files/*', () => {});
  router.on('GET', '/static/logo.png', () => {});
};

const REQUESTS: [method: string, url: string, headers: Record<string, string>][] = [
  ['GET', '/users', { origin: 'https://a.test' }],
  ['GET', '/users?page=2', { origin: 'https://c.test' }],
  ['GET', '/users/', { origin: 'https://a.test' }],
  ['HEAD', '/users/7', { origin: 'https://b.test' }],
  ['DELETE', '/users/7', { origin: 'https://a.test' }],
  ['PATCH', '/users/7', { origin: 'https://a.test' }],
  ['OPTIONS', '/users/7', {}],
  ['OPTIONS', '/users/7', { origin: 'https://a.test', 'access-control-request-method': 'PUT' }],
  ['OPTIONS', '/users/7', { origin: 'https://a.test', 'access-control-request-method': 'PATCH' }],
  ['OPTIONS', '/own', { origin: 'https://a.test' }],
  ['OPTIONS', '/own', { origin: 'https://a.test', 'access-control-request-method': 'GET' }],
  ['POST', '/files/a/b.txt', { origin: 'https://a.test' }],
  ['OPTIONS', '/files/a', { origin: 'https://b.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-up' }],
  ['GET', '/static/logo.png', { origin: 'https://a.test' }],
  ['GET', '/filler/17/x', { origin: 'https://a.test' }],
  ['GET', '/nowhere', { origin: 'https://a.test' }],
  ['OPTIONS', '/nowhere', { origin: 'https://a.test', 'access-control-request-method': 'GET' }],
  ['GET', '/%zz', { origin: 'https://a.test' }],
];

/** Every request's answer: the status or next(), and the headers, as a line each. */
function answers(handle: ReturnType<typeof createCors>['handle']): string[] {
  return REQUESTS.map(([method, url, headers]) => {
    const exchange = fakeExchange(method, url, headers);
    handle(exchange.req, exchange.res, () => {
      exchange.nextCalled = true;
    });
    return `${method} ${url} ${JSON.stringify(headers)} -> ${exchange.nextCalled ? 'next' : exchange.res.statusCode} ${JSON.stringify([...exchange.headers].sort())}`;
  });
}

function routerOf(settings: Router.Config<Router.HTTPVersion.V1>, routes: Routes, handlerPerRoute = true): Router.Instance<Router.HTTPVersion.V1> {
  const router = Router(settings);
  const shared = () => {};
  for (let i = 0; i < FILLER; i++) router.on('GET', `/filler/${i}/:name`, handlerPerRoute ? () => {} : shared, handlerPerRoute ? undefined : { i });
  routes(router);
  return router;
}

/** The same routes given one by one to route(): the engine's own tree, which matches as the router's settings say. */
function copied(router: Router.Instance<Router.HTTPVersion.V1>, settings: Router.Config<Router.HTTPVersion.V1>): ReturnType<typeof createCors> {
  const engine = createCors(OPTIONS, { matching: settings as never });
  for (const { method, path } of (router as unknown as { routes: { method: string; path: string }[] }).routes) engine.route(method, path);
  return engine;
}

const CASES: { name: string; settings: Router.Config<Router.HTTPVersion.V1>; handlerPerRoute?: boolean }[] = [
  { name: "find-my-way's defaults", settings: {} },
  { name: 'trailing slashes ignored', settings: { ignoreTrailingSlash: true } },
  { name: 'case-insensitive, duplicate slashes ignored', settings: { caseSensitive: false, ignoreDuplicateSlashes: true } },
  { name: 'one handler for the filler routes, told apart by their stores', settings: {}, handlerPerRoute: false },
];

for (const { name, settings, handlerPerRoute } of CASES) {
  t.test(`${name}: the shared router answers as the copy does`, async (t) => {
    const router = routerOf(settings, varied, handlerPerRoute);
    const shared = createCors(OPTIONS).mirror(router);
    t.same(answers(shared.handle), answers(copied(router, settings).handle));
  });
}

t.test('routes no lookup can tell apart (one handler, no stores) are copied, and answer the same', async (t) => {
  const router = Router();
  const one = () => {};
  for (let i = 0; i < FILLER; i++) router.on('GET', `/filler/${i}/:name`, one);
  varied(router);
  t.same(answers(createCors(OPTIONS).mirror(router).handle), answers(copied(router, {}).handle));
});

t.test('a route() beside a shared mirror: the path merges its methods, as in one tree', async (t) => {
  const router = routerOf({}, varied);
  const engine = createCors(OPTIONS).mirror(router).route('PATCH', '/users/:key');
  const exchange = fakeExchange('OPTIONS', '/users/3', {});
  engine.handle(exchange.req, exchange.res, () => {});
  t.equal(exchange.headers.get('allow'), 'GET, HEAD, DELETE, PUT, PATCH, OPTIONS');
});

t.test('reconfigure() of a shared mirror: the new options on every mirrored path', async (t) => {
  const router = routerOf({}, varied);
  const engine = createCors(OPTIONS).mirror(router);
  engine.reconfigure({ origin: ['https://c.test', 'https://d.test'] });
  const exchange = fakeExchange('GET', '/filler/99/x', { origin: 'https://c.test' });
  engine.handle(exchange.req, exchange.res, () => {});
  t.equal(exchange.headers.get('access-control-allow-origin'), 'https://c.test');
  t.same(answers(engine.handle), answers(copied(router, {}).reconfigure({ origin: ['https://c.test', 'https://d.test'] }).handle));
});

t.test('past 1,000 routes the router itself is asked: a route it drops after mirror() is no longer covered; below, the copy still covers it', async (t) => {
  const covered = (size: number): boolean => {
    const router = Router();
    for (let i = 0; i < size; i++) router.on('GET', `/filler/${i}/:name`, () => {});
    const engine = createCors(OPTIONS).mirror(router);
    router.off('GET', '/filler/5/:name');
    const exchange = fakeExchange('GET', '/filler/5/x', { origin: 'https://a.test' });
    engine.handle(exchange.req, exchange.res, () => {
      exchange.nextCalled = true;
    });
    return exchange.headers.has('access-control-allow-origin');
  };
  t.notOk(covered(FILLER), 'shared: the router no longer has the route');
  t.ok(covered(10), 'copied: the engine kept its own');
});

t.test("one path under several spellings and handlers is one table, as find-my-way's tree and the copy have it", async (t) => {
  const settings = { caseSensitive: false };
  const router = routerOf(settings, (router) => {
    router.on('GET', '/Reports/:id', () => {});
    router.on('PUT', '/reports/:key', () => {});
  });
  const preflight = (engine: ReturnType<typeof createCors>): unknown => {
    const exchange = fakeExchange('OPTIONS', '/REPORTS/1', {});
    engine.handle(exchange.req, exchange.res, () => {});
    return exchange.headers.get('allow');
  };
  t.equal(preflight(createCors(OPTIONS).mirror(router)), 'GET, HEAD, PUT, OPTIONS');
  t.equal(preflight(copied(router, settings)), 'GET, HEAD, PUT, OPTIONS');
});

t.test("a path's methods keep their registration order when one handler serves several of them", async (t) => {
  const generic = () => {};
  const router = routerOf({}, (router) => {
    // The router's methods, in the order it first has them, are GET, DELETE, PUT: not this path's.
    router.on('DELETE', '/carts/:id', () => {});
    router.on('GET', '/items/:id', generic);
    router.on('PUT', '/items/:id', () => {});
    router.on('DELETE', '/items/:id', generic);
  });
  const exchange = fakeExchange('OPTIONS', '/items/1', {});
  createCors(OPTIONS)
    .mirror(router)
    .handle(exchange.req, exchange.res, () => {});
  t.equal(exchange.headers.get('allow'), 'GET, HEAD, PUT, DELETE, OPTIONS');
});

t.test("a shared mirror's options are checked at mirror(), not at the first request that builds a table", async (t) => {
  const router = routerOf({}, varied);
  t.throws(() => createCors(OPTIONS).mirror(router, { maxAge: -1 }), { name: 'CorsOptionsError', message: /maxAge = -1 is not a whole number/ });
});
