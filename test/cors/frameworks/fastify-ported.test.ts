/**
 * Test cases of @fastify/cors 11, rewritten for `@lib/cors/fastify` with our option names.
 *
 * Where the cases come from: github.com/fastify/fastify-cors, test/cors.test.js,
 * test/preflight.test.js, test/hooks.test.js and test/vary.test.js (commit 2a47537, July 2026).
 * Each test below names the case it comes from in its title ("from: ..."). The cases are written
 * in our own words and adapted: `credentials` -> `allowCredentials`, `methods` -> `allowedMethods`,
 * comma strings -> arrays, origins written as browsers send them ('https://example.com', never
 * 'example.com'), routes declared for the paths a case sends to, `await app.register(...)`.
 *
 * Deliberate differences from @fastify/cors (each with its reason; docs/CONTRACT.md has the rules):
 *  1. Only routes are covered. The plugin mirrors the routes fastify declares after it (onRoute), so
 *     register it with `await` before the routes. An unknown path keeps fastify's own 404, OPTIONS
 *     and preflights included, and gets no CORS header; @fastify/cors answers a preflight to any path
 *     (OPTIONS /hello, /doesnotexist, /prefixfoo) and adds its headers to 404s. Reason: a 204 for a
 *     path that does not exist tells a browser it may send a request that can only fail.
 *  2. Preflights are answered per route: a route's `config.cors` (merged field by field over the
 *     plugin's options) decides its preflights too, and Access-Control-Allow-Methods defaults to the
 *     path's own methods ('GET, HEAD, OPTIONS'), not a fixed 'GET,HEAD,POST'. @fastify/cors answers
 *     every preflight from its OPTIONS * route with the plugin's options (its issues #389, #332).
 *  3. OPTIONS without Access-Control-Request-Method, or without Origin, is not a preflight: it gets
 *     204 with `Allow` and the actual-response headers. @fastify/cors answers it 400 "Invalid
 *     Preflight Request" (`strictPreflight`, which has no equivalent here). Reason: Fetch never sends
 *     a preflight without both headers; such a request is a plain OPTIONS (RFC 9110).
 *  4. A 204 never carries Content-Length (RFC 9110 8.6); @fastify/cors sends `Content-Length: 0`.
 *     A preflight answered with another status (optionsSuccessStatus: 200) says `Content-Length: 0`
 *     in both.
 *  5. `origin: false` leaves the path covered: its OPTIONS gets 204 with `Allow` and no grant.
 *     @fastify/cors answers 404. `config.cors: false` gives fastify's 404 here.
 *  6. Bad options fail registration (CorsOptionsError) instead of failing requests or passing
 *     silently: `origin: ''` (a 500 per request there), '*' inside a list (read as '*' there), a
 *     RegExp with the g flag, strings that are no origin ('example.com'), `credentials` and
 *     `methods` (the error names allowCredentials and allowedMethods), comma strings, and
 *     `origin: '*'` with credentials (@fastify/cors sends `*` with `Allow-Credentials: true`, which
 *     browsers reject; echoing every origin instead would let any site act as the user).
 *  7. An origin function is `(origin, req) => boolean | Promise<boolean>`: no callback, no `this`.
 *     One that throws, rejects or answers a non-boolean denies the origin (no grant, the handler
 *     still runs, the first fault is logged); @fastify/cors answers 500.
 *  8. A malformed Origin ('https://www.example.com/', with a path) is never echoed: only serialized
 *     origins are matched, so the RegExp case is adapted.
 *  9. No options delegator (a function instead of options): options are compiled once per route at
 *     start-up. Use `config.cors` per route, or an origin function.
 * 10. No `hook` option: the engine always runs in onRequest, before the body is read and before the
 *     hooks registered after the plugin (authentication), which a preflight must not meet.
 * 11. No `preflight: false`, `hideOptionsRoute` (the OPTIONS * route is always hidden) or
 *     `cacheControl` (Access-Control-Max-Age is the preflight cache). `logLevel` is honoured for the
 *     OPTIONS * route, as there.
 * 12. With `preflightContinue`, the preflight headers are set (Access-Control-Allow-Methods too) and
 *     the application's OPTIONS route answers; a path without one gets fastify's 404, where
 *     @fastify/cors sends an empty 200 from its * route.
 * 13. Vary, the same as @fastify/cors: the engine adds `Origin` to a Vary already set, and a
 *     handler's `reply.header('Vary', ...)` replaces the whole (docs/CONTRACT.md, "Vary"; the
 *     plugin adds no onSend hook). Their vary.js cases are ported with the Vary set before the plugin.
 * 14. A policy per path and method (docs/CONTRACT.md, rule E): two routes of one path may have
 *     different `config.cors`; a preflight is decided by the policy of the method it asks for and
 *     lists only the methods of that policy. @fastify/cors has one policy for every preflight.
 *
 * Not ported: the delegator cases (dynamic config by callback and by Promise, and the invalid
 * delegator, in cors.test.js, preflight.test.js and hooks.test.js: no delegator, difference 9);
 * every `hook` option case of hooks.test.js (difference 10; they assert fastify internals through
 * its kRouteContext symbol); 'show options route' and 'Disable preflight' (difference 11);
 * `this` being the fastify instance in an origin function (difference 7); the unit tests of
 * @fastify/cors's own vary.js and its parse() (our Vary merging is the `vary` package's; their
 * observable cases are ported below as handlers setting Vary).
 */
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

import Fastify, { type FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';

import fastifyCors, { type FastifyCorsOptions } from '@lib/cors/fastify';

import { captureLogger } from '../../helpers/http.js';

const EXAMPLE = 'https://example.com';
const PREFLIGHT = { 'access-control-request-method': 'GET', origin: EXAMPLE };

/** A fastify app with the plugin registered first and `routes` declared after it. */
async function appWith(t: Test, options: FastifyCorsOptions | undefined, routes: (app: FastifyInstance) => void = sayOk): Promise<FastifyInstance> {
  const app = Fastify();
  t.teardown(() => app.close());
  await app.register(fastifyCors, options ?? {});
  routes(app);
  return app;
}

const sayOk = (app: FastifyInstance) => void app.get('/', (_request, reply) => void reply.send('ok'));

function pick(headers: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, headers[name]]));
}

// ---------------------------------------------------------------- cors.test.js

t.test("from 'Should add cors headers'", async (t) => {
  const app = await appWith(t, undefined);
  const res = await app.inject({ method: 'GET', url: '/' });
  t.equal(res.statusCode, 200);
  t.equal(res.payload, 'ok');
  t.equal(res.headers['access-control-allow-origin'], '*');
});

t.test("from 'Should add cors headers when payload is a stream'", async (t) => {
  const file = fileURLToPath(import.meta.url);
  const app = await appWith(t, undefined, (app) =>
    app.get('/', (_request, reply) => void reply.type('application/json').header('Content-Length', statSync(file).size).send(createReadStream(file))),
  );
  const res = await app.inject({ method: 'GET', url: '/' });
  t.equal(res.statusCode, 200);
  t.equal(res.payload, readFileSync(file, 'utf8'));
  t.same(pick(res.headers, ['access-control-allow-origin', 'content-length']), {
    'access-control-allow-origin': '*',
    'content-length': String(statSync(file).size),
  });
});

t.test("from 'Should add cors headers (custom values)' (no cacheControl: difference 11; no Content-Length in a 204: difference 4)", async (t) => {
  const app = await appWith(t, {
    origin: EXAMPLE,
    allowedMethods: ['GET'],
    allowCredentials: true,
    exposedHeaders: ['foo', 'bar'],
    allowedHeaders: ['baz', 'woo'],
    maxAge: 123,
  });
  let res = await app.inject({ method: 'OPTIONS', url: '/', headers: PREFLIGHT });
  t.equal(res.statusCode, 204);
  t.equal(res.payload, '');
  t.same(
    pick(res.headers, [
      'access-control-allow-origin',
      'access-control-allow-credentials',
      'access-control-allow-methods',
      'access-control-allow-headers',
      'access-control-max-age',
      'content-length',
      'vary',
    ]),
    {
      'access-control-allow-origin': EXAMPLE,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET',
      'access-control-allow-headers': 'baz, woo',
      'access-control-max-age': '123',
      'content-length': undefined,
      vary: undefined,
    },
  );

  res = await app.inject({ method: 'GET', url: '/' });
  t.equal(res.statusCode, 200);
  t.equal(res.payload, 'ok');
  t.same(pick(res.headers, ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-expose-headers', 'content-length', 'vary']), {
    'access-control-allow-origin': EXAMPLE,
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': 'foo, bar',
    'content-length': '2',
    vary: undefined,
  });
});

for (const [kind, origin] of [
  ['valid origin', (header: string) => header === EXAMPLE],
  ['valid origin - promises', async (header: string) => header === EXAMPLE],
] as const) {
  t.test(`from 'Dynamic origin resolution (${kind})' (a boolean, not a callback: difference 7)`, async (t) => {
    const seen: string[] = [];
    const app = await appWith(t, {
      origin: (header) => {
        seen.push(header);
        return origin(header);
      },
    });
    const res = await app.inject({ method: 'GET', url: '/', headers: { origin: EXAMPLE } });
    t.equal(res.statusCode, 200);
    t.equal(res.payload, 'ok');
    t.same(pick(res.headers, ['access-control-allow-origin', 'vary']), { 'access-control-allow-origin': EXAMPLE, vary: 'Origin' });
    t.same(seen, [EXAMPLE]);
  });
}

for (const [kind, origin] of [
  ['not valid origin', () => false],
  ['not valid origin - promises', async () => false],
] as const) {
  t.test(`from 'Dynamic origin resolution (${kind})'`, async (t) => {
    const app = await appWith(t, { origin });
    const res = await app.inject({ method: 'GET', url: '/', headers: { origin: EXAMPLE } });
    t.equal(res.statusCode, 200);
    t.equal(res.payload, 'ok');
    t.same(pick(res.headers, ['access-control-allow-origin', 'content-length', 'content-type', 'vary']), {
      'access-control-allow-origin': undefined,
      'content-length': '2',
      'content-type': 'text/plain; charset=utf-8',
      vary: 'Origin',
    });
  });
}

for (const [kind, origin] of [
  [
    'errored',
    () => {
      throw new Error('ouch');
    },
  ],
  ['errored - promises', () => Promise.reject(new Error('ouch'))],
  ['invalid result', () => undefined as unknown as boolean],
] as const) {
  t.test(`from 'Dynamic origin resolution (${kind})': denied and logged, not a 500 (difference 7)`, async (t) => {
    const { logger, errors } = captureLogger();
    const app = await appWith(t, { origin, logger });
    for (let i = 0; i < 2; i++) {
      const res = await app.inject({ method: 'GET', url: '/', headers: { origin: EXAMPLE } });
      t.equal(res.statusCode, 200, 'the handler still answers');
      t.equal(res.headers['access-control-allow-origin'], undefined, 'no grant');
      t.equal(res.headers.vary, 'Origin');
    }
    t.equal(errors.length, 2, 'each fault is logged');
  });
}

t.test("from 'Should reply 404 without cors headers when origin is false': the path stays covered, without any grant (difference 5)", async (t) => {
  const app = await appWith(t, {
    origin: false,
    allowedMethods: ['GET'],
    exposedHeaders: ['foo', 'bar'],
    allowedHeaders: ['baz', 'woo'],
    maxAge: 123,
  });
  let res = await app.inject({ method: 'OPTIONS', url: '/' });
  t.equal(res.statusCode, 204);
  t.equal(res.payload, '');
  t.same(
    Object.keys(res.headers).filter((name) => name.startsWith('access-control-') || name === 'vary'),
    [],
    'no CORS header',
  );
  t.equal(res.headers.allow, 'GET, HEAD, OPTIONS');

  res = await app.inject({ method: 'GET', url: '/', headers: { origin: EXAMPLE } });
  t.equal(res.statusCode, 200);
  t.equal(res.payload, 'ok');
  t.same(Object.keys(res.headers).sort(), ['connection', 'content-length', 'content-type', 'date'], 'nothing but what fastify sends');

  const out = await appWith(t, undefined, (app) => app.get('/', { config: { cors: false } }, async () => 'ok'));
  res = await out.inject({ method: 'OPTIONS', url: '/' });
  t.equal(res.statusCode, 404, "config.cors: false is @fastify/cors's 404");
  t.equal(res.payload, '{"message":"Route OPTIONS:/ not found","error":"Not Found","statusCode":404}');
});

t.test("from 'Server error if origin option is falsy but not false': refused at registration (difference 6)", async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  await t.rejects(
    async () => {
      await app.register(fastifyCors, { origin: '' });
    },
    { name: 'CorsOptionsError', message: /origin = ""/ },
  );
});

t.test("from 'Allow only request from a specific origin'", async (t) => {
  const app = await appWith(t, { origin: 'https://other.io' });
  const res = await app.inject({ method: 'GET', url: '/', headers: { origin: EXAMPLE } });
  t.equal(res.statusCode, 200);
  t.equal(res.payload, 'ok');
  t.equal(res.headers['access-control-allow-origin'], 'https://other.io', 'the fixed origin, for everyone: the browser compares it');
  t.equal(res.headers.vary, undefined);
});

t.test("from 'Allow only request from multiple specific origin'", async (t) => {
  const app = await appWith(t, { origin: ['https://other.io', EXAMPLE] });
  let res = await app.inject({ method: 'GET', url: '/', headers: { origin: 'https://other.io' } });
  t.equal(res.statusCode, 200);
  t.equal(res.payload, 'ok');
  t.same(pick(res.headers, ['access-control-allow-origin', 'vary']), { 'access-control-allow-origin': 'https://other.io', vary: 'Origin' });
  res = await app.inject({ method: 'GET', url: '/', headers: { origin: 'https://foo.com' } });
  t.equal(res.statusCode, 200);
  t.equal(res.payload, 'ok');
  t.same(pick(res.headers, ['access-control-allow-origin', 'vary']), { 'access-control-allow-origin': undefined, vary: 'Origin' });
});

t.test("from 'Allow only request from a specific origin using regex' (anchored, no g flag: differences 6 and 8)", async (t) => {
  const app = await appWith(t, { origin: /^https:\/\/(?:www\.)?(?:example|other)\.com$/iu });
  // Twice, as there: the answer must not change between two requests.
  for (let i = 0; i < 2; i++) {
    const res = await app.inject({ method: 'GET', url: '/', headers: { origin: 'https://www.example.com' } });
    t.equal(res.statusCode, 200);
    t.equal(res.payload, 'ok');
    t.same(pick(res.headers, ['access-control-allow-origin', 'vary']), { 'access-control-allow-origin': 'https://www.example.com', vary: 'Origin' });
  }
  const withPath = await app.inject({ method: 'GET', url: '/', headers: { origin: 'https://www.example.com/' } });
  t.equal(withPath.headers['access-control-allow-origin'], undefined, 'a path is no part of an origin: never echoed');

  const global = Fastify();
  t.teardown(() => global.close());
  await t.rejects(
    async () => {
      await global.register(fastifyCors, { origin: /(?:example|other)\.com\/?$/giu });
    },
    { name: 'CorsOptionsError' },
    'the g flag is refused',
  );
});

t.test("from 'Should always add vary header to `Origin` for reflected origin' (plain OPTIONS is 204, not 400: difference 3)", async (t) => {
  const app = await appWith(t, { origin: true });
  let res = await app.inject({ method: 'OPTIONS', url: '/' });
  t.equal(res.statusCode, 204);
  t.equal(res.payload, '');
  t.equal(res.headers.vary, 'Origin');
  t.equal(res.headers.allow, 'GET, HEAD, OPTIONS');

  res = await app.inject({ method: 'OPTIONS', url: '/', headers: PREFLIGHT });
  t.equal(res.statusCode, 204);
  t.equal(res.payload, '');
  t.equal(res.headers.vary, 'Origin, Access-Control-Request-Headers');

  res = await app.inject({ method: 'GET', url: '/' });
  t.equal(res.statusCode, 200);
  t.equal(res.payload, 'ok');
  t.equal(res.headers.vary, 'Origin');
});

t.test("from 'Should always add vary header to `Origin` for reflected origin (vary is array)': a handler's Vary list is its own (difference 13)", async (t) => {
  const app = await appWith(t, { origin: true }, (app) => app.get('/', (_request, reply) => void reply.header('Vary', ['foo', 'bar']).send('ok')));
  const res = await app.inject({ method: 'GET', url: '/' });
  t.equal(res.statusCode, 200);
  t.equal(res.payload, 'ok');
  t.same(res.headers.vary, ['foo', 'bar']);
});

t.test("from 'Allow only request from with specific headers' (arrays, not strings)", async (t) => {
  const app = await appWith(t, { allowedHeaders: ['foo'], exposedHeaders: ['bar'] });
  let res = await app.inject({ method: 'OPTIONS', url: '/', headers: PREFLIGHT });
  t.equal(res.statusCode, 204);
  t.equal(res.headers['access-control-allow-headers'], 'foo');
  t.equal(res.headers.vary, undefined, 'nothing reflected, nothing to vary on');
  res = await app.inject({ method: 'GET', url: '/' });
  t.equal(res.statusCode, 200);
  t.equal(res.payload, 'ok');
  t.equal(res.headers['access-control-expose-headers'], 'bar');

  const strings = Fastify();
  t.teardown(() => strings.close());
  await t.rejects(
    async () => {
      await strings.register(fastifyCors, { allowedHeaders: 'foo' } as never);
    },
    { name: 'CorsOptionsError', message: /allowedHeaders/ },
  );
});

t.test("from 'Should support wildcard config /1'", async (t) => {
  const app = await appWith(t, { origin: '*' });
  const res = await app.inject({ method: 'GET', url: '/' });
  t.equal(res.statusCode, 200);
  t.equal(res.payload, 'ok');
  t.equal(res.headers['access-control-allow-origin'], '*');
});

t.test("from 'Should support wildcard config /2': '*' inside a list is refused (difference 6)", async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  await t.rejects(
    async () => {
      await app.register(fastifyCors, { origin: ['*'] });
    },
    { name: 'CorsOptionsError', message: /origin\[0\]/ },
  );
});

t.test("from 'Should allow routes to disable CORS individually'", async (t) => {
  const app = await appWith(t, { origin: '*' }, (app) => {
    app.get('/cors-enabled', (_request, reply) => void reply.send('ok'));
    app.get('/cors-disabled', { config: { cors: false } }, (_request, reply) => void reply.send('ok'));
  });
  let res = await app.inject({ method: 'GET', url: '/cors-enabled', headers: { origin: EXAMPLE } });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['access-control-allow-origin'], '*');
  res = await app.inject({ method: 'GET', url: '/cors-disabled', headers: { origin: EXAMPLE } });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['access-control-allow-origin'], undefined);
});

t.test("from 'Should support route-level config', with the preflights @fastify/cors cannot answer per route (difference 2)", async (t) => {
  const app = await appWith(t, { origin: 'https://default-example.com' }, (app) => {
    app.get('/cors-enabled', (_request, reply) => void reply.send('CORS headers applied'));
    app.get('/cors-allow-all', { config: { cors: { origin: '*' } } }, (_request, reply) => void reply.send('Custom CORS headers applied'));
    app.get('/cors-disabled', { config: { cors: false } }, (_request, reply) => void reply.send('No CORS headers'));
  });
  const cases = [
    ['/cors-enabled', 'https://default-example.com', 'https://default-example.com'],
    ['/cors-allow-all', EXAMPLE, '*'],
    ['/cors-disabled', EXAMPLE, undefined],
  ] as const;
  for (const [url, origin, granted] of cases) {
    const res = await app.inject({ method: 'GET', url, headers: { origin } });
    t.equal(res.statusCode, 200, url);
    t.equal(res.headers['access-control-allow-origin'], granted, url);
    const preflight = await app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'GET' } });
    t.equal(preflight.statusCode, granted === undefined ? 404 : 204, `${url} preflight`);
    t.equal(preflight.headers['access-control-allow-origin'], granted, `${url} preflight`);
  }
});

// ---------------------------------------------------------- preflight.test.js

for (const [name, extra, allowHeaders] of [
  ['Should reply to preflight requests', {}, undefined],
  [
    'Should add access-control-allow-headers to response if preflight req has access-control-request-headers',
    { 'access-control-request-headers': 'x-requested-with' },
    'x-requested-with',
  ],
] as const) {
  t.test(`from '${name}' (a route is declared: difference 1; its own methods: difference 2)`, async (t) => {
    const app = await appWith(t, undefined);
    const res = await app.inject({ method: 'OPTIONS', url: '/', headers: { ...PREFLIGHT, ...extra } });
    t.equal(res.statusCode, 204);
    t.equal(res.payload, '');
    t.same(pick(res.headers, ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'vary', 'content-length']), {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD, OPTIONS',
      'access-control-allow-headers': allowHeaders,
      vary: 'Access-Control-Request-Headers',
      'content-length': undefined,
    });
  });
}

t.test("from 'Should reply to preflight requests with custom status code'", async (t) => {
  const app = await appWith(t, { optionsSuccessStatus: 200 });
  const res = await app.inject({ method: 'OPTIONS', url: '/', headers: PREFLIGHT });
  t.equal(res.statusCode, 200);
  t.equal(res.payload, '');
  t.same(pick(res.headers, ['access-control-allow-origin', 'access-control-allow-methods', 'vary', 'content-length']), {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    vary: 'Access-Control-Request-Headers',
    'content-length': '0',
  });
});

t.test("from 'Should be able to override preflight response with a route' and 'Can override preflight response with preflightContinue'", async (t) => {
  const app = await appWith(t, { preflightContinue: true }, (app) => {
    app.get('/', async () => 'get');
    app.options('/', (_request, reply) => void reply.send('ok'));
  });
  const res = await app.inject({ method: 'OPTIONS', url: '/', headers: PREFLIGHT });
  t.equal(res.statusCode, 200);
  t.equal(res.payload, 'ok');
  t.same(pick(res.headers, ['access-control-allow-origin', 'access-control-allow-methods', 'vary']), {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    vary: 'Access-Control-Request-Headers',
  });
});

t.test(
  "from 'Should reply to all options requests' and 'Default empty 200 response with preflightContinue on OPTIONS routes': an unknown path is fastify's 404 (differences 1 and 12)",
  async (t) => {
    for (const options of [undefined, { preflightContinue: true }]) {
      const app = await appWith(t, options);
      for (const url of ['/hello', '/doesnotexist']) {
        const res = await app.inject({ method: 'OPTIONS', url, headers: PREFLIGHT });
        t.equal(res.statusCode, 404, `${url} ${JSON.stringify(options)}`);
        t.equal(res.headers['access-control-allow-origin'], undefined);
      }
    }
  },
);

t.test("from 'Should support a prefix for preflight requests'", async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  await app.register(
    async (instance) => {
      await instance.register(fastifyCors);
      instance.get('/hello', async () => 'hello');
    },
    { prefix: '/subsystem' },
  );
  let res = await app.inject({ method: 'OPTIONS', url: '/hello' });
  t.equal(res.statusCode, 404);
  res = await app.inject({ method: 'OPTIONS', url: '/subsystem/hello', headers: PREFLIGHT });
  t.equal(res.statusCode, 204);
  t.equal(res.payload, '');
  t.same(pick(res.headers, ['access-control-allow-origin', 'access-control-allow-methods', 'vary', 'content-length']), {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    vary: 'Access-Control-Request-Headers',
    'content-length': undefined,
  });
});

t.test("from 'hide options route by default'", async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  const hidden: unknown[] = [];
  app.addHook('onRoute', (route) => {
    if (route.method === 'OPTIONS' && route.url === '*') hidden.push((route.schema as { hide?: unknown } | undefined)?.hide);
  });
  await app.register(fastifyCors);
  await app.ready();
  t.same(hidden, [true]);
});

t.test("from 'Allow only request from with specific methods'", async (t) => {
  const app = await appWith(t, { allowedMethods: ['GET', 'POST'] });
  const res = await app.inject({ method: 'OPTIONS', url: '/', headers: PREFLIGHT });
  t.equal(res.statusCode, 204);
  t.equal(res.headers['access-control-allow-methods'], 'GET, POST');
  t.equal(res.headers.vary, 'Access-Control-Request-Headers', 'no Vary: Origin under *');

  const comma = Fastify();
  t.teardown(() => comma.close());
  await t.rejects(
    async () => {
      await comma.register(fastifyCors, { methods: 'GET,POST' } as never);
    },
    { name: 'CorsOptionsError', message: /allowedMethods: \['GET', 'POST'\]/ },
    "@fastify/cors's name and comma string get the array to write",
  );
});

t.test(
  'from the strictPreflight cases: OPTIONS without Origin or without Access-Control-Request-Method is a plain OPTIONS, 204 with Allow (difference 3)',
  async (t) => {
    const app = await appWith(t, undefined);
    for (const headers of [{ 'access-control-request-method': 'GET' }, { origin: EXAMPLE }, {}]) {
      const res = await app.inject({ method: 'OPTIONS', url: '/', headers });
      t.equal(res.statusCode, 204, JSON.stringify(headers));
      t.equal(res.payload, '');
      t.same(pick(res.headers, ['allow', 'access-control-allow-origin', 'access-control-allow-methods', 'content-length']), {
        allow: 'GET, HEAD, OPTIONS',
        'access-control-allow-origin': '*',
        'access-control-allow-methods': undefined,
        'content-length': undefined,
      });
    }
    const strict = Fastify();
    t.teardown(() => strict.close());
    await t.rejects(
      async () => {
        await strict.register(fastifyCors, { strictPreflight: false } as never);
      },
      { name: 'CorsOptionsError', message: /strictPreflight/ },
      'strictPreflight has no equivalent',
    );
  },
);

t.test("from 'Should support ongoing prefix ' (declared routes only: /prefixfoo is a 404, difference 1)", async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  await app.register(
    async (instance) => {
      await instance.register(fastifyCors);
      instance.get('/', async () => 'root');
      instance.get('/foo', async () => 'foo');
    },
    { prefix: '/prefix' },
  );
  for (const url of ['/prefix', '/prefix/', '/prefix/foo']) {
    const res = await app.inject({ method: 'OPTIONS', url, headers: PREFLIGHT });
    t.equal(res.statusCode, 204, url);
    t.equal(res.payload, '');
    t.same(pick(res.headers, ['access-control-allow-origin', 'access-control-allow-methods', 'vary', 'content-length']), {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD, OPTIONS',
      vary: 'Access-Control-Request-Headers',
      'content-length': undefined,
    });
  }
  t.equal((await app.inject({ method: 'OPTIONS', url: '/prefixfoo', headers: PREFLIGHT })).statusCode, 404);
});

t.test('from \'Silences preflight logs when logLevel is "silent"\'', async (t) => {
  const logs: { req?: { method?: string } }[] = [];
  const stream = new Writable({
    write(line, _encoding, done) {
      logs.push(JSON.parse(String(line)) as { req?: { method?: string } });
      done();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream } });
  t.teardown(() => app.close());
  await app.register(fastifyCors, { logLevel: 'silent' } as FastifyCorsOptions);
  app.get('/', async () => ({ ok: true }));
  await app.ready();
  await app.inject({ method: 'OPTIONS', url: '/', headers: PREFLIGHT });
  await app.inject({ method: 'GET', url: '/' });
  t.equal(
    logs.some((line) => line.req?.method === 'OPTIONS'),
    false,
  );
  t.equal(
    logs.some((line) => line.req?.method === 'GET'),
    true,
  );
});

// ------------------------------------------------------------------ vary.test.js
// Their cases drive vary.js directly; here a hook ahead of the plugin sets the Vary they start
// from, and the engine's `Vary: Origin` (origin: true) must be added to it.

t.test("from vary.test.js: the engine's Origin is added to a Vary set before it", async (t) => {
  const cases: [string, string][] = [
    ['*', '*'],
    ['Origin', 'Origin'],
    // Already named (field names are case-insensitive): kept as it was written.
    ['origin', 'origin'],
    ['Access-Control-Request-Headers', 'Access-Control-Request-Headers, Origin'],
    [' Access-Control-Request-Headers ,Access-Control-Request-Method', ' Access-Control-Request-Headers ,Access-Control-Request-Method, Origin'],
    ['Accept,*', '*'],
    ['', 'Origin'],
    ['Accept-Encoding, X-Foo', 'Accept-Encoding, X-Foo, Origin'],
  ];
  const app = Fastify();
  t.teardown(() => app.close());
  app.addHook('onRequest', async (request, reply) => void reply.raw.setHeader('Vary', String(request.headers['x-vary'])));
  await app.register(fastifyCors, { origin: true });
  app.get('/', (_request, reply) => void reply.send('ok'));
  for (const [set, expected] of cases) {
    const res = await app.inject({ method: 'GET', url: '/', headers: { origin: EXAMPLE, 'x-vary': set } });
    t.equal(res.headers.vary, expected, JSON.stringify(set));
  }
});
