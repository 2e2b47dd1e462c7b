/** The standalone middleware's own surface: routes, merging, mirroring, global mode, options that change the answers. */
import t from 'tap';
import Router from 'find-my-way';

import { createCors, RouteRegistrationError, type CorsOptions } from '@lib/cors/standalone';
import * as main from '@lib/cors';

import { captureLogger, corsHeadersOf, echoApp, serve } from '../../helpers/http.js';

t.test('the package root exports the standalone API', async (t) => {
  t.equal(main.createCors, createCors);
});

t.test('handle is already bound: it works detached, as Connect/Express middleware is called', async (t) => {
  const { handle } = createCors({ origin: 'https://a.test' }).route('GET', '/');
  const server = await serve((req, res) => handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  const answer = await server.send('GET', '/', { Origin: 'https://a.test' });
  t.equal(answer.headers['access-control-allow-origin'], 'https://a.test');
  t.equal(answer.body, 'app saw GET /');
});

t.test('with no route, every path is covered like a global CORS middleware', async (t) => {
  const cors = createCors({ origin: ['https://a.test', 'https://b.test'] });
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  const options = await server.send('OPTIONS', '/anything/at/all');
  t.same(corsHeadersOf(options), { allow: 'GET, HEAD, PUT, PATCH, POST, DELETE, OPTIONS', vary: 'Origin' });
  const preflight = await server.send('OPTIONS', '/x?y=1', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'PATCH' });
  t.same(corsHeadersOf(preflight), {
    'access-control-allow-origin': 'https://a.test',
    'access-control-allow-methods': 'GET, HEAD, PUT, PATCH, POST, DELETE, OPTIONS',
    vary: 'Origin, Access-Control-Request-Headers',
  });
  const actual = await server.send('DELETE', '/y', { Origin: 'https://b.test' });
  t.equal(actual.body, 'app saw DELETE /y');
  t.equal(actual.headers['access-control-allow-origin'], 'https://b.test');
});

t.test('in global mode, Allow and the preflight take their methods from allowedMethods', async (t) => {
  const cors = createCors({ allowedMethods: ['GET', 'POST'] });
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  t.equal((await server.send('OPTIONS', '/any')).headers.allow, 'GET, HEAD, POST, OPTIONS');
  t.equal(
    (await server.send('OPTIONS', '/any', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'POST' })).headers['access-control-allow-methods'],
    'GET, POST',
  );
});

t.test('allowedMethods replaces the path methods in the preflight, not in Allow', async (t) => {
  const cors = createCors({ allowedMethods: ['GET', 'PUT'] }).route('GET', '/a');
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  const preflight = await server.send('OPTIONS', '/a', { Origin: 'https://x.test', 'Access-Control-Request-Method': 'PUT' });
  t.equal(preflight.headers['access-control-allow-methods'], 'GET, PUT');
  const options = await server.send('OPTIONS', '/a');
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS');
});

t.test('route options merge field by field over the middleware options', async (t) => {
  const cors = createCors({ origin: ['https://a.test', 'https://b.test'], maxAge: 60 })
    .route('GET', '/plain')
    .route(['GET', 'POST'], '/special', { exposedHeaders: ['X-Total'], allowedHeaders: ['X-Api-Key'] })
    .route('PUT', '/special', { exposedHeaders: ['X-Total'], allowedHeaders: ['X-Api-Key'] })
    .route('GET', '/closed', { origin: false });
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  const preflight = { Origin: 'https://a.test', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'x-foo' };
  t.same(corsHeadersOf(await server.send('OPTIONS', '/special', preflight)), {
    'access-control-allow-origin': 'https://a.test',
    'access-control-allow-methods': 'GET, HEAD, POST, PUT, OPTIONS',
    'access-control-allow-headers': 'X-Api-Key',
    'access-control-max-age': '60',
    vary: 'Origin',
  });
  t.same(corsHeadersOf(await server.send('OPTIONS', '/plain', preflight)), {
    'access-control-allow-origin': 'https://a.test',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    'access-control-allow-headers': 'x-foo',
    'access-control-max-age': '60',
    vary: 'Origin, Access-Control-Request-Headers',
  });
  t.same(corsHeadersOf(await server.send('GET', '/closed', { Origin: 'https://a.test' })), {});
  t.equal((await server.send('GET', '/special', { Origin: 'https://b.test' })).headers['access-control-expose-headers'], 'X-Total');
});

t.test('one method of one path with two different policies is refused, naming both declarations (rule E)', async (t) => {
  const cors = createCors().route('GET', '/items', { maxAge: 10 });
  t.doesNotThrow(() => cors.route('POST', '/items', { maxAge: 20 }), 'another method may have a policy of its own');
  t.throws(
    () => cors.route(['DELETE', 'GET'], '/items', { maxAge: 20 }),
    new RouteRegistrationError(
      'CORS_ROUTE_CONFLICT',
      'route DELETE,GET /items',
      '/items',
      'gives GET other CORS options than route GET /items gave it',
      'declare GET /items once, with the options you mean; other methods of /items may have options of their own',
    ),
  );
  t.doesNotThrow(() => cors.route(['PUT', 'GET'], '/items', { maxAge: 10 }), 'equal options are no conflict');
  t.doesNotThrow(() => cors.route('PATCH', '/items', { maxAge: 20 }), "and equal to another method's: that policy");
});

t.test('what the tree cannot hold is refused at route()', async (t) => {
  const cors = createCors().route('GET', '/users/:id');
  t.throws(() => cors.route('POST', '/files/*/raw'), {
    name: 'RouteRegistrationError',
    message: /^route POST \/files\/\*\/raw: \/files\/\*\/raw is refused by the route tree \(Wildcard must be the last character in the route\)/,
  });
  t.throws(() => cors.route('GET', 'users'), RouteRegistrationError);
  t.throws(() => cors.route('GET BAD', '/x'), { message: /\/x is given "GET BAD", which is not an HTTP method/ });
});

t.test('routes cannot be added once requests are served', async (t) => {
  const cors = createCors().route('GET', '/');
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  await server.send('GET', '/');
  // A RouteRegistrationError like every other registration failure, with its code.
  t.throws(
    () => cors.route('GET', '/late'),
    new RouteRegistrationError(
      'CORS_ROUTES_SEALED',
      'route GET /late',
      '/late',
      'comes after the first request (or the framework becoming ready) sealed the route table',
      'register every route before the server starts serving',
    ),
  );
  t.throws(() => cors.mirror(Router()), {
    name: 'RouteRegistrationError',
    code: 'CORS_ROUTES_SEALED',
    message: /^createCors\(\)\.mirror\(\): the router comes after the first request/,
  });
});

t.test('mirror() covers a find-my-way router with its path matching', async (t) => {
  const router = Router({ ignoreTrailingSlash: true });
  router.on('GET', '/users', (_req, res) => res.end('users'));
  router.on(['GET', 'DELETE'], '/users/:id', (_req, res) => res.end('user'));
  router.on('OPTIONS', '/own', (_req, res) => res.end('own options'));
  const cors = createCors({ origin: 'https://a.test' }).mirror(router);
  const server = await serve((req, res) => cors.handle(req, res, () => router.lookup(req, res)));
  t.teardown(server.close);
  t.equal((await server.send('OPTIONS', '/users/')).headers.allow, 'GET, HEAD, OPTIONS');
  t.equal((await server.send('OPTIONS', '/users/9')).headers.allow, 'GET, HEAD, DELETE, OPTIONS');
  const actual = await server.send('DELETE', '/users/9', { Origin: 'https://a.test' });
  t.equal(actual.body, 'user');
  t.equal(actual.headers['access-control-allow-origin'], 'https://a.test');
  // The application's own OPTIONS route answers plain OPTIONS; preflights are still ours.
  const own = await server.send('OPTIONS', '/own', { Origin: 'https://a.test' });
  t.equal(own.body, 'own options');
  t.equal(own.headers['access-control-allow-origin'], 'https://a.test');
  t.equal((await server.send('OPTIONS', '/own', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'OPTIONS' })).status, 204);
  t.throws(() => createCors().mirror({} as never), {
    name: 'RouteRegistrationError',
    message: /^createCors\(\)\.mirror\(\): \{ {2}\} is not a find-my-way router/,
  });
});

t.test('mirror() refuses what it cannot mirror faithfully', async (t) => {
  const router = Router({ caseSensitive: false });
  t.throws(() => createCors().mirror(router), { message: /has no routes yet\. Fix: call mirror\(\) after the application has registered its routes/ });
  router.on('GET', '/a', () => {});
  t.throws(() => createCors().route('GET', '/b').mirror(router), {
    message: /caseSensitive: false.* differs from the .*caseSensitive: true.* the routes already registered use/,
  });
  const plain = Router();
  plain.on('GET', '/a', () => {});
  t.doesNotThrow(() => createCors().route('GET', '/b').mirror(plain), "a router with find-my-way's defaults matches paths as route() does");
});

t.test('one route under two spellings of its path is one covered path', async (t) => {
  const router = Router({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
  router.on('GET', '/u/:id', (_req, res) => res.end('get'));
  router.on('DELETE', '/u/:userId', (_req, res) => res.end('delete'));
  const cors = createCors().mirror(router).route('PUT', '/u//:key/');
  const server = await serve((req, res) => cors.handle(req, res, () => router.lookup(req, res)));
  t.teardown(server.close);
  t.equal((await server.send('OPTIONS', '/u/1')).headers.allow, 'GET, HEAD, DELETE, PUT, OPTIONS');
});

t.test('preflightContinue hands the preflight on with its headers set', async (t) => {
  const cors = createCors({ origin: 'https://a.test', preflightContinue: true }).route('GET', '/');
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  const answer = await server.send('OPTIONS', '/', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'GET' });
  t.equal(answer.body, 'app saw OPTIONS /');
  t.equal(answer.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');
});

t.test('optionsSuccessStatus sets the status of answered preflights only', async (t) => {
  const cors = createCors({ optionsSuccessStatus: 200 }).route('GET', '/');
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  const preflight = await server.send('OPTIONS', '/', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'GET' });
  t.equal(preflight.status, 200);
  t.equal(preflight.headers['content-length'], '0');
  t.equal((await server.send('OPTIONS', '/')).status, 204);
});

t.test('private network access is granted only when allowed and asked for', async (t) => {
  const ask = { Origin: 'https://a.test', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Private-Network': 'true' };
  const open = createCors({ origin: 'https://a.test', allowPrivateNetwork: true, allowedHeaders: ['X-A'] }).route('GET', '/');
  const closed = createCors().route('GET', '/');
  const server = await serve((req, res) => (req.headers.host?.startsWith('localhost') ? closed : open).handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  const granted = await server.send('OPTIONS', '/', ask);
  t.equal(granted.headers['access-control-allow-private-network'], 'true');
  t.equal(granted.headers.vary, 'Access-Control-Request-Private-Network');
  const notAsked = await server.send('OPTIONS', '/', { ...ask, 'Access-Control-Request-Private-Network': 'false' });
  t.notOk('access-control-allow-private-network' in notAsked.headers);
  const refused = await server.send('OPTIONS', '/', { ...ask, Host: 'localhost' });
  t.notOk('access-control-allow-private-network' in refused.headers);
});

t.test('a failing origin function denies, logs every fault, and never answers 500', async (t) => {
  const faulty: Record<string, { origin: CorsOptions['origin']; line: RegExp }> = {
    '/throws': {
      origin: () => {
        throw new Error('db down');
      },
      line: /origin function \[function origin\] threw Error: db down; the request was denied\.$/,
    },
    '/rejects': { origin: async () => Promise.reject(new Error('timeout')), line: /rejected with Error: timeout; the request was denied\.$/ },
    '/vague': { origin: (() => 'yes') as never, line: /returned "yes", not a boolean; the request was denied\.$/ },
    '/vague-async': { origin: (async () => 1) as never, line: /resolved to 1, not a boolean; the request was denied\.$/ },
  };
  const byPath = new Map(
    Object.entries(faulty).map(([path, { origin }]) => {
      const log = captureLogger();
      return [path, { cors: createCors({ origin }, { logger: log.logger }).route('GET', path), errors: log.errors }];
    }),
  );
  const server = await serve((req, res) => byPath.get(req.url ?? '')!.cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  for (const [path, { errors }] of byPath) {
    for (let i = 0; i < 2; i++) {
      const actual = await server.send('GET', path, { Origin: 'https://a.test' });
      t.equal(actual.status, 200, `${path} reaches the handler`);
      t.notOk('access-control-allow-origin' in actual.headers, `${path} is denied`);
      const preflight = await server.send('OPTIONS', path, { Origin: 'https://a.test', 'Access-Control-Request-Method': 'GET' });
      t.equal(preflight.status, 204);
      t.same(corsHeadersOf(preflight), { vary: 'Origin, Access-Control-Request-Headers' });
    }
    // Four faults, four lines (under the bound of five a second): a later fault is never hidden by the first.
    t.equal(errors.length, 4, `${path}: one line per fault`);
    for (const line of errors) t.match(line, faulty[path]!.line);
  }
});

t.test("after an async origin function, the application's own errors are not swallowed", async (t) => {
  const cors = createCors({ origin: async () => true }).route('GET', '/');
  const failure = new Error('handler bug');
  const surfaced = new Promise((resolve) => process.once('unhandledRejection', resolve));
  const server = await serve((req, res) =>
    cors.handle(req, res, () => {
      res.end('sent before the bug');
      throw failure;
    }),
  );
  t.teardown(server.close);
  t.equal((await server.send('GET', '/', { Origin: 'https://a.test' })).body, 'sent before the bug');
  t.equal(await surfaced, failure);
});

t.test('the origin function sees the request and only well-formed origins', async (t) => {
  const seen: string[] = [];
  const cors = createCors({
    origin: (origin, req) => {
      seen.push(`${origin} ${req.url}`);
      return true;
    },
  }).route('GET', '/');
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  await server.send('GET', '/', { Origin: 'https://a.test' });
  await server.send('GET', '/', { Origin: 'null' });
  await server.send('GET', '/', { Origin: 'HTTPS://A.TEST' });
  t.same(seen, ['https://a.test /']);
});

t.test('past a thousand paths the tree is walked uncompiled, and answers the same', async (t) => {
  const cors = createCors({ origin: ['https://a.test', 'https://b.test'] });
  for (let i = 0; i < 1500; i++) cors.route(['GET', 'PUT'], `/scale${i}/items/:id`);
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  const preflight = await server.send('OPTIONS', '/scale1499/items/7', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'PUT' });
  t.same(corsHeadersOf(preflight), {
    vary: 'Origin, Access-Control-Request-Headers',
    'access-control-allow-origin': 'https://a.test',
    'access-control-allow-methods': 'GET, HEAD, PUT, OPTIONS',
  });
  t.equal(
    (await server.send('GET', '/scale1500/items/7', { Origin: 'https://a.test' })).body,
    'app saw GET /scale1500/items/7',
    'an unknown path goes on untouched',
  );
});
