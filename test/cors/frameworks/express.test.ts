/**
 * `@lib/cors/express` in real Express 4 and 5 applications: Express itself routes every request,
 * and the policy applied must be the one of the route whose handler Express ran. Each handler
 * names itself in a header, so a test sees both at once.
 */
import express5 from 'express';
import express4 from 'express4';
import t, { type Test } from 'tap';

import { createCors as createExpressCors, RouteRegistrationError } from '@lib/cors/express';
import { createCors } from '@lib/cors/standalone';

import { corsHeadersOf, echoApp, serve, type TestServer } from '../../helpers/http.js';
import { POLICY_CASES, requestOfRow } from '../../helpers/policy-kinds.js';

const quiet = { warn: () => {}, error: () => {} };
const EXPRESSES = { 'Express 4': express4, 'Express 5': express5 } as const;

type ExpressModule = typeof express5;

/** A route pattern that counts its runs. */
class CountedPattern extends RegExp {
  runs = 0;
  override exec(path: string): RegExpExecArray | null {
    this.runs += 1;
    return super.exec(path);
  }
}

async function listen(t: Test, app: ReturnType<ExpressModule>): Promise<TestServer> {
  const server = await serve(app as never);
  t.teardown(server.close);
  return server;
}

/** A handler that names its route, so a test sees which one Express ran. */
const named =
  (name: string) =>
  (_req: unknown, res: { setHeader(name: string, value: string): void; end(body: string): void }): void => {
    res.setHeader('X-Route', name);
    res.end(name);
  };

for (const [version, express] of Object.entries(EXPRESSES) as [string, ExpressModule][]) {
  t.test(`${version}: every policy kind and row answers as the node middleware does`, async (t) => {
    for (const policy of POLICY_CASES) {
      const viaExpress = express();
      viaExpress.use(createExpressCors(policy.options as never, { logger: quiet }));
      viaExpress.get('/things/:id', (req, res) => echoApp(req, res));
      viaExpress.post('/things/:id', (req, res) => echoApp(req, res));
      const expressServer = await listen(t, viaExpress);
      const standalone = createCors(policy.options as never, { logger: quiet }).route(['GET', 'POST'], '/things/:id');
      const nodeServer = await serve((req, res) => standalone.handle(req, res, () => echoApp(req, res)));
      t.teardown(nodeServer.close);
      for (const origin of [policy.allowed, policy.denied, undefined]) {
        for (const row of [1, 2, 3, 4, 5] as const) {
          if (row !== 1 && row !== 5 && origin === undefined) continue;
          const { method, headers } = requestOfRow(row, origin);
          const fromExpress = await expressServer.send(method, '/things/7', headers);
          const fromNode = await nodeServer.send(method, '/things/7', headers);
          t.same(corsHeadersOf(fromExpress), corsHeadersOf(fromNode), `${policy.name}, row ${row}, Origin ${origin}`);
          t.equal(fromExpress.status, fromNode.status, `${policy.name}, row ${row}: status`);
        }
      }
      // Static files and 404s are answered under the middleware's options, as `cors` answers them.
      t.same(
        corsHeadersOf(await expressServer.send('GET', '/nowhere', { Origin: 'https://app.example.com' })),
        corsHeadersOf(await expressServer.send('GET', '/things/7', { Origin: 'https://app.example.com' })),
        "a path no route matches gets the middleware's options",
      );
    }
  });

  t.test(`${version}: the policy applied is that of the route Express ran, narrowed where another route matches too`, async (t) => {
    const app = express();
    const cors = createExpressCors({ origin: '*' }, { logger: quiet });
    app.use(cors);
    const strict = cors.route({ origin: ['https://admin.test'], allowCredentials: true });
    app.get('/admin/report', strict, named('report'));
    app.delete('/admin/report', strict, named('report'));
    // Declared first, so Express runs it for /users/me too; find-my-way would pick the static one.
    app.get('/users/:id', named('user'));
    app.get('/users/me', cors.route({ origin: false }), named('me'));
    const api = express.Router();
    api.get('/items/:id', cors.route({ origin: ['https://items.test'] }), named('item'));
    app.use('/api', api);
    const strictApi = express.Router({ caseSensitive: true, strict: true });
    strictApi.get('/Exact', cors.route({ origin: ['https://exact.test'] }), named('exact'));
    app.use('/strict', strictApi);
    // A RegExp path: Express's own matcher runs it, so the mirror represents it as it is.
    app.get(/^\/re\/\d+$/, cors.route({ origin: ['https://re.test'] }), named('re'));
    // A catch-all in each version's own syntax (path-to-regexp 0.1 and 8).
    app.all(version === 'Express 4' ? '*' : '/{*rest}', named('catch-all'));
    const server = await listen(t, app);

    const paths = [
      '/admin/report',
      '/Admin/Report',
      '/admin/report/',
      '/ADMIN/REPORT/',
      '/admin//report',
      '/admin/./report',
      '/admin/%72eport',
      '/admin%2Freport',
      '/users/me',
      '/users/7',
      '/users/',
      '/api/items/1',
      '/API/items/1',
      '/api/items/1/',
      '/api//items/1',
      '/strict/Exact',
      '/strict/exact',
      '/strict/Exact/',
      '/re/12',
      '/RE/12',
      '/re/12/',
      '/re/x',
      '/elsewhere',
    ];
    const policyOfRoute: Record<string, string | undefined> = {
      report: 'https://admin.test',
      re: 'https://re.test',
      user: '*',
      me: undefined,
      item: 'https://items.test',
      exact: 'https://exact.test',
      'catch-all': '*',
    };
    // /users/:id and /users/me both match /users/me: it is answered under what both allow (rule F), nothing.
    const narrowed: Record<string, string | undefined> = { '/users/me': undefined };
    // Each policy is constant (rule A): its Access-Control-Allow-Origin names it, whoever asks.
    for (const path of paths) {
      const answer = await server.send('GET', path, { Origin: 'https://stranger.test' });
      const ran = String(answer.headers['x-route'] ?? '');
      t.ok(ran in policyOfRoute, `${path}: Express ran ${ran || 'no route'} (${answer.status})`);
      const expected = path in narrowed ? narrowed[path] : policyOfRoute[ran];
      t.equal(answer.headers['access-control-allow-origin'], expected, `GET ${path}: Express ran ${ran}, and its policy answered`);
      // A preflight for DELETE is decided by the route Express would run for DELETE.
      const preflight = await server.send('OPTIONS', path, { Origin: 'https://stranger.test', 'Access-Control-Request-Method': 'DELETE' });
      const ranForDelete = String((await server.send('DELETE', path, { Origin: 'https://stranger.test' })).headers['x-route'] ?? '');
      t.equal(
        preflight.headers['access-control-allow-origin'],
        policyOfRoute[ranForDelete],
        `preflight DELETE ${path}: the policy of the route Express runs for DELETE (${ranForDelete || 'none'})`,
      );
    }
  });

  t.test(`${version}: a URL that Express reads other than by its text before "?" is not covered`, async (t) => {
    const app = express();
    const cors = createExpressCors({ origin: '*' }, { logger: quiet });
    app.use(cors);
    app.get('/users/me', cors.route({ origin: ['https://admin.test'] }), named('me'));
    app.get('/users/:id', named('user'));
    const server = await listen(t, app);
    // Express routes these by /users/me. Before, /users/me#x was matched as it is, by /users/:id
    // alone, whose "*" answered for the admin route; an absolute URL matched no route.
    for (const url of ['/users/me#x', '/users/me?a#b', 'http://localhost/users/me']) {
      const answer = await server.send('GET', url, { Origin: 'https://stranger.test' });
      t.equal(answer.headers['x-route'], 'me', `GET ${url}: Express ran /users/me`);
      t.equal(answer.headers['access-control-allow-origin'], undefined, `GET ${url}: not covered`);
    }
    t.equal((await server.send('GET', '/users/7?a=b', { Origin: 'https://stranger.test' })).headers['access-control-allow-origin'], '*');
  });

  t.test(`${version}: mounted, the middleware still reads the whole path`, async (t) => {
    const app = express();
    const cors = createExpressCors({ origin: ['https://app.test'] }, { logger: quiet });
    const api = express.Router();
    api.use(cors);
    api.get('/users', named('users'));
    app.use('/api', api);
    const server = await listen(t, app);
    const answer = await server.send('GET', '/api/users', { Origin: 'https://app.test' });
    t.equal(answer.headers['x-route'], 'users');
    t.equal(answer.headers['access-control-allow-origin'], 'https://app.test');
    const preflight = await server.send('OPTIONS', '/api/users', { Origin: 'https://app.test', 'Access-Control-Request-Method': 'GET' });
    t.equal(preflight.status, 204);
    t.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');
  });

  t.test(`${version}: res.vary() adds to the engine's Vary: Origin; a handler that sets Vary itself decides it`, async (t) => {
    // The middleware wraps none of res's methods (docs/CONTRACT.md, "Vary"), so a Vary set whole,
    // by setHeader() or writeHead(), is the handler's own.
    const app = express();
    app.use(createExpressCors({ origin: ['https://a.test', 'https://b.test'] }, { logger: quiet }));
    app.get('/set', (_req, res) => {
      res.setHeader('Vary', 'Accept');
      res.end('x');
    });
    app.get('/vary', (_req, res) => {
      res.vary('Accept').end('x');
    });
    app.get('/write-head', (_req, res) => {
      res.writeHead(200, { Vary: 'Accept-Encoding' }).end('x');
    });
    const server = await listen(t, app);
    t.equal((await server.send('GET', '/vary', { Origin: 'https://a.test' })).headers.vary, 'Origin, Accept');
    t.equal((await server.send('GET', '/vary', { Origin: 'https://evil.test' })).headers.vary, 'Origin, Accept', 'for a refused origin too');
    t.equal((await server.send('GET', '/set', { Origin: 'https://a.test' })).headers.vary, 'Accept');
    t.equal((await server.send('GET', '/write-head', { Origin: 'https://a.test' })).headers.vary, 'Accept-Encoding');
  });

  t.test(`${version}: a path's route patterns run once more than Express runs them, at its first request only`, async (t) => {
    // The routes a path matches are kept per path: the walk runs Express's patterns again only
    // for a path not seen yet.
    const app = express();
    app.use(createExpressCors({ origin: ['https://a.test'] }, { logger: quiet }));
    const pattern = new CountedPattern('^/counted/(\\d+)$');
    const api = express.Router();
    const mountedPattern = new CountedPattern('^/inner/(\\d+)$');
    api.get(mountedPattern, (req, res) => {
      res.setHeader('X-Route', `inner ${req.params[0]}`);
      res.end();
    });
    app.use('/api', api);
    app.get(pattern, (req, res) => {
      res.setHeader('X-Route', `counted ${req.params[0]}`);
      res.end();
    });
    const server = await listen(t, app);
    for (const [path, route, counted] of [
      ['/counted/1', 'counted 1', pattern],
      ['/counted/1', 'counted 1', pattern],
      ['/counted/2', 'counted 2', pattern],
      ['/api/inner/3', 'inner 3', mountedPattern],
      ['/api/inner/3', 'inner 3', mountedPattern],
    ] as const) {
      const before = counted.runs;
      const answer = await server.send('GET', path, { Origin: 'https://a.test' });
      t.equal(answer.headers['x-route'], route);
      t.equal(answer.headers['access-control-allow-origin'], 'https://a.test');
      t.ok(counted.runs - before <= 2, `GET ${path}: the pattern ran at most twice`);
    }
    for (const [path, counted] of [
      ['/counted/1', pattern],
      ['/api/inner/3', mountedPattern],
    ] as const) {
      const before = counted.runs;
      await server.send('GET', path, { Origin: 'https://a.test' });
      t.equal(counted.runs - before, 1, `GET ${path} again: only Express ran the pattern`);
    }
  });

  t.test(`${version}: the matches handed to the router are those of the request's own path, once`, async (t) => {
    const app = express();
    app.use(createExpressCors({ origin: ['https://a.test'] }, { logger: quiet }));
    // Rewrites the path after the policy was found: the router must match the new path itself.
    app.use((req, _res, next) => {
      if (req.url.startsWith('/moved/')) req.url = req.url.replace('/moved/', '/items/');
      next();
    });
    const shared = express.Router();
    // The same router mounted twice: its route matches twice in one request, and the second
    // match is a match of its own, whatever the first handler did to its parameters.
    shared.get('/x/:id', (req, res, next) => {
      const seen = (res.getHeader('X-Seen') as string | undefined) ?? '';
      res.setHeader('X-Seen', `${seen}${req.params.id};`);
      req.params.id = 'changed';
      if (seen === '') next();
      else res.end();
    });
    app.use('/twice', shared);
    app.use('/twice', shared);
    app.get('/items/:id', (req, res) => {
      res.setHeader('X-Route', `item ${req.params.id}`);
      res.end();
    });
    // Never reached by the router (the route before it answers), but walked for the policy.
    const unreached = new CountedPattern('^/items/(\\d+)$');
    app.get(unreached, (_req, res) => res.end());
    app.get('/moved/:id', (_req, res) => {
      res.setHeader('X-Route', 'moved');
      res.end();
    });
    const server = await listen(t, app);
    for (const id of ['1', '2']) {
      const moved = await server.send('GET', `/moved/${id}`, { Origin: 'https://a.test' });
      t.equal(moved.headers['x-route'], `item ${id}`, `GET /moved/${id}: the router matched the rewritten path`);
      const twice = await server.send('GET', `/twice/x/${id}`, { Origin: 'https://a.test' });
      t.equal(twice.headers['x-seen'], `${id};${id};`, `GET /twice/x/${id}: each match has its own parameters`);
    }
    await server.send('GET', '/items/3', { Origin: 'https://a.test' });
    // Once the request is answered, nothing is left handed over: the layer's match() runs its pattern.
    type Layer = { match(path: string): unknown; rawPath?: unknown; regexp?: unknown };
    const { stack } = ((app as { _router?: unknown; router?: unknown })._router ?? app.router) as { stack: Layer[] };
    const layer = stack.find((each) => each.rawPath === unreached || each.regexp === unreached)!;
    const before = unreached.runs;
    t.ok(layer.match('/items/3'), 'the layer after the route that answered matches /items/3');
    t.equal(unreached.runs - before, 1, 'its match() ran the pattern');
  });

  t.test(`${version}: a layer added while an async origin function waits gets its own match, not the walk's of the layer it moved`, async (t) => {
    const app = express();
    let slipIn: (() => void) | undefined;
    const origin = async (requested: string): Promise<boolean> => {
      // Between the walk and next(): other code may change the application's stack.
      slipIn?.();
      slipIn = undefined;
      await new Promise((resolve) => setImmediate(resolve));
      return requested === 'https://a.test';
    };
    app.use(createExpressCors({ origin }, { logger: quiet }));
    app.get('/x/:id', named('declared'));
    const server = await listen(t, app);
    const other = express.Router();
    other.get('/elsewhere', named('elsewhere'));
    const { stack } = ((app as { _router?: unknown; router?: unknown })._router ?? app.router) as { stack: unknown[] };
    slipIn = () => stack.splice(stack.length - 1, 0, other.stack[0]);
    const answer = await server.send('GET', '/x/1', { Origin: 'https://a.test' });
    t.equal(answer.headers['x-route'], 'declared', 'the layer slipped in before /x/:id does not run for /x/1');
    t.equal(answer.headers['access-control-allow-origin'], 'https://a.test');
  });

  t.test(`${version}: routes of one path share its methods; a list of paths is not the path its items joined by commas spell`, async (t) => {
    const app = express();
    app.use(createExpressCors({ origin: ['https://a.test'] }, { logger: quiet }));
    app.get('/items/:id', named('get'));
    app.put('/items/:id', named('put'));
    const exact = express.Router({ caseSensitive: true });
    exact.get('/items/:id', named('exact get'));
    app.use('/exact', exact);
    app.get(['/a', '/b'], named('list'));
    app.post('/a,/b', named('commas'));
    const server = await listen(t, app);
    const allowed = (path: string, method: string) =>
      server
        .send('OPTIONS', path, { Origin: 'https://a.test', 'Access-Control-Request-Method': method })
        .then((answer) => answer.headers['access-control-allow-methods']);
    t.equal(await allowed('/items/1', 'PUT'), 'GET, HEAD, PUT, OPTIONS', 'GET and PUT /items/:id are one path');
    t.equal(await allowed('/exact/items/1', 'GET'), 'GET, HEAD, OPTIONS', 'the same path in another router is another path');
    t.equal(await allowed('/a', 'POST'), 'GET, HEAD, OPTIONS', 'only the list route runs for /a, and it has no POST');
    t.equal((await server.send('POST', '/a', { Origin: 'https://a.test' })).status, 404, 'Express runs no POST route for /a');
  });

  t.test(`${version}: a route declared after the first request is read with the next one, and Express is left as it was`, async (t) => {
    const app = express();
    const cors = createExpressCors({ origin: ['https://a.test', 'https://b.test'] }, { logger: quiet });
    app.use(cors);
    app.get('/early', named('early'));
    const server = await listen(t, app);
    t.equal((await server.send('GET', '/early', { Origin: 'https://a.test' })).headers['access-control-allow-origin'], 'https://a.test');
    app.get('/late', cors.route({ origin: ['https://b.test', 'https://c.test'] }), named('late'));
    const preflight = { 'Access-Control-Request-Method': 'PUT' };
    app.put('/late', cors.route({ origin: ['https://b.test', 'https://c.test'] }), named('late'));
    t.equal((await server.send('OPTIONS', '/late', { Origin: 'https://a.test', ...preflight })).headers['access-control-allow-origin'], undefined);
    t.equal((await server.send('OPTIONS', '/late', { Origin: 'https://b.test', ...preflight })).headers['access-control-allow-origin'], 'https://b.test');
    t.equal((await server.send('GET', '/late', { Origin: 'https://a.test' })).headers['x-route'], 'late');
  });

  t.test(`${version}: a mounted application is refused when the routes are read`, async (t) => {
    const app = express();
    const cors = createExpressCors({}, { logger: quiet });
    app.use(cors);
    const inner = express();
    inner.get('/x', named('x'));
    app.use('/inner', inner);
    t.throws(() => cors.mirror(app), { code: 'CORS_MOUNT_UNSEEN', message: /\/inner/ });
    t.type(RouteRegistrationError, 'function');
  });

  t.test(`${version}: bad route options fail where cors.route() is called, as the route is declared`, async (t) => {
    const cors = createExpressCors({}, { logger: quiet });
    t.throws(() => cors.route({ allowCredentials: true }), { name: 'CorsOptionsError', code: 'CORS_WILDCARD_WITH_CREDENTIALS', message: /cors\.route\(\)/ });
  });
}

for (const [version, express] of Object.entries(EXPRESSES) as [string, ExpressModule][]) {
  t.test(`${version}: a route declared with no method yet (app.route() alone) is passed over, as Express passes over it`, async (t) => {
    // Found in review: its path's requests failed with a 500 (it had no table to read).
    const app = express();
    const cors = createExpressCors({ origin: 'https://app.test' }, { logger: quiet });
    app.use(cors);
    app.route('/a');
    app.get('/a', named('GET /a'));
    const server = await listen(t, app);
    const answer = await server.send('GET', '/a', { Origin: 'https://app.test' });
    t.equal(answer.status, 200);
    t.equal(answer.body, 'GET /a');
    t.equal(answer.headers['access-control-allow-origin'], 'https://app.test');
  });
}
