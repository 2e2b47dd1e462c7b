/**
 * A `cors.route()` the framework runs as middleware, outside any route, is refused at start-up by
 * Koa and hono (CORS_MARKER_OUTSIDE_ROUTE): it runs before routes of other paths, which their
 * entry points cannot decide, so `app.use('/internal', cors.route({ origin: false }))` left
 * `/internal/report` under the middleware's credentialed grant, silently (found by a review probe
 * in Express, Koa and hono). Express's entry point reads such a marker as the options of the
 * routes below its path that have none of their own (rule F), and Express runs it on their way.
 * Without mirror(), the first request reads the routes: the refusal answers it as an error, with
 * no grant. A marker in a route keeps deciding it (the controls), and in hono a marker declared
 * for one method decides that method of a route of every method after it, as hono runs it first.
 */
import Router from '@koa/router';
import express5 from 'express';
import express4 from 'express4';
import { Hono } from 'hono';
import Koa from 'koa';
import t from 'tap';

import { createCors as createExpressCors } from '@lib/cors/express';
import { createCors as createHonoCors } from '@lib/cors/hono';
import { createCors as createKoaCors } from '@lib/cors/koa';

import { serve } from '../../helpers/http.js';

const quiet = { warn: () => {}, error: () => {} };
const OPEN = { origin: 'https://app.test', allowCredentials: true };
const CLOSED = { origin: false as const };
const ORIGIN = 'https://app.test';

interface Case {
  /** What the refusal names: where the marker is. */
  readonly where: RegExp;
  /** The application; `mirror` reads its routes at once, else its first request does. */
  readonly start: (mirror: boolean) => { send: (path: string) => Promise<{ status: number; allowOrigin: string | null }> };
}

function overHttp(listener: Parameters<typeof serve>[0]) {
  let server: Awaited<ReturnType<typeof serve>> | undefined;
  return {
    send: async (path: string) => {
      server ??= await serve(listener);
      const answer = await server.send('GET', path, { Origin: ORIGIN });
      return { status: answer.status, allowOrigin: (answer.headers['access-control-allow-origin'] as string | undefined) ?? null };
    },
    close: () => server?.close(),
  };
}

function overFetch(app: Hono) {
  return {
    send: async (path: string) => {
      const response = await app.fetch(new Request(`http://api.test${path}`, { headers: { Origin: ORIGIN } }));
      await response.text();
      return { status: response.status, allowOrigin: response.headers.get('access-control-allow-origin') };
    },
  };
}

function expressCase(express: typeof express5, mounted: boolean): Case['start'] {
  return (mirror) => {
    const app = express();
    const cors = createExpressCors(OPEN, { logger: quiet });
    app.use(cors);
    if (mounted) {
      const router = express.Router();
      router.use(cors.route(CLOSED));
      router.get('/report', (_req, res) => void res.send('report'));
      app.use('/internal', router);
    } else {
      app.use('/internal', cors.route(CLOSED));
      app.get('/internal/report', (_req, res) => void res.send('report'));
    }
    if (mirror) cors.mirror(app);
    const served = overHttp(app as never);
    t.teardown(served.close);
    return served;
  };
}

for (const [name, start] of [
  ["Express 5 app.use('/internal', cors.route())", expressCase(express5, false)],
  ["Express 4 app.use('/internal', cors.route())", expressCase(express4 as unknown as typeof express5, false)],
  ['Express 5 router.use(cors.route()), the router mounted at /internal', expressCase(express5, true)],
  ["Koa router.use('/internal', cors.route())", koaCase(true)],
  ["hono app.use('/internal/*', cors.route()) declared after the routes below it", honoCase('/internal/*', '/internal/report', true)],
  ['hono app.get() of a marker on /internal/:id, the route on /internal/:name', honoCase('/internal/:id', '/internal/:name')],
] as const) {
  t.test(`${name}: the routes below /internal are answered under its options`, async (t) => {
    for (const mirror of [true, false]) {
      const { send } = start(mirror);
      t.same(await send('/internal/report'), { status: 200, allowOrigin: null }, `closed (${mirror ? 'mirror()' : 'read at the first request'})`);
      t.same(await send('/elsewhere'), { status: 404, allowOrigin: ORIGIN }, "a path outside it keeps the middleware's grant");
    }
  });
}

function koaCase(inRouter: boolean): Case['start'] {
  return (mirror) => {
    const app = new Koa();
    app.silent = true;
    const router = new Router();
    const cors = createKoaCors(OPEN, { logger: quiet });
    app.use(cors);
    if (inRouter) router.use('/internal', cors.route(CLOSED));
    else app.use(cors.route(CLOSED));
    router.get('/internal/report', (ctx) => {
      ctx.body = 'report';
    });
    app.use(router.routes());
    if (mirror) cors.mirror(app);
    const served = overHttp(app.callback());
    t.teardown(served.close);
    return served;
  };
}

/** hono: the marker on `markerPath`, and the route on `routePath` declared after it, or before it (`routeFirst`). */
function honoCase(markerPath: string, routePath: string, routeFirst = false): Case['start'] {
  return (mirror) => {
    const app = new Hono();
    app.onError((_error, c) => c.text('refused', 500));
    const cors = createHonoCors(app, OPEN, { logger: quiet });
    app.use(cors);
    if (routeFirst) app.get(routePath, (c) => c.text('report'));
    if (markerPath.endsWith('*')) app.use(markerPath, cors.route(CLOSED));
    else app.get(markerPath, cors.route(CLOSED));
    if (!routeFirst) app.get(routePath, (c) => c.text('report'));
    if (mirror) cors.mirror();
    return overFetch(app);
  };
}

const CASES: Record<string, Case> = {
  'Koa app.use(cors.route())': { where: /app\.use\(\)/, start: koaCase(false) },
};

for (const [name, { where, start }] of Object.entries(CASES)) {
  t.test(`${name}: refused at mirror(), naming where it is`, async (t) => {
    t.throws(() => start(true), { name: 'RouteRegistrationError', code: 'CORS_MARKER_OUTSIDE_ROUTE', message: where });
  });

  t.test(`${name}: without mirror(), the first request is answered as an error, with no grant`, async (t) => {
    const { send } = start(false);
    for (const path of ['/internal/report', '/internal/report']) {
      const answer = await send(path);
      t.equal(answer.status, 500);
      t.equal(answer.allowOrigin, null, "not the middleware's grant");
    }
  });
}

t.test('a cors.route() in the route keeps deciding it, in every framework (the controls)', async (t) => {
  const expressApp = express5();
  const expressCors = createExpressCors(OPEN, { logger: quiet });
  expressApp.use(expressCors);
  expressApp.get('/internal/report', expressCors.route(CLOSED), (_req, res) => void res.send('report'));
  expressCors.mirror(expressApp);
  const expressServed = overHttp(expressApp as never);
  t.teardown(expressServed.close);
  t.same(await expressServed.send('/internal/report'), { status: 200, allowOrigin: null });

  const koaApp = new Koa();
  const router = new Router();
  const koaCors = createKoaCors(OPEN, { logger: quiet });
  router.get('/internal/report', koaCors.route(CLOSED), (ctx) => {
    ctx.body = 'report';
  });
  koaApp.use(koaCors).use(router.routes());
  koaCors.mirror(koaApp);
  const koaServed = overHttp(koaApp.callback());
  t.teardown(koaServed.close);
  t.same(await koaServed.send('/internal/report'), { status: 200, allowOrigin: null });

  const honoApp = new Hono();
  const honoCors = createHonoCors(honoApp, OPEN, { logger: quiet });
  honoApp.use(honoCors);
  honoApp.use('/internal/*', honoCors.route(CLOSED));
  honoApp.get('/internal/*', (c) => c.text('report'));
  honoCors.mirror();
  t.same(await overFetch(honoApp).send('/internal/report'), { status: 200, allowOrigin: null }, 'hono: a marker on the path of the route it runs before');
});

t.test('hono: a marker declared for one method decides that method of a later route of every method on its path', async (t) => {
  const app = new Hono();
  const cors = createHonoCors(app, OPEN, { logger: quiet });
  app.use(cors);
  app.get('/things', cors.route(CLOSED));
  app.all('/things', (c) => c.text(`ran all for ${c.req.method}`));
  cors.mirror();
  const send = async (method: string) => {
    const response = await app.fetch(new Request('http://api.test/things', { method, headers: { Origin: ORIGIN } }));
    return { body: await response.text(), allowOrigin: response.headers.get('access-control-allow-origin') };
  };
  t.same(await send('GET'), { body: 'ran all for GET', allowOrigin: null }, 'GET: hono ran the GET marker first');
  t.same(await send('HEAD'), { body: '', allowOrigin: null }, 'HEAD: hono runs it as GET');
  t.same(await send('POST'), { body: 'ran all for POST', allowOrigin: ORIGIN }, "POST: no marker, the middleware's options");
});

t.test('hono: a handler that takes next, declared right after its cors.route() (serveStatic()), is the route the marker is for', async (t) => {
  const app = new Hono();
  const cors = createHonoCors(app, { origin: 'https://base.test' }, { logger: quiet });
  app.use(cors);
  // As hono's serveStatic() does: answer the files it has, hand the rest on.
  const files = async (c: { req: { path: string }; text(body: string): Response }, next: () => Promise<void>) => {
    if (c.req.path.endsWith('.txt')) return c.text(`file ${c.req.path}`);
    await next();
  };
  app.get('/static/*', cors.route(OPEN), files as never);
  t.doesNotThrow(() => cors.mirror(), 'no refusal: the marker has its route');
  const send = async (path: string) => {
    const response = await app.fetch(new Request(`http://api.test${path}`, { headers: { Origin: ORIGIN } }));
    return { status: response.status, body: await response.text(), allowOrigin: response.headers.get('access-control-allow-origin') };
  };
  t.same(await send('/static/a.txt'), { status: 200, body: 'file /static/a.txt', allowOrigin: ORIGIN }, "the file, under the marker's policy");
  t.same(await send('/static/missing'), { status: 404, body: '404 Not Found', allowOrigin: ORIGIN }, "handed on: hono's 404 keeps the grant");
});

t.test(
  "hono: a cors.route() on prefix/* decides each route below it declared after it, as hono runs it first on each of their URLs (hono's own cors() is used that way), and narrows those before it",
  async (t) => {
    const app = new Hono();
    const cors = createHonoCors(app, OPEN, { logger: quiet });
    app.use(cors);
    app.get('/internal/early', (c) => c.text('early'));
    app.use('/internal/*', cors.route(CLOSED));
    app.get('/internal/report', (c) => c.text('report'));
    app.get('/:section/summary', (c) => c.text('summary'));
    app.all('/internal/*', (c) => c.text('no such page', 404));
    cors.mirror();
    const send = async (method: string, path: string, headers: Record<string, string> = {}) => {
      const response = await app.fetch(new Request(`http://api.test${path}`, { method, headers: { Origin: ORIGIN, ...headers } }));
      return { body: await response.text(), allowOrigin: response.headers.get('access-control-allow-origin') };
    };
    t.same(await send('GET', '/internal/report'), { body: 'report', allowOrigin: null }, 'a route below it: its policy, no grant');
    t.equal((await send('OPTIONS', '/internal/report', { 'Access-Control-Request-Method': 'PUT' })).allowOrigin, null, 'its preflights too');
    t.same(await send('GET', '/internal/zzz'), { body: 'no such page', allowOrigin: null }, 'the catch-all below it');
    // hono runs the route declared before the marker first, but the marker matches its URL too: what both allow (rule F).
    t.same(await send('GET', '/internal/early'), { body: 'early', allowOrigin: null }, 'a route declared before it: narrowed by it');
    t.same(
      await send('GET', '/public/summary'),
      { body: 'summary', allowOrigin: ORIGIN },
      'a route sharing only some URLs with it: its own, where the marker never runs',
    );
  },
);

t.test('hono: middleware right after a marker in app.use() is no route; a prefix with parameters holds the routes that begin with it', async (t) => {
  const app = new Hono();
  const cors = createHonoCors(app, { origin: 'https://base.test' }, { logger: quiet });
  app.use(cors);
  app.use('/api/*', cors.route(OPEN), async (_c, next) => next());
  app.get('/api/x', (c) => c.text('x'));
  app.use('/v/:version/*', cors.route(CLOSED));
  app.get('/v/:version/users', (c) => c.text('users'));
  cors.mirror();
  const send = async (method: string, path: string, headers: Record<string, string> = {}) => {
    const response = await app.fetch(new Request(`http://api.test${path}`, { method, headers: { Origin: ORIGIN, ...headers } }));
    return { status: response.status, allowOrigin: response.headers.get('access-control-allow-origin') };
  };
  t.same(await send('GET', '/api/x'), { status: 200, allowOrigin: ORIGIN }, 'the route below the prefix: the marker decides');
  t.same(await send('GET', '/api/nothing'), { status: 404, allowOrigin: null }, 'no route there: the middleware after the marker is none');
  t.same(await send('OPTIONS', '/api/nothing', { 'Access-Control-Request-Method': 'DELETE' }), { status: 404, allowOrigin: null }, 'nor a preflight');
  t.same(await send('GET', '/v/2/users'), { status: 200, allowOrigin: null }, 'the marker on /v/:version/* decides /v/:version/users');
});
