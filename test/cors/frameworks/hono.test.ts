/**
 * `@lib/cors/hono` in real hono apps, called through `app.fetch` as every runtime calls it: hono's
 * router picks the route, and the policy applied must be the one of the route whose handler ran
 * (each handler names itself in a header).
 */
import { Hono } from 'hono';
import t from 'tap';

import { createCors as createFetchCors } from '@lib/cors/fetch';
import { createCors } from '@lib/cors/hono';

import { POLICY_CASES, requestOfRow } from '../../helpers/policy-kinds.js';

const quiet = { warn: () => {}, error: () => {} };

function corsOf(response: Response): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const [name, value] of response.headers) {
    if (name.startsWith('access-control-') || name === 'vary' || name === 'allow') picked[name] = value;
  }
  return picked;
}

const send = (app: { fetch(request: Request): Response | Promise<Response> }, method: string, path: string, headers: Record<string, string> = {}) =>
  Promise.resolve(app.fetch(new Request(`http://api.test${path}`, { method, headers })));

t.test('every policy kind and row answers as the fetch adapter does', async (t) => {
  for (const policy of POLICY_CASES) {
    const app = new Hono();
    app.use(createCors(app, policy.options as never, { logger: quiet }));
    app.get('/things/:id', (c) => c.text('ok'));
    app.post('/things/:id', (c) => c.text('ok'));
    const adapter = createFetchCors(policy.options as never, { logger: quiet }).route(['GET', 'POST'], '/things/:id');
    const plain = { fetch: (request: Request) => adapter.handle(request, () => new Response('ok')) };
    for (const origin of [policy.allowed, policy.denied, undefined]) {
      for (const row of [1, 2, 3, 4, 5] as const) {
        if (row !== 1 && row !== 5 && origin === undefined) continue;
        const { method, headers } = requestOfRow(row, origin);
        const fromHono = await send(app, method, '/things/7', headers);
        const fromAdapter = await send(plain, method, '/things/7', headers);
        t.same(corsOf(fromHono), corsOf(fromAdapter), `${policy.name}, row ${row}, Origin ${origin}`);
        t.equal(fromHono.status, fromAdapter.status, `${policy.name}, row ${row}: status`);
      }
    }
  }
});

t.test('the policy applied is that of the route hono ran', async (t) => {
  for (const strict of [true, false]) {
    const app = new Hono({ strict });
    const cors = createCors(app, { origin: '*' }, { logger: quiet });
    app.use(cors);
    const named = (name: string) => (c: { header(name: string, value: string): void; text(body: string): Response }) => {
      c.header('X-Route', name);
      return c.text(name);
    };
    const strictPolicy = cors.route({ origin: ['https://admin.test'], allowCredentials: true });
    app.get('/admin/report', strictPolicy, named('report'));
    app.delete('/admin/report', strictPolicy, named('report'));
    app.get('/users/:id', named('user'));
    app.get('/users/me', cors.route({ origin: false }), named('me'));
    const api = new Hono();
    api.get('/items/:id', cors.route({ origin: ['https://items.test'] }), named('item'));
    app.route('/api', api);
    app.all('/files/*', named('files'));
    const policyOfRoute: Record<string, string | undefined> = {
      report: 'https://admin.test',
      user: '*',
      me: undefined,
      item: 'https://items.test',
      files: '*',
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
      '/admin%2Freport',
      '/ADMIN/report',
      '/users/me',
      '/users/7',
      '/users/',
      '/api/items/1',
      '/api/items/1/',
      '/API/items/1',
      '/files/a/b',
      '/files/%2E%2E/admin/report',
      '/elsewhere',
    ];
    for (const path of paths) {
      const answer = await send(app, 'GET', path, { Origin: 'https://stranger.test' });
      const ran = answer.headers.get('x-route') ?? '';
      t.equal(
        answer.headers.get('access-control-allow-origin') ?? undefined,
        path in narrowed ? narrowed[path] : policyOfRoute[ran],
        `strict ${strict}, GET ${path}: hono ran ${ran || 'no route'}, and its policy answered`,
      );
      const preflight = await send(app, 'OPTIONS', path, { Origin: 'https://stranger.test', 'Access-Control-Request-Method': 'DELETE' });
      const ranForDelete = (await send(app, 'DELETE', path, { Origin: 'https://stranger.test' })).headers.get('x-route') ?? '';
      if (ranForDelete === '') {
        t.notMatch(
          preflight.headers.get('access-control-allow-methods') ?? '',
          /DELETE/,
          `strict ${strict}, preflight DELETE ${path}: no route runs DELETE, none is granted`,
        );
      } else {
        t.equal(
          preflight.headers.get('access-control-allow-origin') ?? undefined,
          policyOfRoute[ranForDelete],
          `strict ${strict}, preflight DELETE ${path}: the policy of ${ranForDelete}`,
        );
      }
    }
  }
});

t.test("every marker hono matches for a route's method narrows its answer, before or after it (rule F)", async (t) => {
  const app = new Hono();
  const cors = createCors(app, { origin: '*' }, { logger: quiet });
  app.use(cors);
  app.all('/every-first', cors.route({ origin: ['https://every.test', 'https://other.test'] }));
  app.get('/every-first', cors.route({ origin: ['https://own.test', 'https://other.test'] }), (c) => c.text('x'));
  app.get('/own-first', cors.route({ origin: ['https://own.test', 'https://other.test'] }), (c) => c.text('x'));
  app.all('/own-first', cors.route({ origin: ['https://every.test', 'https://other.test'] }));
  app.post('/own-first', (c) => c.text('x'));
  const granted = async (method: string, path: string, origin: string) =>
    (await send(app, method, path, { Origin: origin })).headers.get('access-control-allow-origin') ?? undefined;
  // GET runs both markers of its path (hono runs every match that hands on): what both lists hold.
  t.equal(await granted('GET', '/every-first', 'https://every.test'), undefined);
  t.equal(await granted('GET', '/every-first', 'https://own.test'), undefined);
  t.equal(await granted('GET', '/every-first', 'https://other.test'), 'https://other.test');
  t.equal(await granted('GET', '/own-first', 'https://own.test'), undefined);
  t.equal(await granted('GET', '/own-first', 'https://other.test'), 'https://other.test');
  // POST's route has no marker of its own: the one for every method before it gives its options.
  t.equal(await granted('POST', '/own-first', 'https://every.test'), 'https://every.test');
});

t.test("a path's routes are asked of hono's router at its first request only", async (t) => {
  const app = new Hono();
  app.use(createCors(app, { origin: ['https://a.test'] }, { logger: quiet }));
  app.get('/users/:id', (c) => c.text('user'));
  app.post('/users/:id', (c) => c.text('posted'));
  t.equal((await send(app, 'GET', '/users/1', { Origin: 'https://a.test' })).headers.get('access-control-allow-origin'), 'https://a.test');
  const router = app.router as unknown as { match: (...args: unknown[]) => unknown };
  const match = router.match;
  const asked: unknown[][] = [];
  router.match = (...args: unknown[]) => {
    asked.push(args);
    return match.apply(router, args);
  };
  // The first request of /users/2 asks for each method the app's routes name; later ones, hono's own match only.
  await send(app, 'GET', '/users/2', { Origin: 'https://a.test' });
  for (const [method, path] of [
    ['GET', '/users/2'],
    ['HEAD', '/users/2'],
    ['POST', '/users/2'],
  ] as const) {
    asked.length = 0;
    const answer = await send(app, method, path, { Origin: 'https://a.test' });
    t.equal(answer.headers.get('access-control-allow-origin'), 'https://a.test', `${method}: granted`);
    t.equal(asked.length, 1, `${method}: hono's own match only`);
  }
  asked.length = 0;
  const preflight = await send(app, 'OPTIONS', '/users/2', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'POST' });
  t.equal(preflight.status, 204);
  t.equal(preflight.headers.get('access-control-allow-origin'), 'https://a.test');
  t.same(
    asked.map(([method]) => method),
    ['OPTIONS'],
    "a preflight is answered from what the path's first request found",
  );
});

t.test("an error answer carries the grant, and a handler's Vary keeps Origin", async (t) => {
  const app = new Hono();
  app.use(createCors(app, { origin: ['https://a.test', 'https://b.test'] }, { logger: quiet }));
  app.get('/boom', () => {
    throw new Error('no');
  });
  app.get('/vary', (c) => {
    c.header('Vary', 'Accept');
    return c.text('x');
  });
  const boom = await send(app, 'GET', '/boom', { Origin: 'https://b.test' });
  t.equal(boom.status, 500);
  t.equal(boom.headers.get('access-control-allow-origin'), 'https://b.test');
  t.equal((await send(app, 'GET', '/vary', { Origin: 'https://a.test' })).headers.get('vary'), 'Accept, Origin');
});

t.test("a route declared after the first request is hono's own to refuse: the router is left as it was", async (t) => {
  const app = new Hono();
  app.use(createCors(app, {}, { logger: quiet }));
  app.get('/early', (c) => c.text('early'));
  const { add } = app.router;
  t.equal((await send(app, 'GET', '/early', { Origin: 'https://a.test' })).headers.get('access-control-allow-origin'), '*');
  t.equal(app.router.add, add, "add() is hono's own");
  // hono's RegExpRouter refuses routes once it has matched: its own error, not ours.
  t.throws(() => app.get('/late', (c) => c.text('late')), { name: 'Error' });
});

t.test('a bad route option throws where cors.route() is called', async (t) => {
  const app = new Hono();
  const cors = createCors(app, {}, { logger: quiet });
  app.use(cors);
  t.throws(() => cors.route({ allowCredentials: true }), { name: 'CorsOptionsError', code: 'CORS_WILDCARD_WITH_CREDENTIALS' });
});

t.test('it must be given the app', async (t) => {
  t.throws(() => createCors({} as never), { code: 'CORS_NOT_A_ROUTER' });
});

t.test('routes of a sub-app with its own error handler, which hono wraps in a function taking next, are routes, not middleware', async (t) => {
  // Found in review: every such route was taken for middleware, and got no CORS headers at all.
  const app = new Hono();
  const cors = createCors(app, { origin: 'https://base.test' }, { logger: quiet });
  app.use(cors);
  const sub = new Hono();
  sub.onError((_error, c) => c.text('failed', 500));
  sub.get('/a', cors.route({ origin: 'https://a.test' }), (c) => c.text('sub a'));
  app.route('/p', sub);
  const get = await app.fetch(new Request('http://api.test/p/a', { headers: { Origin: 'https://x.test' } }));
  t.equal(await get.text(), 'sub a');
  const preflight = await app.fetch(
    new Request('http://api.test/p/a', { method: 'OPTIONS', headers: { Origin: 'https://a.test', 'Access-Control-Request-Method': 'GET' } }),
  );
  // Newer hono shows the handler it wrapped; hono 4.0's wrapper hides the route and its marker.
  const seen = app.routes.some((route) => typeof (route.handler as { __COMPOSED_HANDLER?: unknown }).__COMPOSED_HANDLER === 'function');
  if (seen) {
    t.equal(get.headers.get('access-control-allow-origin'), 'https://a.test');
    t.equal(preflight.status, 204);
    t.equal(preflight.headers.get('access-control-allow-origin'), 'https://a.test');
  } else {
    // Unseen, the route is answered as no route's, under the middleware's options, which its
    // marker narrows as it runs: what both allow (nothing here). Its preflight is not answered.
    t.equal(get.headers.get('access-control-allow-origin'), null, 'the marker narrowed the answer as it ran');
    const fromBase = await app.fetch(new Request('http://api.test/p/a', { headers: { Origin: 'https://base.test' } }));
    t.equal(fromBase.headers.get('access-control-allow-origin'), null, "not the middleware's options alone");
    t.equal(preflight.headers.get('access-control-allow-origin'), null);
  }
});
