/**
 * `@lib/cors/koa` in real Koa applications with `@koa/router`: Koa and the routers route every
 * request, and the policy applied must be the one of the route whose handler ran (each handler
 * names itself in a header).
 */
import Router from '@koa/router';
import Koa from 'koa';
import t, { type Test } from 'tap';

import { createCors as createKoaCors } from '@lib/cors/koa';
import { createCors } from '@lib/cors/standalone';

import { corsHeadersOf, echoApp, serve, type TestServer } from '../../helpers/http.js';
import { KOA_ROUTER_MAJOR } from '../../helpers/installed-versions.js';
import { POLICY_CASES, requestOfRow } from '../../helpers/policy-kinds.js';

const quiet = { warn: () => {}, error: () => {} };

async function listen(t: Test, app: Koa): Promise<TestServer> {
  const server = await serve(app.callback());
  t.teardown(server.close);
  return server;
}

const named = (name: string) => (ctx: Koa.Context) => {
  ctx.set('X-Route', name);
  ctx.body = name;
};

t.test('every policy kind and row answers as the node middleware does', async (t) => {
  for (const policy of POLICY_CASES) {
    const app = new Koa();
    const router = new Router();
    const echo = (ctx: Koa.Context) => {
      // The stand-in application writes the raw response itself (Koa's own status starts at 404).
      ctx.res.statusCode = 200;
      ctx.respond = false;
      echoApp(ctx.req, ctx.res);
    };
    router.get('/things/:id', echo).post('/things/:id', echo);
    app.use(createKoaCors(policy.options as never, { logger: quiet }));
    app.use(router.routes());
    const koaServer = await listen(t, app);
    const standalone = createCors(policy.options as never, { logger: quiet }).route(['GET', 'POST'], '/things/:id');
    const nodeServer = await serve((req, res) => standalone.handle(req, res, () => echoApp(req, res)));
    t.teardown(nodeServer.close);
    for (const origin of [policy.allowed, policy.denied, undefined]) {
      for (const row of [1, 2, 3, 4, 5] as const) {
        if (row !== 1 && row !== 5 && origin === undefined) continue;
        const { method, headers } = requestOfRow(row, origin);
        const fromKoa = await koaServer.send(method, '/things/7', headers);
        const fromNode = await nodeServer.send(method, '/things/7', headers);
        t.same(corsHeadersOf(fromKoa), corsHeadersOf(fromNode), `${policy.name}, row ${row}, Origin ${origin}`);
        t.equal(fromKoa.status, fromNode.status, `${policy.name}, row ${row}: status`);
      }
    }
  }
});

t.test('the policy applied is that of the route the router ran', async (t) => {
  const app = new Koa();
  const cors = createKoaCors({ origin: '*' }, { logger: quiet });
  app.use(cors);
  const router = new Router();
  const strict = cors.route({ origin: ['https://admin.test'], allowCredentials: true });
  router.get('/admin/report', strict, named('report'));
  router.delete('/admin/report', strict, named('report'));
  // Declared first, so the router runs it for /users/me too.
  router.get('/users/:id', named('user'));
  router.get('/users/me', cors.route({ origin: false }), named('me'));
  const api = new Router();
  api.get('/items/:id', cors.route({ origin: ['https://items.test'] }), named('item'));
  router.use('/api', api.routes());
  // A RegExp path: the router's own matcher runs it.
  router.get(/^\/re\/\d+$/, cors.route({ origin: ['https://re.test'] }), named('re'));
  const exact = new Router({ sensitive: true, strict: true });
  exact.get('/strict/Exact', cors.route({ origin: ['https://exact.test'] }), named('exact'));
  app.use(router.routes());
  app.use(exact.routes());
  const server = await listen(t, app);
  const policyOfRoute: Record<string, string | undefined> = {
    report: 'https://admin.test',
    user: '*',
    me: undefined,
    item: 'https://items.test',
    exact: 'https://exact.test',
    re: 'https://re.test',
    // No route ran (a 404): the middleware's options, as `cors` gives them.
    '': '*',
  };
  // /users/:id and /users/me both match /users/me: it is answered under what both allow (rule F), nothing.
  const narrowed: Record<string, string | undefined> = { '/users/me': undefined };
  const paths = [
    '/admin/report',
    '/Admin/Report',
    '/admin/report/',
    '/admin//report',
    '/admin/./report',
    '/admin/%72eport',
    '/admin/%2e/report',
    '/admin%2Freport',
    '/users/me',
    '/users/7',
    '/users/',
    '/api/items/1',
    '/API/items/1',
    '/api/items/1/',
    '/strict/Exact',
    '/strict/exact',
    '/strict/Exact/',
    '/re/12',
    '/RE/12',
    '/re/x',
    '/elsewhere',
  ];
  for (const path of paths) {
    const answer = await server.send('GET', path, { Origin: 'https://stranger.test' });
    const ran = String(answer.headers['x-route'] ?? '');
    const expected = path in narrowed ? narrowed[path] : policyOfRoute[ran];
    t.equal(answer.headers['access-control-allow-origin'], expected, `GET ${path}: the router ran ${ran || 'no route'}, and its policy answered`);
    const preflight = await server.send('OPTIONS', path, { Origin: 'https://stranger.test', 'Access-Control-Request-Method': 'DELETE' });
    const ranForDelete = String((await server.send('DELETE', path, { Origin: 'https://stranger.test' })).headers['x-route'] ?? '');
    if (ranForDelete === '') {
      t.notMatch(String(preflight.headers['access-control-allow-methods'] ?? ''), /DELETE/, `preflight DELETE ${path}: no route runs DELETE, none is granted`);
    } else {
      t.equal(
        preflight.headers['access-control-allow-origin'],
        policyOfRoute[ranForDelete],
        `preflight DELETE ${path}: the policy of the route run for DELETE (${ranForDelete})`,
      );
    }
  }
});

t.test("an error thrown by the application keeps the grant (Koa's error answer clears headers)", async (t) => {
  const app = new Koa();
  app.silent = true;
  app.use(createKoaCors({ origin: ['https://a.test', 'https://b.test'] }, { logger: quiet }));
  const router = new Router();
  router.get('/boom', () => {
    throw Object.assign(new Error('no'), { status: 418, expose: true });
  });
  app.use(router.routes());
  const server = await listen(t, app);
  const answer = await server.send('GET', '/boom', { Origin: 'https://b.test' });
  t.equal(answer.status, 418);
  t.equal(answer.headers['access-control-allow-origin'], 'https://b.test');
  t.equal(answer.headers.vary, 'Origin');
});

t.test("a handler's ctx.set('Vary') keeps Origin", async (t) => {
  const app = new Koa();
  app.use(createKoaCors({ origin: ['https://a.test', 'https://b.test'] }, { logger: quiet }));
  const router = new Router();
  router.get('/set', (ctx) => {
    ctx.set('Vary', 'Accept');
    ctx.body = 'x';
  });
  app.use(router.routes());
  const server = await listen(t, app);
  t.equal((await server.send('GET', '/set', { Origin: 'https://a.test' })).headers.vary, 'Origin, Accept');
});

t.test('a route declared after the first request is read with the next one, and the router is left as it was', async (t) => {
  const app = new Koa();
  const cors = createKoaCors({ origin: ['https://a.test', 'https://b.test'] }, { logger: quiet });
  app.use(cors);
  const router = new Router();
  router.get('/early', named('early'));
  app.use(router.routes());
  const { register, match } = router;
  const server = await listen(t, app);
  t.equal((await server.send('GET', '/early', { Origin: 'https://a.test' })).headers['access-control-allow-origin'], 'https://a.test');
  router.put('/late', cors.route({ origin: ['https://b.test', 'https://c.test'] }), named('late'));
  const preflight = { 'Access-Control-Request-Method': 'PUT' };
  t.equal((await server.send('OPTIONS', '/late', { Origin: 'https://a.test', ...preflight })).headers['access-control-allow-origin'], undefined);
  t.equal((await server.send('OPTIONS', '/late', { Origin: 'https://b.test', ...preflight })).headers['access-control-allow-origin'], 'https://b.test');
  t.equal(router.register, register, "register() is the router's own");
  t.equal(router.match, match, 'match() too');
});

// @koa/router 14 compiles a RegExp path into a RegExp of its own, whose runs cannot be counted from outside.
(KOA_ROUTER_MAJOR === 14 ? () => undefined : t.test.bind(t))(
  "a path's route patterns run once more than the router runs them, at its first request only",
  async (t) => {
    // The routes a path matches are kept per path: match() runs the patterns again only for a path
    // not seen yet. Counted against the same router without the middleware, request by request.
    class CountedPattern extends RegExp {
      runs = 0;
      override test(path: string): boolean {
        this.runs += 1;
        return super.test(path);
      }
    }
    const start = async (withCors: boolean) => {
      const app = new Koa();
      if (withCors) app.use(createKoaCors({ origin: ['https://a.test'] }, { logger: quiet }));
      const router = new Router();
      const pattern = new CountedPattern('^/counted/\\d+$');
      router.register(pattern, ['GET'], [named('counted')], { pathAsRegExp: true } as never);
      app.use(router.routes());
      return { pattern, server: await listen(t, app) };
    };
    const alone = await start(false);
    const covered = await start(true);
    for (const [path, more] of [
      ['/counted/1', 1],
      ['/counted/1', 0],
      ['/counted/2', 1],
    ] as const) {
      const before = { alone: alone.pattern.runs, covered: covered.pattern.runs };
      t.equal((await alone.server.send('GET', path, { Origin: 'https://a.test' })).headers['x-route'], 'counted');
      const answer = await covered.server.send('GET', path, { Origin: 'https://a.test' });
      t.equal(answer.headers['x-route'], 'counted');
      t.equal(answer.headers['access-control-allow-origin'], 'https://a.test');
      const own = alone.pattern.runs - before.alone;
      t.ok(own > 0, `GET ${path}: the router ran the pattern itself`);
      t.equal(
        covered.pattern.runs - before.covered,
        own + more,
        `GET ${path}: the pattern ran ${more === 1 ? 'once more' : 'no more'} than the router runs it`,
      );
    }
  },
);

t.test('each request gets its own ctx.matched, with routers that fall through to the next', async (t) => {
  const app = new Koa();
  app.use(createKoaCors({ origin: ['https://a.test'] }, { logger: quiet }));
  const first = new Router();
  first.get('/shared', async (_ctx, next) => {
    await next();
  });
  const second = new Router();
  second.get('/shared', (ctx) => {
    ctx.body = String((ctx as { matched?: unknown[] }).matched?.length);
  });
  app.use(first.routes());
  app.use(second.routes());
  const server = await listen(t, app);
  for (const round of [1, 2, 3]) {
    const answer = await server.send('GET', '/shared', { Origin: 'https://a.test' });
    t.equal(answer.body, '2', `request ${round}: the layers of both routers, once`);
  }
});

t.test('a route slipped into the stack after the routes were read is read with the next request', async (t) => {
  const app = new Koa();
  app.use(createKoaCors({ origin: '*' }, { logger: quiet }));
  const router = new Router();
  router.get('/items/:id', named('declared'));
  app.use(router.routes());
  const server = await listen(t, app);
  t.equal((await server.send('GET', '/items/1', { Origin: 'https://a.test' })).headers['access-control-allow-origin'], '*');
  const other = new Router();
  other.get('/items/:id', named('slipped'));
  router.stack.unshift(other.stack[0]!);
  const answer = await server.send('GET', '/items/2', { Origin: 'https://a.test' });
  t.equal(answer.headers['x-route'], 'slipped');
  t.equal(answer.headers['access-control-allow-origin'], '*', "the middleware's options: the slipped route has none of its own");
});

t.test('layers of one pattern share their path; the same pattern with other flags is another path', async (t) => {
  const app = new Koa();
  app.use(createKoaCors({ origin: ['https://a.test'] }, { logger: quiet }));
  const router = new Router();
  router.get('/items/:id', named('get'));
  router.put('/items/:key', named('put'));
  // Case-sensitive: the same pattern source, without the `i` flag. @koa/router runs it for /same only.
  router.register('/same', ['GET'], [named('exact')], { sensitive: true });
  router.put('/same', named('any case'));
  app.use(router.routes());
  const server = await listen(t, app);
  const preflight = (path: string, method: string) =>
    server
      .send('OPTIONS', path, { Origin: 'https://a.test', 'Access-Control-Request-Method': method })
      .then((answer) => answer.headers['access-control-allow-methods']);
  t.equal(await preflight('/items/1', 'PUT'), 'GET, HEAD, PUT, OPTIONS', '/items/:id and /items/:key are one path');
  t.equal(await preflight('/SAME', 'PUT'), 'PUT, OPTIONS', 'the case-insensitive route alone runs for /SAME, and lists its own method');
});

t.test("a router bound to a host decides only that host's requests; another host gets the route that runs for it", async (t) => {
  const app = new Koa();
  const cors = createKoaCors({ origin: ['https://public.test'] }, { logger: quiet });
  app.use(cors);
  const admin = new Router({ host: 'admin.test' });
  admin.get('/data', cors.route({ origin: '*' }), named('admin'));
  const open = new Router();
  open.get('/data', named('public'));
  app.use(admin.routes());
  app.use(open.routes());
  const server = await listen(t, app);
  // Each host twice, in turn: a walk kept for one host must not answer the other.
  for (const host of ['admin.test', 'public.test', 'admin.test', 'public.test']) {
    const answer = await server.send('GET', '/data', { Host: host, Origin: 'https://stranger.test' });
    const ran = host === 'admin.test' ? 'admin' : 'public';
    t.equal(answer.headers['x-route'], ran, `Host ${host}: the router ran the ${ran} route`);
    // The public policy has one origin, which it names whatever the request's Origin is. On
    // admin.test both routers' routes match (the public one runs where the admin one passes on):
    // what both allow (rule F) is that one origin; on public.test the admin router never runs.
    t.equal(answer.headers['access-control-allow-origin'], 'https://public.test', `Host ${host}: no more than the ${ran} route's policy`);
  }
});

t.test('a path a middleware before it rewrites (ctx.newRouterPath) is matched as the router matches it', async (t) => {
  const app = new Koa();
  const cors = createKoaCors({ origin: '*' }, { logger: quiet });
  // @koa/router matches ctx.newRouterPath where it is set: /report runs the admin route.
  app.use(async (ctx, next) => {
    if (ctx.path === '/report') (ctx as Koa.Context & { newRouterPath?: string }).newRouterPath = '/admin/report';
    await next();
  });
  app.use(cors);
  const router = new Router();
  router.get('/admin/report', cors.route({ origin: ['https://admin.test'], allowCredentials: true }), named('report'));
  router.get('/:page', named('page'));
  app.use(router.routes());
  const server = await listen(t, app);
  const answer = await server.send('GET', '/report', { Origin: 'https://stranger.test' });
  t.equal(answer.headers['x-route'], 'report', 'the router ran the admin route');
  t.equal(answer.headers['access-control-allow-origin'], 'https://admin.test', "the admin route's policy, not the open one of /:page");
  t.equal(answer.headers['access-control-allow-credentials'], 'true');
});
