/**
 * Test cases of @koa/cors 5, rewritten for `@lib/cors/koa` with our option names, each run over a
 * real socket against a real Koa 3 application with @koa/router.
 *
 * Where the cases come from: github.com/koajs/cors, test/cors.test.js (commit 18a43f0, v5.0.0).
 * Each test names the case it comes from in a comment ("koajs/cors test/cors.test.js: '<describe>
 * <it>'"). The cases are written in our own words and adapted: `credentials` -> `allowCredentials`,
 * `allowMethods` -> `allowedMethods`, `allowHeaders` -> `allowedHeaders`, `exposeHeaders` ->
 * `exposedHeaders`, `privateNetworkAccess` -> `allowPrivateNetwork`, strings -> arrays. Their
 * application is a bare `app.use(ctx => ...)` that answers every path and method; ours declares
 * the routes a case sends to on a @koa/router router, since only routes are covered.
 *
 * Deliberate differences from @koa/cors (each with its reason; docs/CONTRACT.md has the rules):
 *  1. Vary: @koa/cors adds `Vary: Origin` to every response, whatever `origin` is. Under '*' or one
 *     fixed origin the answer is the same for every origin, so there is no `Vary: Origin`; under a
 *     list or a function every response says it, requests without `Origin` included (rule A).
 *  2. A function makes the dynamic kind: it answers a boolean and the grant is the request's own
 *     origin. @koa/cors's function returns the header value itself ('*', or the request's origin).
 *     To send '*' everywhere but one route, give that route `cors.route({ origin: false })`.
 *     A request without `Origin` never reaches the function and gets no grant, where @koa/cors's
 *     function may answer '*' (rule A, dynamic kind).
 *  3. An origin function answers `boolean | Promise<boolean>`; anything else, a promise-like object
 *     that is no Promise included, denies and is logged (section 4). @koa/cors awaits whatever the
 *     function returns.
 *  4. `origin: '*'` with credentials (and credentials under the default '*') is refused at start-up
 *     (CORS_WILDCARD_WITH_CREDENTIALS, section 4). @koa/cors then echoes the request's origin,
 *     whatever it is, with `Access-Control-Allow-Credentials: true`: any site could act as the
 *     user. The origins that may send credentials are listed instead.
 *  5. `allowedMethods` defaults to the path's own methods (`methods(path)`, section 1, joined by
 *     ', ', OPTIONS last), not the fixed 'GET,HEAD,PUT,POST,DELETE,PATCH'. A method the path does
 *     not declare is never granted (rule E).
 *  6. OPTIONS with `Origin` and no `Access-Control-Request-Method` is row 2: 204 with `Allow` and
 *     the actual-response headers, answered without the handler (there is no OPTIONS route).
 *     @koa/cors passes it to the application, which answers 200 with its body.
 *  7. Bad options fail start-up: @koa/cors's names (`credentials`, `allowMethods`, `allowHeaders`,
 *     `exposeHeaders`: CORS_OPTION_OF_ANOTHER_PACKAGE, naming ours), a string where a list is
 *     expected, a `maxAge` that is no whole number ('3600'), `allowMethods: null`. @koa/cors takes
 *     them all.
 *  8. On an error answer @koa/cors appends 'Origin' to the error's own `Vary` ('Accept-Encoding,
 *     Origin'); ours keeps the engine's field first ('Origin, Accept-Encoding'), as on the
 *     actual responses of a dynamic policy, and adds nothing under '*' (difference 1).
 *  9. Their page origin is `http://koajs.com`; here it is `https://koajs.com`, because a plain http
 *     origin with credentials is refused (CORS_INSECURE_ORIGIN: whoever is on that page's network
 *     path could use the grant). `privateNetworkAccess` with the default '*' is refused too
 *     (CORS_PRIVATE_NETWORK_TO_EVERY_ORIGIN: every public site could reach the private server), so
 *     their private-network cases run with the page's origin listed.
 *
 * Not ported:
 *  - 'options.secureContext=true' (2 cases) and 'options.secureContext=false' (1 case): no such
 *    option. Cross-Origin-Opener-Policy and Cross-Origin-Embedder-Policy are no CORS headers; a Koa
 *    middleware of the application sets them. The option is refused at start-up (below).
 *  - 'options.headersKeptOnError should not keep CORS headers after an error if keepHeadersOnError
 *    is false': no such option. The grant is always kept on error answers, so a page can read why
 *    it failed (row 3; section 5, "the grant is set before the handler runs").
 *  - 'options.credentials=async function' (3 cases, a promise-like one included): `allowCredentials`
 *    is a boolean compiled once per route, never a per-request function. Per-request credentials
 *    map to per-route options, ported from 'options.credentials=function' below; an always-true
 *    function is `allowCredentials: true`, ported from 'options.credentials'.
 */
import Router from '@koa/router';
import Koa from 'koa';
import t, { type Test } from 'tap';

import { createCors, type CorsOptions, type KoaContext, type KoaCors } from '@lib/cors/koa';

import { type Answer, captureLogger, serve, type TestServer } from '../../helpers/http.js';

const KOAJS = 'https://koajs.com';
const quiet = { warn: () => {}, error: () => {} };

/** The handler of their application. */
const fooBar = (ctx: Koa.Context) => {
  ctx.body = { foo: 'bar' };
};

/** The methods their application answers on '/' (all of @koa/cors's default allowMethods but HEAD, which follows GET). */
const everyMethod = (router: Router) => void router.get('/', fooBar).put('/', fooBar).post('/', fooBar).delete('/', fooBar).patch('/', fooBar);
const EVERY_METHOD = 'GET, HEAD, PUT, POST, DELETE, PATCH, OPTIONS';

interface AppSetup {
  /** A middleware used before ours. */
  before?: Koa.Middleware;
  logger?: { warn(message: string): void; error(message: string): void };
}

/** A Koa application: `before`, then our middleware, then one router with `routes`, on a socket. */
async function appWith(
  t: Test,
  options: CorsOptions<KoaContext> | undefined,
  routes: (router: Router, cors: KoaCors) => void = everyMethod,
  setup: AppSetup = {},
): Promise<TestServer> {
  const app = new Koa();
  app.silent = true;
  if (setup.before !== undefined) app.use(setup.before);
  const cors = createCors(options, { logger: setup.logger ?? quiet });
  app.use(cors);
  const router = new Router();
  routes(router, cors);
  app.use(router.routes());
  const server = await serve(app.callback());
  t.teardown(server.close);
  return server;
}

const preflight = (method: string, extra: Record<string, string> = {}) => ({ Origin: KOAJS, 'Access-Control-Request-Method': method, ...extra });

function pick(answer: Answer, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, answer.headers[name]]));
}

function isFooBar(t: Test, answer: Answer, what: string): void {
  t.equal(answer.status, 200, `${what}: status`);
  t.same(JSON.parse(answer.body), { foo: 'bar' }, `${what}: the handler answered`);
}

// ---------------------------------------------------------------- default options

t.test('default options', async (t) => {
  const server = await appWith(t, undefined);

  // koajs/cors test/cors.test.js: 'default options should set `Access-Control-Allow-Origin` to `*` when request Origin header missing'
  let answer = await server.send('GET', '/');
  isFooBar(t, answer, 'GET without Origin');
  t.equal(answer.headers['access-control-allow-origin'], '*', 'row 5 under any: the whole grant (rule A)');

  // koajs/cors test/cors.test.js: 'default options should set `Access-Control-Allow-Origin` to `*`'
  answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'GET with Origin');
  t.equal(answer.headers['access-control-allow-origin'], '*');

  // koajs/cors test/cors.test.js: 'default options should 204 on Preflight Request'
  // The methods granted are the path's own (difference 5), so the app declares @koa/cors's list.
  answer = await server.send('OPTIONS', '/', preflight('PUT'));
  t.equal(answer.status, 204);
  t.equal(answer.body, '');
  t.same(pick(answer, ['access-control-allow-origin', 'access-control-allow-methods', 'content-length']), {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': EVERY_METHOD,
    'content-length': undefined,
  });
  const getOnly = await appWith(t, undefined, (router) => void router.get('/', fooBar));
  answer = await getOnly.send('OPTIONS', '/', preflight('PUT'));
  t.equal(answer.status, 204);
  t.equal(answer.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS', 'a path with only GET grants no PUT (rule E)');

  // koajs/cors test/cors.test.js: 'default options should not Preflight Request if request missing Access-Control-Request-Method'
  // Row 2, not a preflight: 204 with Allow, where @koa/cors lets its application answer 200 (difference 6).
  answer = await server.send('OPTIONS', '/', { Origin: KOAJS });
  t.equal(answer.status, 204);
  t.equal(answer.body, '');
  t.same(pick(answer, ['allow', 'access-control-allow-origin', 'access-control-allow-methods']), {
    allow: EVERY_METHOD,
    'access-control-allow-origin': '*',
    'access-control-allow-methods': undefined,
  });

  // koajs/cors test/cors.test.js: 'default options should always set `Vary` to Origin'
  // Under '*' the answer is the same for every origin: no Vary (rule A, difference 1).
  answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'GET under *');
  t.equal(answer.headers.vary, undefined, 'no Vary: Origin under *');
  // Where the answer depends on the origin, every response says so, without Origin too.
  const dynamic = await appWith(t, { origin: [KOAJS, 'https://other.koajs.com'] });
  for (const headers of [{ Origin: KOAJS }, { Origin: 'https://stranger.example' }, {}] as Record<string, string>[]) {
    answer = await dynamic.send('GET', '/', headers);
    isFooBar(t, answer, `GET under a list, ${JSON.stringify(headers)}`);
    t.equal(answer.headers.vary, 'Origin', `Vary: Origin under a list, ${JSON.stringify(headers)}`);
  }
});

// ---------------------------------------------------------------- options.origin=*

t.test("options.origin = '*'", async (t) => {
  const server = await appWith(t, { origin: '*' });

  // koajs/cors test/cors.test.js: 'options.origin=* should always set `Access-Control-Allow-Origin` to *'
  let answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'GET with Origin');
  t.equal(answer.headers['access-control-allow-origin'], '*');

  // koajs/cors test/cors.test.js: 'options.origin=* should always set `Access-Control-Allow-Origin` to *, even if no Origin is passed on request'
  answer = await server.send('GET', '/');
  isFooBar(t, answer, 'GET without Origin');
  t.equal(answer.headers['access-control-allow-origin'], '*');
});

// ------------------------------------------------- options.origin set the request Origin header

t.test("an origin function granting the request's own origin (difference 2)", async (t) => {
  const seen: [string, string | undefined][] = [];
  const server = await appWith(t, {
    // Their function returns the header; ours says yes, and reads the Koa context it is given.
    origin: (origin, ctx) => {
      seen.push([origin, (ctx as Koa.Context).get('Origin')]);
      return true;
    },
  });

  // koajs/cors test/cors.test.js: 'options.origin set the request Origin header should set `Access-Control-Allow-Origin` to request `Origin` header'
  let answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'Origin');
  t.same(pick(answer, ['access-control-allow-origin', 'vary']), { 'access-control-allow-origin': KOAJS, vary: 'Origin' });

  // koajs/cors test/cors.test.js: 'options.origin set the request Origin header should set `Access-Control-Allow-Origin` to request `origin` header'
  answer = await server.send('GET', '/', { origin: 'http://origin.koajs.com' });
  isFooBar(t, answer, 'origin, in lower case');
  t.same(pick(answer, ['access-control-allow-origin', 'vary']), { 'access-control-allow-origin': 'http://origin.koajs.com', vary: 'Origin' });
  t.same(seen, [
    [KOAJS, KOAJS],
    ['http://origin.koajs.com', 'http://origin.koajs.com'],
  ]);

  // koajs/cors test/cors.test.js: 'options.origin set the request Origin header should set `Access-Control-Allow-Origin` to `*`, even if no Origin is passed on request'
  // No Origin, nothing to grant: no Allow-Origin, and Vary: Origin (rule A, dynamic), where @koa/cors's function answers '*'.
  answer = await server.send('GET', '/');
  isFooBar(t, answer, 'no Origin');
  t.same(pick(answer, ['access-control-allow-origin', 'vary']), { 'access-control-allow-origin': undefined, vary: 'Origin' });
  t.equal(seen.length, 2, 'the function is not called without Origin');
});

// ---------------------------------------------- options.origin=function, =promise, =async function

const FORBIN = 'the function refuses /forbin';
const originFunctions: [string, (origin: string, ctx: KoaContext) => boolean | Promise<boolean>][] = [
  ['function', (_origin, ctx) => ctx.url !== '/forbin'],
  // Settled on a later turn of the event loop, as theirs is (without their 100 ms wait).
  ['promise', (_origin, ctx) => new Promise((resolve) => setImmediate(() => resolve(ctx.url !== '/forbin')))],
  ['async function', async (_origin, ctx) => ctx.url !== '/forbin'],
];
for (const [kind, origin] of originFunctions) {
  t.test(`options.origin = ${kind} (${FORBIN}; difference 2)`, async (t) => {
    const server = await appWith(t, { origin }, (router) => void router.get('/', fooBar).get('/forbin', fooBar));

    // koajs/cors test/cors.test.js: 'options.origin=function should disable cors'
    // koajs/cors test/cors.test.js: 'options.origin=promise should disable cors'
    // koajs/cors test/cors.test.js: 'options.origin=async function should disable cors'
    let answer = await server.send('GET', '/forbin', { Origin: KOAJS });
    isFooBar(t, answer, 'GET /forbin');
    t.same(pick(answer, ['access-control-allow-origin', 'vary']), { 'access-control-allow-origin': undefined, vary: 'Origin' });

    // koajs/cors test/cors.test.js: 'options.origin=function should set access-control-allow-origin to *'
    // koajs/cors test/cors.test.js: 'options.origin=promise should set access-control-allow-origin to *'
    // koajs/cors test/cors.test.js: 'options.origin=async function should set access-control-allow-origin to *'
    // A function grants the request's own origin, never '*' (section 2).
    answer = await server.send('GET', '/', { Origin: KOAJS });
    isFooBar(t, answer, 'GET /');
    t.same(pick(answer, ['access-control-allow-origin', 'vary']), { 'access-control-allow-origin': KOAJS, vary: 'Origin' });
  });
}

t.test("'*' everywhere but one route: that route's own options (difference 2)", async (t) => {
  // koajs/cors test/cors.test.js: 'options.origin=function should disable cors', with the '*' their function answers elsewhere
  const server = await appWith(t, { origin: '*' }, (router, cors) => {
    router.get('/', fooBar).get('/forbin', cors.route({ origin: false }), fooBar);
  });
  let answer = await server.send('GET', '/forbin', { Origin: KOAJS });
  isFooBar(t, answer, 'GET /forbin');
  t.same(pick(answer, ['access-control-allow-origin', 'vary']), { 'access-control-allow-origin': undefined, vary: undefined });
  answer = await server.send('OPTIONS', '/forbin', preflight('GET'));
  t.equal(answer.status, 204);
  t.equal(answer.headers['access-control-allow-origin'], undefined, 'its preflight grants nothing either');
  answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'GET /');
  t.same(pick(answer, ['access-control-allow-origin', 'vary']), { 'access-control-allow-origin': '*', vary: undefined });
});

t.test('an origin function answering a promise-like object that is no Promise denies, and is logged (difference 3)', async (t) => {
  // koajs/cors test/cors.test.js: 'options.origin=async function behaves correctly when the return type is promise-like'
  class Thenable<T> {
    readonly #inner: Promise<T>;
    constructor(executor: (resolve: (value: T) => void) => void) {
      this.#inner = new Promise(executor);
    }
    // biome-ignore lint/suspicious/noThenProperty: the very point of the case
    then(onFulfilled: (value: T) => void): void {
      void this.#inner.then(onFulfilled);
    }
  }
  const { logger, errors } = captureLogger();
  const origin = () => new Thenable<boolean>((resolve) => resolve(true)) as unknown as Promise<boolean>;
  const server = await appWith(t, { origin }, everyMethod, { logger });
  const answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'GET /');
  t.same(pick(answer, ['access-control-allow-origin', 'vary']), { 'access-control-allow-origin': undefined, vary: 'Origin' });
  t.equal(errors.length, 1, 'the fault is logged');
  t.match(errors[0], /not a boolean/);
});

// ---------------------------------------------------------------- options.exposeHeaders

t.test('options.exposeHeaders -> exposedHeaders', async (t) => {
  // koajs/cors test/cors.test.js: 'options.exposeHeaders should Access-Control-Expose-Headers: `content-length`'
  // Their name and a string are refused (difference 7); ours takes a list.
  // NOTE: the first error's fix reads `exposedHeaders: "content-length"`, a string the second refuses (the hint should give the list).
  t.throws(() => createCors({ exposeHeaders: 'content-length' } as never, { logger: quiet }), {
    name: 'CorsOptionsError',
    code: 'CORS_OPTION_OF_ANOTHER_PACKAGE',
    message: /exposedHeaders/,
  });
  t.throws(() => createCors({ exposedHeaders: 'content-length' } as never, { logger: quiet }), {
    name: 'CorsOptionsError',
    code: 'CORS_INVALID_NAME_LIST',
  });
  let server = await appWith(t, { exposedHeaders: ['content-length'] });
  let answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'one name');
  t.equal(answer.headers['access-control-expose-headers'], 'content-length');

  // koajs/cors test/cors.test.js: 'options.exposeHeaders should work with array'
  server = await appWith(t, { exposedHeaders: ['content-length', 'x-header'] });
  answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'two names');
  t.equal(answer.headers['access-control-expose-headers'], 'content-length, x-header');
});

// ---------------------------------------------------------------- options.maxAge

t.test('options.maxAge', async (t) => {
  // koajs/cors test/cors.test.js: 'options.maxAge should set maxAge with number'
  const server = await appWith(t, { maxAge: 3600 });
  let answer = await server.send('OPTIONS', '/', preflight('PUT'));
  t.equal(answer.status, 204);
  t.equal(answer.headers['access-control-max-age'], '3600');

  // koajs/cors test/cors.test.js: 'options.maxAge should set maxAge with string'
  // Refused at start-up: whole seconds, as a number (section 4, difference 7).
  t.throws(() => createCors({ maxAge: '3600' } as never, { logger: quiet }), { name: 'CorsOptionsError', code: 'CORS_INVALID_NUMBER' });

  // koajs/cors test/cors.test.js: 'options.maxAge should not set maxAge on simple request'
  answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'GET');
  t.equal(answer.headers['access-control-max-age'], undefined);
});

// ---------------------------------------------------------------- options.credentials

t.test("options.credentials -> allowCredentials, with the origins listed (difference 4; CORS_WILDCARD_WITH_CREDENTIALS for '*')", async (t) => {
  t.throws(() => createCors({ credentials: true } as never, { logger: quiet }), {
    name: 'CorsOptionsError',
    code: 'CORS_OPTION_OF_ANOTHER_PACKAGE',
    message: /allowCredentials/,
  });
  t.throws(() => createCors({ allowCredentials: true }, { logger: quiet }), { name: 'CorsOptionsError', code: 'CORS_WILDCARD_WITH_CREDENTIALS' });
  const server = await appWith(t, { origin: [KOAJS], allowCredentials: true });

  // koajs/cors test/cors.test.js: 'options.credentials should enable Access-Control-Allow-Credentials on Simple request'
  let answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'GET');
  t.same(pick(answer, ['access-control-allow-origin', 'access-control-allow-credentials', 'vary']), {
    'access-control-allow-origin': KOAJS,
    'access-control-allow-credentials': 'true',
    vary: undefined,
  });

  // koajs/cors test/cors.test.js: 'options.credentials should enable Access-Control-Allow-Credentials on Preflight request'
  answer = await server.send('OPTIONS', '/', preflight('DELETE'));
  t.equal(answer.status, 204);
  t.same(pick(answer, ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-allow-methods']), {
    'access-control-allow-origin': KOAJS,
    'access-control-allow-credentials': 'true',
    'access-control-allow-methods': EVERY_METHOD,
  });
});

t.test('options.credentials unset', async (t) => {
  const server = await appWith(t, undefined);

  // koajs/cors test/cors.test.js: 'options.credentials unset should disable Access-Control-Allow-Credentials on Simple request'
  let answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'GET');
  t.equal(answer.headers['access-control-allow-origin'], '*', 'the grant is there');
  t.equal(answer.headers['access-control-allow-credentials'], undefined, 'without credentials');

  // koajs/cors test/cors.test.js: 'options.credentials unset should disable Access-Control-Allow-Credentials on Preflight request'
  answer = await server.send('OPTIONS', '/', preflight('DELETE'));
  t.equal(answer.status, 204);
  t.equal(answer.headers['access-control-allow-origin'], '*', 'the grant is there');
  t.equal(answer.headers['access-control-allow-credentials'], undefined, 'without credentials');
});

t.test('options.credentials = function -> a route of its own without credentials (options are per route, never per request)', async (t) => {
  // Their function says no for /forbin only; here /forbin's routes say `allowCredentials: false`.
  const server = await appWith(t, { origin: [KOAJS], allowCredentials: true }, (router, cors) => {
    const noCredentials = cors.route({ allowCredentials: false });
    router.get('/', fooBar).delete('/', fooBar).get('/forbin', noCredentials, fooBar).delete('/forbin', noCredentials, fooBar);
  });

  // koajs/cors test/cors.test.js: 'options.credentials=function should enable Access-Control-Allow-Credentials on Simple request'
  let answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'GET /');
  t.equal(answer.headers['access-control-allow-credentials'], 'true');

  // koajs/cors test/cors.test.js: 'options.credentials=function should enable Access-Control-Allow-Credentials on Preflight request'
  answer = await server.send('OPTIONS', '/', preflight('DELETE'));
  t.equal(answer.status, 204);
  t.equal(answer.headers['access-control-allow-credentials'], 'true');

  // koajs/cors test/cors.test.js: 'options.credentials=function should disable Access-Control-Allow-Credentials on Simple request'
  answer = await server.send('GET', '/forbin', { Origin: KOAJS });
  isFooBar(t, answer, 'GET /forbin');
  t.same(pick(answer, ['access-control-allow-origin', 'access-control-allow-credentials']), {
    'access-control-allow-origin': KOAJS,
    'access-control-allow-credentials': undefined,
  });

  // koajs/cors test/cors.test.js: 'options.credentials=function should disable Access-Control-Allow-Credentials on Preflight request'
  answer = await server.send('OPTIONS', '/forbin', preflight('DELETE'));
  t.equal(answer.status, 204);
  t.same(pick(answer, ['access-control-allow-origin', 'access-control-allow-credentials']), {
    'access-control-allow-origin': KOAJS,
    'access-control-allow-credentials': undefined,
  });
});

// ---------------------------------------------------------------- options.allowHeaders

t.test('options.allowHeaders -> allowedHeaders', async (t) => {
  // koajs/cors test/cors.test.js: 'options.allowHeaders should work with allowHeaders is string'
  // Their name and a string are refused (difference 7).
  t.throws(() => createCors({ allowHeaders: 'X-PINGOTHER' } as never, { logger: quiet }), {
    name: 'CorsOptionsError',
    code: 'CORS_OPTION_OF_ANOTHER_PACKAGE',
    message: /allowedHeaders/,
  });
  t.throws(() => createCors({ allowedHeaders: 'X-PINGOTHER' } as never, { logger: quiet }), {
    name: 'CorsOptionsError',
    code: 'CORS_INVALID_NAME_LIST',
  });

  // koajs/cors test/cors.test.js: 'options.allowHeaders should work with allowHeaders is array'
  const listed = await appWith(t, { allowedHeaders: ['X-PINGOTHER'] });
  let answer = await listed.send('OPTIONS', '/', preflight('PUT'));
  t.equal(answer.status, 204);
  t.same(pick(answer, ['access-control-allow-headers', 'vary']), { 'access-control-allow-headers': 'X-PINGOTHER', vary: undefined });

  // koajs/cors test/cors.test.js: 'options.allowHeaders should set Access-Control-Allow-Headers to request access-control-request-headers header'
  const reflected = await appWith(t, undefined);
  answer = await reflected.send('OPTIONS', '/', preflight('PUT', { 'access-control-request-headers': 'X-PINGOTHER' }));
  t.equal(answer.status, 204);
  t.same(pick(answer, ['access-control-allow-headers', 'vary']), {
    'access-control-allow-headers': 'X-PINGOTHER',
    vary: 'Access-Control-Request-Headers',
  });
});

// ---------------------------------------------------------------- options.allowMethods

t.test('options.allowMethods -> allowedMethods', async (t) => {
  // koajs/cors test/cors.test.js: 'options.allowMethods should work with allowMethods is array'
  t.throws(() => createCors({ allowMethods: ['GET', 'POST'] } as never, { logger: quiet }), {
    name: 'CorsOptionsError',
    code: 'CORS_OPTION_OF_ANOTHER_PACKAGE',
    message: /allowedMethods/,
  });
  const server = await appWith(t, { allowedMethods: ['GET', 'POST'] });
  const answer = await server.send('OPTIONS', '/', preflight('PUT'));
  t.equal(answer.status, 204);
  t.equal(answer.headers['access-control-allow-methods'], 'GET, POST');

  // koajs/cors test/cors.test.js: 'options.allowMethods should skip allowMethods'
  // null is refused (section 4: a list or '*'); without allowedMethods, the path's methods are sent (difference 7).
  t.throws(() => createCors({ allowedMethods: null } as never, { logger: quiet }), { name: 'CorsOptionsError', code: 'CORS_INVALID_NAME_LIST' });
});

// ---------------------------------------------------------------- options.headersKeptOnError

/** Their failing handler: it sets a body and a header of its own, then throws. */
const whoops = (ctx: Koa.Context) => {
  ctx.body = { foo: 'bar' };
  ctx.set('X-Example', 'Value');
  throw new Error('Whoops!');
};

t.test("the grant on Koa's error answers", async (t) => {
  // Their origin function reflects the request's origin: origin: true here.
  const server = await appWith(t, { origin: true }, (router) => void router.get('/', whoops).put('/', whoops));

  // koajs/cors test/cors.test.js: 'options.headersKeptOnError should keep CORS headers after an error'
  let answer = await server.send('GET', '/', { Origin: KOAJS });
  t.equal(answer.status, 500);
  t.equal(answer.body, 'Internal Server Error');
  t.same(pick(answer, ['access-control-allow-origin', 'vary']), { 'access-control-allow-origin': KOAJS, vary: 'Origin' });

  // koajs/cors test/cors.test.js: 'options.headersKeptOnError should not affect OPTIONS requests'
  answer = await server.send('OPTIONS', '/', preflight('PUT'));
  t.equal(answer.status, 204, 'the preflight is answered before the handler');
  t.equal(answer.body, '');
  t.equal(answer.headers['access-control-allow-origin'], KOAJS);

  // koajs/cors test/cors.test.js: 'options.headersKeptOnError should not keep unrelated headers'
  answer = await server.send('GET', '/', { Origin: KOAJS });
  t.equal(answer.status, 500);
  t.equal(answer.headers['access-control-allow-origin'], KOAJS);
  t.equal(answer.headers['x-example'], undefined, "only the grant is kept: Koa's error answer drops the handler's headers");

  // The same under the default '*'.
  const any = await appWith(t, undefined, (router) => void router.get('/', whoops));
  answer = await any.send('GET', '/', { Origin: KOAJS });
  t.equal(answer.status, 500);
  t.same(pick(answer, ['access-control-allow-origin', 'vary', 'x-example']), { 'access-control-allow-origin': '*', vary: undefined, 'x-example': undefined });
});

// ------------------------------------------------------------- Vary set by the application

t.test('a Vary set by a middleware before ours (difference 1)', async (t) => {
  // koajs/cors test/cors.test.js: 'other middleware has been set `Vary` header to Accept-Encoding should append `Vary` header to Origin'
  const before: Koa.Middleware = (ctx, next) => {
    ctx.set('Vary', 'Accept-Encoding');
    return next();
  };
  const any = await appWith(t, undefined, everyMethod, { before });
  let answer = await any.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, "GET under '*'");
  t.equal(answer.headers.vary, 'Accept-Encoding', "under '*' nothing is added (rule A)");
  const dynamic = await appWith(t, { origin: true }, everyMethod, { before });
  answer = await dynamic.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'GET under origin: true');
  t.equal(answer.headers.vary, 'Accept-Encoding, Origin', 'added after the Vary already set, as @koa/cors adds it');
  answer = await dynamic.send('OPTIONS', '/', preflight('PUT'));
  t.equal(answer.status, 204);
  t.equal(answer.headers.vary, 'Accept-Encoding, Origin, Access-Control-Request-Headers', 'the preflight adds its fields to the Vary already set');
});

for (const [upstream, errorVary, underAny, underDynamic] of [
  ['should append `Origin to other `Vary` header', 'Accept-Encoding', 'Accept-Encoding', 'Origin, Accept-Encoding'],
  ['should preserve `Vary: *`', '*', '*', '*'],
  ['should not append Origin` if already present in `Vary`', 'Origin, Accept-Encoding', 'Origin, Accept-Encoding', 'Origin, Accept-Encoding'],
] as const) {
  // koajs/cors test/cors.test.js: 'other middleware has set vary header on Error should append `Origin to other `Vary` header'
  // koajs/cors test/cors.test.js: 'other middleware has set vary header on Error should preserve `Vary: *`'
  // koajs/cors test/cors.test.js: 'other middleware has set vary header on Error should not append Origin` if already present in `Vary`'
  t.test(`from '${upstream}': the Vary of an error thrown with headers ${JSON.stringify(errorVary)} (differences 1 and 8)`, async (t) => {
    const failing = (ctx: Koa.Context) => {
      ctx.body = { foo: 'bar' };
      throw Object.assign(new Error('Whoops!'), { headers: { Vary: errorVary } });
    };
    for (const [options, expected] of [
      [undefined, underAny],
      [{ origin: true }, underDynamic],
    ] as const) {
      const server = await appWith(t, options, (router) => void router.get('/', failing));
      const answer = await server.send('GET', '/', { Origin: KOAJS });
      t.equal(answer.status, 500);
      t.equal(answer.body, 'Internal Server Error');
      t.equal(answer.headers.vary, expected, JSON.stringify(options ?? 'default'));
      t.equal(answer.headers['access-control-allow-origin'], options === undefined ? '*' : KOAJS);
    }
  });
}

// ------------------------------------------------------------ options.privateNetworkAccess

for (const allowPrivateNetwork of [false, true]) {
  t.test(`options.privateNetworkAccess = ${allowPrivateNetwork} -> allowPrivateNetwork`, async (t) => {
    // Listed: with '*' (their default) the private network would be open to every site (difference 9).
    const server = await appWith(t, { origin: KOAJS, allowPrivateNetwork });

    // koajs/cors test/cors.test.js: 'options.privateNetworkAccess=false should not set `Access-Control-Allow-Private-Network` on not OPTIONS'
    // koajs/cors test/cors.test.js: 'options.privateNetworkAccess=true should not set `Access-Control-Allow-Private-Network` on not OPTIONS'
    let answer = await server.send('GET', '/', preflight('PUT', { 'Access-Control-Request-Private-Network': 'true' }));
    isFooBar(t, answer, 'GET');
    t.equal(answer.headers['access-control-allow-private-network'], undefined);

    // koajs/cors test/cors.test.js: 'options.privateNetworkAccess=false should not set `Access-Control-Allow-Private-Network` if `Access-Control-Request-Private-Network` not exist on OPTIONS'
    // koajs/cors test/cors.test.js: 'options.privateNetworkAccess=true should not set `Access-Control-Allow-Private-Network` if `Access-Control-Request-Private-Network` not exist on OPTIONS'
    answer = await server.send('OPTIONS', '/', preflight('PUT'));
    t.equal(answer.status, 204);
    t.equal(answer.headers['access-control-allow-origin'], KOAJS, 'granted');
    t.equal(answer.headers['access-control-allow-private-network'], undefined);
    // Rule C: the answer names the request header it depended on.
    const vary = allowPrivateNetwork ? 'Access-Control-Request-Headers, Access-Control-Request-Private-Network' : 'Access-Control-Request-Headers';
    t.equal(answer.headers.vary, vary);

    // koajs/cors test/cors.test.js: 'options.privateNetworkAccess=false should not set `Access-Control-Allow-Private-Network` if `Access-Control-Request-Private-Network` exist on OPTIONS'
    // koajs/cors test/cors.test.js: 'options.privateNetworkAccess=true should always set `Access-Control-Allow-Private-Network` if `Access-Control-Request-Private-Network` exist on OPTIONS'
    answer = await server.send('OPTIONS', '/', preflight('PUT', { 'Access-Control-Request-Private-Network': 'true' }));
    t.equal(answer.status, 204);
    t.equal(answer.headers['access-control-allow-private-network'], allowPrivateNetwork ? 'true' : undefined);
    t.equal(answer.headers.vary, vary);
  });
}

t.test('@koa/cors option names we do not have are refused at start-up, not ignored', async (t) => {
  for (const options of [{ privateNetworkAccess: true }, { secureContext: true }, { keepHeadersOnError: false }]) {
    t.throws(() => createCors(options as never, { logger: quiet }), { name: 'CorsOptionsError', code: 'CORS_UNKNOWN_OPTION' }, JSON.stringify(options));
  }
});

// ------------------------------------------------------- options.origin=* with credentials

t.test("options.origin = '*' with credentials: refused at start-up, never an echo of any origin (difference 4)", async (t) => {
  // koajs/cors test/cors.test.js: 'options.origin=*, and options.credentials=true Access-Control-Allow-Origin should be request.origin, and Access-Control-Allow-Credentials should be true'
  t.throws(() => createCors({ origin: '*', allowCredentials: true }, { logger: quiet }), {
    name: 'CorsOptionsError',
    code: 'CORS_WILDCARD_WITH_CREDENTIALS',
  });
  // With the origins listed, a listed origin gets its grant and a stranger gets none.
  const server = await appWith(t, { origin: [KOAJS, 'https://other.koajs.com'], allowCredentials: true });
  let answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'listed');
  t.same(pick(answer, ['access-control-allow-origin', 'access-control-allow-credentials', 'vary']), {
    'access-control-allow-origin': KOAJS,
    'access-control-allow-credentials': 'true',
    vary: 'Origin',
  });
  answer = await server.send('GET', '/', { Origin: 'https://stranger.example' });
  isFooBar(t, answer, 'a stranger');
  t.same(pick(answer, ['access-control-allow-origin', 'access-control-allow-credentials', 'vary']), {
    'access-control-allow-origin': undefined,
    'access-control-allow-credentials': undefined,
    vary: 'Origin',
  });
});

t.test("options.origin = '*' without credentials", async (t) => {
  // koajs/cors test/cors.test.js: 'options.origin=*, and options.credentials=false Access-Control-Allow-Origin should be *'
  const server = await appWith(t, { origin: '*', allowCredentials: false });
  const answer = await server.send('GET', '/', { Origin: KOAJS });
  isFooBar(t, answer, 'GET');
  t.same(pick(answer, ['access-control-allow-origin', 'access-control-allow-credentials']), {
    'access-control-allow-origin': '*',
    'access-control-allow-credentials': undefined,
  });
});
