/**
 * The route-level cases of hapi's CORS tests, rewritten for the standalone middleware over a real
 * socket.
 *
 * Where the cases come from: github.com/hapijs/hapi, test/cors.js at f2a24f6 (March 2026). Each
 * test names its upstream case in a comment ("hapijs/hapi test/cors.js: '<describe> <it>'"); the
 * cases hapi has no test for but its CORS code decides (lib/cors.js looks up the route of
 * Access-Control-Request-Method, the fix of hapijs/hapi#2840, CVE-2015-9236) name that instead.
 * Everything is written in our own words.
 *
 * How hapi's configuration maps to ours:
 *  - `Hapi.server({ routes: { cors: X } })` is `createCors(X)`; `Hapi.server()` (CORS off by
 *    default) is `createCors({ origin: false })`.
 *  - a route's `options.cors` is `cors.route(method, path, options)`, merged field by field over
 *    the engine's options as hapi merges a route's over the server's; `cors: true` is
 *    `{ origin: '*' }`, `cors: false` is `{ origin: false }` (CONTRACT.md, section 2, kind off).
 *  - `origin: ['*']` and `origin: 'ignore'` are `'*'`; `headers` (+ `additionalHeaders`) is
 *    `allowedHeaders`; `exposedHeaders` (+ `additionalExposedHeaders`) is `exposedHeaders`;
 *    `credentials` is `allowCredentials`; `preflightStatusCode` is `optionsSuccessStatus`.
 *  - origins are written as browsers send them ('https://example.com', never
 *    'http://example.com/' or 'a'): anything else is refused at start-up (CONTRACT.md, section 4).
 *  - the application is a small router: 404 for an unknown path, 405 for an unknown method.
 *
 * Deliberate differences from hapi (each with the contract rule it follows):
 *  1. Status of a preflight: always `optionsSuccessStatus` (204), refused or not; a refusal is the
 *     absence of a grant (rule C). hapi answers 200 with a JSON message ('CORS error: Origin not
 *     allowed', 'CORS is disabled for this route') or 404 (no CORS route at all).
 *  2. OPTIONS without Origin or without Access-Control-Request-Method is no preflight but rows 1
 *     and 2: 204 with `Allow` and rule A. hapi answers 404 ('Missing Origin header', 'Missing
 *     Access-Control-Request-Method header'). Fetch never sends a preflight without both.
 *  3. `'*'` sends `Access-Control-Allow-Origin: *` on every response, Origin or not, with no
 *     `Vary: Origin` (section 2, kind any; rule A). hapi's `['*']` echoes the request's origin with
 *     `Vary: origin` and sends nothing without Origin; only its `'ignore'` behaves like ours.
 *  4. A one-origin list is the fixed kind: that origin on every response, for every requester
 *     (rule A, section 5). hapi withholds the headers from other origins; the browser refuses them
 *     either way, as it compares the fixed origin with its own.
 *  5. `'*'` with credentials is refused at start-up (CORS_WILDCARD_WITH_CREDENTIALS, section 4);
 *     hapi echoes every origin with `Access-Control-Allow-Credentials: true`. `['*']` is refused
 *     too (CORS_WILDCARD_IN_LIST).
 *  6. Access-Control-Allow-Methods lists the methods of the requested method's policy on the path
 *     (rule C, rule E), `GET, HEAD, OPTIONS` for a GET route; hapi echoes the requested method.
 *     A path whose methods differ in policy says `Vary: Access-Control-Request-Method`.
 *  7. Requested headers are not checked against `allowedHeaders`: the preflight grants the list
 *     and the browser refuses a header missing from it (Fetch, CORS-preflight fetch). hapi
 *     refuses the whole preflight. With no `allowedHeaders`, the request's list is reflected
 *     (section 4); hapi's default is its fixed list (Accept, Authorization, Content-Type,
 *     If-None-Match) and `Origin` is admitted implicitly.
 *  8. Header lists are joined with ', ' as written in the options; hapi joins with ','.
 *  9. Access-Control-Expose-Headers is sent on actual responses only (rule B, not rule C): Fetch
 *     reads it there. hapi sends it on preflights too. No default exposed headers (hapi:
 *     WWW-Authenticate, Server-Authorization) and no default `maxAge` (hapi: 86400).
 * 10. A path that no route declares is the application's: no CORS header on its 404 (section 3).
 *     With no route declared at all, every path is covered (section 1), 404s included.
 * 11. `Vary`: the engine's fields come first and a handler's follow ('Origin, x-test'); hapi
 *     appends 'origin' after the handler's and adds its own 'accept-encoding' (compression).
 * 12. A handler that sets Access-Control-Expose-Headers itself replaces the configured list (only
 *     `Vary` is kept against a handler, rule A); hapi appends the configured list to the handler's.
 * 13. A preflight for a method the path does not declare is decided by the path's OPTIONS policy
 *     (rule E) and lists only that policy's methods, so the browser refuses the method itself;
 *     hapi answers 404 (no route matches).
 *
 * Not ported: 'CORS options() ignores OPTIONS route' (asserts hapi's internal router table,
 * nothing observable); 'CORS handler() correctly finds route when using vhost setting' (no
 * virtual-host routing here: paths only); the `request.info.cors` assertion of 'CORS uses server
 * defaults in onRequest' (hapi's request object; the responses of that case are ported);
 * 'compression: { minBytes: 1 }' in the Vary cases (no compression here: difference 11).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import t, { type Test } from 'tap';
import vary from 'vary';

import { createCors, type CorsOptions } from '@lib/cors/standalone';

import { corsHeadersOf, serve, type Answer } from '../../helpers/http.js';

const quiet = { warn: () => {}, error: () => {} };

const EXAMPLE = 'https://example.com';
const ON = { origin: '*' } satisfies CorsOptions; // hapi's `cors: true`
const OFF = { origin: false } satisfies CorsOptions; // hapi's `cors: false`
const HAPI_HEADERS = ['Accept', 'Authorization', 'Content-Type', 'If-None-Match'];
const HAPI_EXPOSED = ['WWW-Authenticate', 'Server-Authorization'];

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const ok: Handler = (_req, res) => {
  res.setHeader('Content-Type', 'text/plain');
  res.end('ok');
};
/** hapi's `handler: () => null`: an empty 204. */
const empty: Handler = (_req, res) => {
  res.statusCode = 204;
  res.end();
};

/** One route as hapi declares it: `options.cors` absent means the server's. */
interface HapiRoute {
  method: string;
  path: string;
  cors?: CorsOptions;
  handler?: Handler;
}

interface Seen {
  status: number;
  body: string;
  /** The CORS headers, `Vary` and `Allow` (helpers/http.ts corsHeadersOf). */
  cors: Record<string, string>;
  answer: Answer;
}
type Send = (method: string, path: string, headers?: Record<string, string>) => Promise<Seen>;

/**
 * hapi's `Hapi.server({ routes: { cors: serverCors } })` with `routes`: the engine covers each
 * route (or every path, when there is none) and the application answers what it hands on.
 */
async function hapiLike(t: Test, serverCors: CorsOptions, routes: HapiRoute[], fallback?: Handler): Promise<Send> {
  const cors = createCors(serverCors, { logger: quiet });
  const table = new Map<string, Map<string, Handler>>();
  for (const route of routes) {
    if (route.cors === undefined) cors.route(route.method, route.path);
    else cors.route(route.method, route.path, route.cors);
    const methods = table.get(route.path) ?? new Map<string, Handler>();
    methods.set(route.method, route.handler ?? ok);
    table.set(route.path, methods);
  }
  const app: Handler = (req, res) => {
    const methods = table.get(new URL(req.url ?? '/', 'http://host').pathname);
    const handler = methods?.get(req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET'));
    if (handler !== undefined) return handler(req, res);
    if (fallback !== undefined) return fallback(req, res);
    res.statusCode = methods === undefined ? 404 : 405;
    res.end(methods === undefined ? 'Not Found' : 'Method Not Allowed');
  };
  const server = await serve((req, res) => cors.handle(req, res, () => app(req, res)));
  t.teardown(server.close);
  return async (method, path, headers = {}) => {
    const answer = await server.send(method, path, headers);
    return { status: answer.status, body: answer.body, cors: corsHeadersOf(answer), answer };
  };
}

const preflight = (origin: string, method: string, extra: Record<string, string> = {}) => ({
  Origin: origin,
  'Access-Control-Request-Method': method,
  ...extra,
});

/** Only the access-control-* headers: what a browser reads as a grant. */
function grantOf(seen: Seen): Record<string, string> {
  return Object.fromEntries(Object.entries(seen.cors).filter(([name]) => name.startsWith('access-control-')));
}

// ------------------------------------------------------------------------------- CORS

t.test('CORS off for the whole server: the preflight gets no grant', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS returns 404 on OPTIONS when cors disabled'
  // hapi has no CORS route then and answers 404; `origin: false` still covers the path (CONTRACT.md,
  // section 5): the engine answers 204 and grants nothing (difference 1).
  const send = await hapiLike(t, OFF, [{ method: 'GET', path: '/' }]);
  const res = await send('OPTIONS', '/', preflight(EXAMPLE, 'GET'));
  t.equal(res.status, 204);
  t.equal(res.body, '');
  t.strictSame(grantOf(res), {});
  const plain = await send('OPTIONS', '/');
  t.strictSame(plain.cors, { allow: 'GET, HEAD, OPTIONS' }, 'a plain OPTIONS: Allow, and nothing of CORS');
});

t.test('the preflight is answered without running a failing handler, which still carries the grant', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS returns OPTIONS response'
  // hapijs/hapi test/cors.js: 'CORS returns OPTIONS response (server config)'
  const badRequest: Handler = (_req, res) => {
    res.statusCode = 400;
    res.end('bad');
  };
  for (const path of ['/', '/x']) {
    const send = await hapiLike(t, ON, [{ method: 'GET', path, handler: badRequest }]);
    const res = await send('OPTIONS', path, preflight(EXAMPLE, 'GET'));
    t.equal(res.status, 204, `${path}: the engine answers, the handler does not run`);
    t.equal(res.body, '');
    // hapi echoes the origin (its ['*'], difference 3) and the requested method (difference 6).
    t.strictSame(res.cors, {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD, OPTIONS',
      vary: 'Access-Control-Request-Headers',
    });
    const actual = await send('GET', path, { Origin: EXAMPLE });
    t.equal(actual.status, 400);
    t.strictSame(actual.cors, { 'access-control-allow-origin': '*' }, 'row 3: a 4xx carries the grant, so the page can read why');
  }
});

t.test('CORS on one route of a server where it is off', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS returns headers on single route'
  const send = await hapiLike(t, OFF, [
    { method: 'GET', path: '/a', cors: ON },
    { method: 'GET', path: '/b' },
  ]);
  const a = await send('OPTIONS', '/a', preflight(EXAMPLE, 'GET'));
  t.equal(a.status, 204);
  t.equal(a.body, '');
  t.strictSame(grantOf(a), { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD, OPTIONS' });
  // hapi: 200 and 'CORS is disabled for this route' (difference 1).
  const b = await send('OPTIONS', '/b', preflight(EXAMPLE, 'GET'));
  t.equal(b.status, 204);
  t.equal(b.body, '');
  t.strictSame(grantOf(b), {});
  t.strictSame((await send('GET', '/b', { Origin: EXAMPLE })).cors, {}, 'the actual request: nothing either');
});

t.test('CORS on several routes but not all', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS allows headers on multiple routes but not all'
  const send = await hapiLike(t, OFF, [
    { method: 'GET', path: '/a', cors: ON },
    { method: 'GET', path: '/b', cors: ON },
    { method: 'GET', path: '/c' },
  ]);
  for (const [path, granted] of [
    ['/a', true],
    ['/b', true],
    ['/c', false],
  ] as const) {
    const res = await send('OPTIONS', path, preflight(EXAMPLE, 'GET'));
    t.equal(res.status, 204, path);
    t.equal(res.body, '', path);
    t.equal(res.cors['access-control-allow-origin'], granted ? '*' : undefined, path);
    t.equal(res.cors['access-control-allow-methods'], granted ? 'GET, HEAD, OPTIONS' : undefined, path);
  }
});

t.test('two methods of one path with the same CORS options answer as one route', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS allows same headers on multiple routes with same path'
  const send = await hapiLike(t, OFF, [
    { method: 'GET', path: '/a', cors: ON },
    { method: 'POST', path: '/a', cors: ON },
  ]);
  // One policy: both methods listed, no Vary on the requested method (rule E, last paragraph);
  // hapi lists the requested method only (difference 6).
  for (const method of ['GET', 'POST']) {
    const res = await send('OPTIONS', '/a', preflight(EXAMPLE, method));
    t.equal(res.status, 204, method);
    t.equal(res.body, '');
    t.strictSame(res.cors, {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
      vary: 'Access-Control-Request-Headers',
    });
  }
});

t.test("a route's origin list replaces the server's", async (t) => {
  // hapijs/hapi test/cors.js: 'CORS returns headers on single route (overrides defaults)'
  const A = 'https://a.example.com';
  const B = 'https://b.example.com';
  const send = await hapiLike(t, { origin: [B] }, [
    { method: 'GET', path: '/a', cors: { origin: [A] } },
    { method: 'GET', path: '/b' },
  ]);
  const a = await send('OPTIONS', '/a', preflight(A, 'GET'));
  t.equal(a.status, 204);
  t.strictSame(a.cors, { 'access-control-allow-origin': A, 'access-control-allow-methods': 'GET, HEAD, OPTIONS', vary: 'Access-Control-Request-Headers' });
  const b = await send('OPTIONS', '/b', preflight(B, 'GET'));
  t.equal(b.status, 204);
  t.strictSame(b.cors, { 'access-control-allow-origin': B, 'access-control-allow-methods': 'GET, HEAD, OPTIONS', vary: 'Access-Control-Request-Headers' });
  // One origin is the fixed kind: /a names A to B too, and B's browser refuses it (difference 4).
  t.equal((await send('OPTIONS', '/a', preflight(B, 'GET'))).cors['access-control-allow-origin'], A);
  t.equal((await send('GET', '/a', { Origin: B })).cors['access-control-allow-origin'], A);
});

t.test("credentials with '*' are refused at start-up; with listed origins they are granted", async (t) => {
  // hapijs/hapi test/cors.js: 'CORS sets access-control-allow-credentials header'
  // hapijs/hapi test/cors.js: 'CORS handler() allows credentials'
  // hapi grants credentials to every origin under its default ['*']; ours refuses (difference 5),
  // at the server level and on a route whose options merge to '*' with credentials.
  t.throws(() => createCors({ allowCredentials: true }, { logger: quiet }), { name: 'CorsOptionsError', code: 'CORS_WILDCARD_WITH_CREDENTIALS' });
  t.throws(() => createCors({}, { logger: quiet }).route('GET', '/', { allowCredentials: true }), {
    name: 'CorsOptionsError',
    code: 'CORS_WILDCARD_WITH_CREDENTIALS',
  });
  const send = await hapiLike(t, { origin: [EXAMPLE], allowCredentials: true }, [{ method: 'GET', path: '/', handler: empty }]);
  const actual = await send('GET', '/', { Origin: EXAMPLE });
  t.equal(actual.status, 204);
  t.equal(actual.body, '');
  t.strictSame(actual.cors, { 'access-control-allow-origin': EXAMPLE, 'access-control-allow-credentials': 'true' });
  const res = await send('OPTIONS', '/', preflight(EXAMPLE, 'GET'));
  t.equal(res.status, 204);
  t.strictSame(grantOf(res), {
    'access-control-allow-origin': EXAMPLE,
    'access-control-allow-credentials': 'true',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  });
});

t.test("a route's credentials merge over the server's origin", async (t) => {
  // hapijs/hapi test/cors.js: 'CORS combines server defaults with route config'
  const OTHER = 'https://example.org';
  const send = await hapiLike(t, { origin: [EXAMPLE] }, [{ method: 'GET', path: '/', cors: { allowCredentials: true }, handler: empty }]);
  const grant = { 'access-control-allow-origin': EXAMPLE, 'access-control-allow-credentials': 'true' };
  // hapi's case sends Access-Control-Request-Method on the GETs too: a GET is never a preflight.
  const actual = await send('GET', '/', preflight(EXAMPLE, 'GET'));
  t.equal(actual.status, 204);
  t.strictSame(actual.cors, grant);
  const res = await send('OPTIONS', '/', preflight(EXAMPLE, 'GET'));
  t.equal(res.status, 204);
  t.equal(res.body, '');
  t.strictSame(grantOf(res), { ...grant, 'access-control-allow-methods': 'GET, HEAD, OPTIONS' });
  // One origin is the fixed kind: example.org gets the same answer, naming example.com, which its
  // browser refuses; hapi sends it nothing (difference 4).
  t.strictSame((await send('GET', '/', preflight(OTHER, 'GET'))).cors, grant);
  t.strictSame(grantOf(await send('OPTIONS', '/', preflight(OTHER, 'GET'))), grantOf(res));

  // With two origins the policy depends on the origin, and example.org gets nothing, as in hapi.
  const two = await hapiLike(t, { origin: [EXAMPLE, 'https://www.example.com'] }, [
    { method: 'GET', path: '/', cors: { allowCredentials: true }, handler: empty },
  ]);
  t.strictSame((await two('GET', '/', { Origin: OTHER })).cors, { vary: 'Origin' });
  const refused = await two('OPTIONS', '/', preflight(OTHER, 'GET'));
  t.equal(refused.status, 204, 'the same status, no grant (difference 1)');
  t.equal(refused.body, '');
  t.strictSame(refused.cors, { vary: 'Origin, Access-Control-Request-Headers' });
  t.strictSame((await two('GET', '/', { Origin: EXAMPLE })).cors, { ...grant, vary: 'Origin' });
});

t.test('a request without Origin, and a path no route declares', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS handles request without origin header'
  const send = await hapiLike(t, { origin: ['https://*.domain.com'] }, [{ method: 'GET', path: '/test', handler: empty }]);
  const unknown = await send('GET', '/');
  t.equal(unknown.status, 404);
  t.strictSame(unknown.cors, {}, "the application's 404, untouched (difference 10)");
  const known = await send('GET', '/test');
  t.equal(known.status, 204);
  t.strictSame(known.cors, { vary: 'Origin' }, 'rule A: no grant, and Vary: Origin for the caches (hapi varies too)');
});

t.test('with no route declared, every path is covered, 404s included', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS handles missing routes'
  const send = await hapiLike(t, { origin: ['https://*.domain.com'] }, []);
  const bare = await send('GET', '/');
  t.equal(bare.status, 404);
  t.strictSame(bare.cors, { vary: 'Origin' });
  const allowed = await send('GET', '/', { Origin: 'https://example.domain.com' });
  t.equal(allowed.status, 404);
  t.strictSame(allowed.cors, { 'access-control-allow-origin': 'https://example.domain.com', vary: 'Origin' });
});

t.test('the grant is set before the application answers, whatever it answers', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS uses server defaults in onRequest'
  // The application takes every request over before any routing, as the case's onRequest does.
  const skip: Handler = (_req, res) => res.end('skip');
  const send = await hapiLike(t, { origin: ['https://*.domain.com'] }, [], skip);
  const allowed = await send('GET', '/', { Origin: 'https://example.domain.com' });
  t.equal(allowed.status, 200);
  t.equal(allowed.body, 'skip');
  t.equal(allowed.cors['access-control-allow-origin'], 'https://example.domain.com');
  const other = await send('GET', '/', { Origin: 'https://example.domain.net' });
  t.equal(other.status, 200);
  t.equal(other.body, 'skip');
  t.strictSame(other.cors, { vary: 'Origin' });
});

// --------------------------------------------------------------------- CORS headers()

t.test('CORS on a route: the actual response and the preflight', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS headers() returns CORS origin (route level)'
  const send = await hapiLike(t, OFF, [{ method: 'GET', path: '/', cors: ON }]);
  const actual = await send('GET', '/', { Origin: EXAMPLE });
  t.equal(actual.status, 200);
  t.equal(actual.body, 'ok');
  t.strictSame(actual.cors, { 'access-control-allow-origin': '*' }, 'hapi echoes the origin (difference 3)');
  const res = await send('OPTIONS', '/', preflight(EXAMPLE, 'GET'));
  t.equal(res.status, 204);
  t.equal(res.body, '');
  t.equal(res.cors['access-control-allow-origin'], '*');
});

t.test('an origin of a list is echoed, on the actual response and the preflight', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS headers() returns CORS origin (GET)'
  const get = await hapiLike(t, { origin: ['https://x.example.com', 'https://www.example.com'] }, [{ method: 'GET', path: '/' }]);
  const actual = await get('GET', '/', { Origin: 'https://x.example.com' });
  t.equal(actual.status, 200);
  t.equal(actual.body, 'ok');
  t.strictSame(actual.cors, { 'access-control-allow-origin': 'https://x.example.com', vary: 'Origin' });

  // hapijs/hapi test/cors.js: 'CORS headers() returns CORS origin (OPTIONS)'
  const options = await hapiLike(t, { origin: ['https://test.example.com', 'https://www.example.com'] }, [{ method: 'GET', path: '/' }]);
  const res = await options('OPTIONS', '/', preflight('https://test.example.com', 'GET'));
  t.equal(res.status, 204);
  t.equal(res.body, '');
  t.equal(res.answer.headers['content-length'], undefined, 'a 204 has no Content-Length (RFC 9110 8.6)');
  t.strictSame(res.cors, {
    'access-control-allow-origin': 'https://test.example.com',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    vary: 'Origin, Access-Control-Request-Headers',
  });
});

t.test("exposed headers: the configured list, or the handler's own when it sets one", async (t) => {
  // hapijs/hapi test/cors.js: 'CORS headers() merges CORS access-control-expose-headers header'
  const own: Handler = (_req, res) => {
    res.setHeader('Access-Control-Expose-Headers', 'something');
    res.end('ok');
  };
  const send = await hapiLike(t, { exposedHeaders: [...HAPI_EXPOSED, 'xyz'] }, [
    { method: 'GET', path: '/', handler: own },
    { method: 'GET', path: '/plain' },
  ]);
  const plain = await send('GET', '/plain', { Origin: EXAMPLE });
  t.equal(plain.cors['access-control-expose-headers'], 'WWW-Authenticate, Server-Authorization, xyz');
  // hapi sends 'something,WWW-Authenticate,Server-Authorization,xyz' (difference 12).
  const res = await send('GET', '/', { Origin: EXAMPLE });
  t.equal(res.status, 200);
  t.equal(res.body, 'ok');
  t.equal(res.cors['access-control-expose-headers'], 'something');
});

t.test('CORS off on a route of a server where it is on: nothing at all', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS headers() returns no CORS headers when route CORS disabled'
  const send = await hapiLike(t, { origin: ['https://test.example.com', 'https://www.example.com'] }, [{ method: 'GET', path: '/', cors: OFF }]);
  for (const origin of ['https://x.example.com', 'https://www.example.com']) {
    const res = await send('GET', '/', { Origin: origin });
    t.equal(res.status, 200);
    t.equal(res.body, 'ok');
    t.strictSame(res.cors, {}, `${origin}: kind off, no Vary either (rule A)`);
  }
});

t.test("an origin matched exactly or by a pattern is echoed, and the handler's Vary is kept", async (t) => {
  // hapijs/hapi test/cors.js: 'CORS headers() returns matching CORS origin'
  // hapijs/hapi test/cors.js: 'CORS headers() returns matching CORS origin wildcard'
  // hapijs/hapi test/cors.js: 'CORS headers() returns matching CORS origin wildcard when more than one wildcard'
  // The handler adds to Vary, as docs/CONTRACT.md asks: hapi merges a Vary its handler sets whole.
  const tada: Handler = (_req, res) => {
    vary(res, 'x-test');
    res.end('Tada');
  };
  const one = ['https://test.example.com', 'https://www.example.com', 'https://*.a.com'];
  const two = ['https://test.example.com', 'https://www.example.com', 'https://*.b.com', 'https://*.a.com'];
  for (const [origins, origin] of [
    [one, 'https://www.example.com'],
    [one, 'https://www.a.com'],
    [two, 'https://www.a.com'],
  ] as const) {
    const send = await hapiLike(t, { origin: origins }, [{ method: 'GET', path: '/', handler: tada }]);
    const res = await send('GET', '/', { Origin: origin });
    t.equal(res.status, 200);
    t.equal(res.body, 'Tada');
    // hapi: 'x-test,origin,accept-encoding' (difference 11).
    t.strictSame(res.cors, { 'access-control-allow-origin': origin, vary: 'Origin, x-test' }, `${origin} under ${origins.length} entries`);
  }
  const send = await hapiLike(t, { origin: two }, [{ method: 'GET', path: '/', handler: tada }]);
  t.strictSame((await send('GET', '/', { Origin: 'https://www.c.com' })).cors, { vary: 'Origin, x-test' }, 'no pattern matches: no grant');
});

t.test("'*': every origin, without Vary: Origin", async (t) => {
  // hapijs/hapi test/cors.js: 'CORS headers() returns origin header when matching against *'
  // hapijs/hapi test/cors.js: "CORS headers() returns * origin header when matching against * and origin is ignored"
  t.throws(() => createCors({ origin: ['*'] }, { logger: quiet }), { name: 'CorsOptionsError', code: 'CORS_WILDCARD_IN_LIST' }, "hapi's ['*'] (difference 5)");
  const tada: Handler = (_req, res) => {
    res.setHeader('Vary', 'x-test');
    res.end('Tada');
  };
  const send = await hapiLike(t, { origin: '*' }, [{ method: 'GET', path: '/', handler: tada }]);
  const res = await send('GET', '/', { Origin: 'https://www.example.com' });
  t.equal(res.status, 200);
  t.equal(res.body, 'Tada');
  // hapi's ['*'] echoes 'https://www.example.com' and varies on origin; its 'ignore' is this answer.
  t.strictSame(res.cors, { 'access-control-allow-origin': '*', vary: 'x-test' });
});

t.test('an empty exposed-headers list sends no Access-Control-Expose-Headers', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS headers() does not set empty CORS expose headers'
  const send = await hapiLike(t, { exposedHeaders: [] }, [{ method: 'GET', path: '/' }]);
  const actual = await send('GET', '/', preflight(EXAMPLE, 'GET'));
  t.equal(actual.status, 200);
  t.strictSame(actual.cors, { 'access-control-allow-origin': '*' });
  const res = await send('OPTIONS', '/', preflight(EXAMPLE, 'GET'));
  t.equal(res.status, 204);
  t.equal(res.cors['access-control-allow-origin'], '*');
  t.equal(res.cors['access-control-expose-headers'], undefined);
});

t.test('without Origin, the answer under * is the same as with it', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS headers() skips CORS when missing origin header and wildcard does not ignore origin'
  // hapijs/hapi test/cors.js: 'CORS headers() uses CORS when missing origin header and wildcard ignores origin'
  // hapi's ['*'] sends nothing without Origin; ours sends '*' to everyone, as its 'ignore' does
  // (difference 3): a shared cache may hand this answer to any page (rule A).
  const send = await hapiLike(t, { origin: '*' }, [{ method: 'GET', path: '/' }]);
  const res = await send('GET', '/');
  t.equal(res.status, 200);
  t.strictSame(res.cors, { 'access-control-allow-origin': '*' });
});

// --------------------------------------------------------------------- CORS handler()

t.test('OPTIONS without Origin, or without Access-Control-Request-Method, is a plain OPTIONS', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS handler() errors on missing origin header'
  // hapijs/hapi test/cors.js: 'CORS handler() errors on missing access-control-request-method header'
  // hapijs/hapi test/cors.js: 'CORS handler() matches a wildcard origin if origin is ignored and missing'
  // hapi: 404 for the first two, a preflight grant for the third; ours: rows 1 and 2 (difference 2).
  const send = await hapiLike(t, ON, [{ method: 'GET', path: '/' }]);
  const plainOptions: Record<string, string>[] = [
    { 'Access-Control-Request-Method': 'GET' },
    { 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'Authorization' },
    { Origin: EXAMPLE },
  ];
  for (const headers of plainOptions) {
    const res = await send('OPTIONS', '/', headers);
    t.equal(res.status, 204, JSON.stringify(headers));
    t.equal(res.body, '');
    t.strictSame(res.cors, { allow: 'GET, HEAD, OPTIONS', 'access-control-allow-origin': '*' }, 'no Allow-Methods: not a preflight');
  }
});

t.test("a preflight to a path no route declares is the application's 404", async (t) => {
  // hapijs/hapi test/cors.js: 'CORS handler() errors on missing route'
  const send = await hapiLike(t, ON, [{ method: 'GET', path: '/known' }]);
  const res = await send('OPTIONS', '/', preflight(EXAMPLE, 'GET'));
  t.equal(res.status, 404);
  t.equal(res.body, 'Not Found');
  t.strictSame(res.cors, {});
  // hapi's case declares no route at all; here that covers every path (difference 10).
  const global = await hapiLike(t, ON, []);
  const covered = await global('OPTIONS', '/', preflight(EXAMPLE, 'GET'));
  t.equal(covered.status, 204);
  t.equal(covered.cors['access-control-allow-origin'], '*');
});

t.test('a preflight from an origin the route does not list gets no grant', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS handler() errors on mismatching origin header'
  const A = 'https://a.example.com';
  // hapi's origin: ['a'] as one origin: the fixed kind names it to everyone (difference 4).
  const fixed = await hapiLike(t, { origin: [A] }, [{ method: 'GET', path: '/' }]);
  const named = await fixed('OPTIONS', '/', preflight(EXAMPLE, 'GET'));
  t.equal(named.status, 204);
  t.equal(named.cors['access-control-allow-origin'], A, 'not the requester: its browser refuses');
  // Two origins: a refusal, 204 with no grant where hapi answers 200 with a message (difference 1).
  const list = await hapiLike(t, { origin: [A, 'https://b.example.com'] }, [{ method: 'GET', path: '/' }]);
  const refused = await list('OPTIONS', '/', preflight(EXAMPLE, 'GET'));
  t.equal(refused.status, 204);
  t.equal(refused.body, '');
  t.strictSame(refused.cors, { vary: 'Origin, Access-Control-Request-Headers' });
});

t.test("'*' with requested headers: they are reflected", async (t) => {
  // hapijs/hapi test/cors.js: 'CORS handler() matches a wildcard origin if origin is ignored and present'
  const send = await hapiLike(t, { origin: '*' }, [{ method: 'GET', path: '/' }]);
  const res = await send('OPTIONS', '/', preflight('https://test.example.com', 'GET', { 'Access-Control-Request-Headers': 'Authorization' }));
  t.equal(res.status, 204);
  // hapi answers its fixed header list (difference 7).
  t.strictSame(res.cors, {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    'access-control-allow-headers': 'Authorization',
    vary: 'Access-Control-Request-Headers',
  });
});

t.test("hapi's default header list as allowedHeaders: the list is granted whatever is asked", async (t) => {
  // hapijs/hapi test/cors.js: 'CORS handler() matches allowed headers'
  // hapijs/hapi test/cors.js: 'CORS handler() matches allowed headers (case insensitive)'
  // hapijs/hapi test/cors.js: 'CORS handler() matches allowed headers (Origin implicit)'
  // hapijs/hapi test/cors.js: 'CORS handler() errors on disallowed headers'
  const send = await hapiLike(t, { origin: '*', allowedHeaders: HAPI_HEADERS }, [{ method: 'GET', path: '/' }]);
  for (const asked of ['Authorization', 'authorization', 'Origin', 'X']) {
    const res = await send('OPTIONS', '/', preflight('https://test.example.com', 'GET', { 'Access-Control-Request-Headers': asked }));
    t.equal(res.status, 204, asked);
    // For 'X' hapi refuses the preflight; here the browser refuses X, missing from the list
    // (difference 7). Joined with ', ' (difference 8). Nothing reflected, nothing to vary on.
    t.strictSame(
      res.cors,
      {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, HEAD, OPTIONS',
        'access-control-allow-headers': 'Accept, Authorization, Content-Type, If-None-Match',
      },
      asked,
    );
  }
});

t.test('Origin listed in allowedHeaders; exposed headers go on the actual response only', async (t) => {
  // hapijs/hapi test/cors.js: 'CORS handler() matches allowed headers (Origin explicit)'
  const send = await hapiLike(t, { origin: '*', allowedHeaders: [...HAPI_HEADERS, 'Origin'], exposedHeaders: HAPI_EXPOSED }, [{ method: 'GET', path: '/' }]);
  const res = await send('OPTIONS', '/', preflight('https://test.example.com', 'GET', { 'Access-Control-Request-Headers': 'Origin' }));
  t.equal(res.status, 204);
  // hapi sends Access-Control-Expose-Headers on the preflight too (difference 9).
  t.strictSame(res.cors, {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    'access-control-allow-headers': 'Accept, Authorization, Content-Type, If-None-Match, Origin',
  });
  const actual = await send('GET', '/', { Origin: 'https://test.example.com' });
  t.strictSame(actual.cors, { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'WWW-Authenticate, Server-Authorization' });
});

t.test("a route's preflight status overrides the server's", async (t) => {
  // hapijs/hapi test/cors.js: 'CORS handler() responds with configured preflight status code'
  const send = await hapiLike(t, { optionsSuccessStatus: 204 }, [
    { method: 'GET', path: '/204', cors: ON },
    { method: 'GET', path: '/200', cors: { optionsSuccessStatus: 200 } },
  ]);
  const no = await send('OPTIONS', '/204', preflight('https://test.example.com', 'GET'));
  t.equal(no.status, 204);
  t.equal(no.answer.headers['content-length'], undefined);
  const yes = await send('OPTIONS', '/200', preflight('https://test.example.com', 'GET'));
  t.equal(yes.status, 200);
  t.equal(yes.body, '');
  t.equal(yes.answer.headers['content-length'], '0', 'any status but 204 says Content-Length: 0');
  t.equal(yes.cors['access-control-allow-origin'], '*');
});

// ------------------------------------------- per-method policies on one path (rule E)

t.test('CVE-2015-9236: CORS off on a DELETE whose path has a public GET', async (t) => {
  // hapijs/hapi#2840 (CVE-2015-9236, fixed in 11.0.0; no upstream test names it): the server has
  // CORS on and one non-GET route turns it off; before the fix the preflight answered with the
  // server's grant, so the browser sent the DELETE. lib/cors.js now decides a preflight by the route of
  // Access-Control-Request-Method, as rule E does.
  const STRANGER = 'https://evil.example.net';
  const send = await hapiLike(t, ON, [
    { method: 'GET', path: '/items' },
    { method: 'DELETE', path: '/items', cors: OFF },
  ]);
  const del = await send('OPTIONS', '/items', preflight(STRANGER, 'DELETE'));
  t.equal(del.status, 204);
  t.equal(del.body, '');
  // hapi: 200, 'CORS is disabled for this route' (difference 1).
  t.strictSame(del.cors, { vary: 'Access-Control-Request-Headers, Access-Control-Request-Method' }, 'no grant under the GET policy');
  const get = await send('OPTIONS', '/items', preflight(STRANGER, 'GET'));
  t.strictSame(
    get.cors,
    {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD, OPTIONS',
      vary: 'Access-Control-Request-Headers, Access-Control-Request-Method',
    },
    'the GET grant never lists DELETE: a browser caches the listed methods (difference 6)',
  );
  const actual = await send('DELETE', '/items', { Origin: STRANGER });
  t.equal(actual.body, 'ok', 'CORS is no access control: the handler runs');
  t.strictSame(actual.cors, {}, 'the DELETE by its own policy: off');
  t.strictSame((await send('HEAD', '/items', { Origin: STRANGER })).cors, { 'access-control-allow-origin': '*' }, 'HEAD follows GET');
  const plain = await send('OPTIONS', '/items', { Origin: STRANGER });
  t.strictSame(plain.cors, { allow: 'GET, HEAD, DELETE, OPTIONS', 'access-control-allow-origin': '*' }, "plain OPTIONS: GET's policy, every method in Allow");
});

t.test('a public GET and a credentialed DELETE for listed origins on one path', async (t) => {
  // hapijs/hapi lib/cors.js, the preflight handler's route lookup by Access-Control-Request-Method
  // (no upstream test): credentials on one route of a path only.
  const APP = 'https://app.example.com';
  const ADMIN = 'https://admin.example.com';
  const STRANGER = 'https://evil.example.net';
  const send = await hapiLike(t, ON, [
    { method: 'GET', path: '/posts' },
    { method: 'DELETE', path: '/posts', cors: { origin: [APP, ADMIN], allowCredentials: true, maxAge: 60 } },
  ]);
  const WRITE_VARY = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';
  const granted = await send('OPTIONS', '/posts', preflight(APP, 'DELETE'));
  t.equal(granted.status, 204);
  t.strictSame(granted.cors, {
    'access-control-allow-origin': APP,
    'access-control-allow-methods': 'DELETE',
    'access-control-max-age': '60',
    'access-control-allow-credentials': 'true',
    vary: WRITE_VARY,
  });
  const refused = await send('OPTIONS', '/posts', preflight(STRANGER, 'DELETE'));
  t.equal(refused.status, 204);
  t.strictSame(refused.cors, { vary: WRITE_VARY }, 'the GET policy would grant the stranger; the DELETE policy decides');
  const read = await send('OPTIONS', '/posts', preflight(APP, 'GET'));
  t.strictSame(
    grantOf(read),
    { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD, OPTIONS' },
    'no credentials, no DELETE in the GET grant',
  );
  t.strictSame((await send('DELETE', '/posts', { Origin: ADMIN })).cors, {
    'access-control-allow-origin': ADMIN,
    'access-control-allow-credentials': 'true',
    vary: 'Origin',
  });
  t.strictSame((await send('DELETE', '/posts', { Origin: STRANGER })).cors, { vary: 'Origin' });
  t.strictSame((await send('GET', '/posts', { Origin: STRANGER })).cors, { 'access-control-allow-origin': '*' });
});

t.test('a preflight for the method of another route of the path: that route decides, with its headers', async (t) => {
  // hapijs/hapi lib/cors.js, the preflight handler's route lookup by Access-Control-Request-Method
  // (no upstream test): additionalHeaders and exposedHeaders on one route of a path each.
  const READER = 'https://reader.example.com';
  const EDITOR = 'https://editor.example.com';
  const send = await hapiLike(t, OFF, [
    { method: 'GET', path: '/doc', cors: { origin: [READER, EDITOR], exposedHeaders: ['X-Total'] } },
    { method: 'PUT', path: '/doc', cors: { origin: [EDITOR, 'https://admin.example.com'], allowedHeaders: ['Content-Type', 'X-Csrf-Token'] } },
  ]);
  const VARY = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';
  const put = await send('OPTIONS', '/doc', preflight(EDITOR, 'PUT', { 'Access-Control-Request-Headers': 'content-type, x-csrf-token' }));
  t.equal(put.status, 204);
  t.strictSame(put.cors, {
    'access-control-allow-origin': EDITOR,
    'access-control-allow-methods': 'PUT',
    'access-control-allow-headers': 'Content-Type, X-Csrf-Token',
    vary: 'Origin, Access-Control-Request-Method',
  });
  const readerPut = await send('OPTIONS', '/doc', preflight(READER, 'PUT'));
  t.strictSame(readerPut.cors, { vary: 'Origin, Access-Control-Request-Method' }, 'the GET policy lists the reader; the PUT policy does not');
  const get = await send('OPTIONS', '/doc', preflight(READER, 'GET', { 'Access-Control-Request-Headers': 'x-custom' }));
  t.strictSame(get.cors, {
    'access-control-allow-origin': READER,
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    'access-control-allow-headers': 'x-custom',
    vary: VARY,
  });
  t.strictSame(
    (await send('GET', '/doc', { Origin: READER })).cors,
    { 'access-control-allow-origin': READER, 'access-control-expose-headers': 'X-Total', vary: 'Origin' },
    "the GET's exposed headers",
  );
  t.strictSame((await send('PUT', '/doc', { Origin: EDITOR })).cors, { 'access-control-allow-origin': EDITOR, vary: 'Origin' }, 'none on the PUT');
});

t.test("a preflight for a method the path does not declare: the path's OPTIONS policy, listing only its methods", async (t) => {
  // hapijs/hapi test/cors.js: 'CORS handler() errors on missing route', on a known path: hapi finds
  // no route for the method and answers 404 (difference 13).
  const send = await hapiLike(t, ON, [
    { method: 'GET', path: '/items' },
    { method: 'DELETE', path: '/items', cors: { origin: ['https://app.example.com', 'https://admin.example.com'] } },
  ]);
  const res = await send('OPTIONS', '/items', preflight('https://app.example.com', 'PATCH'));
  t.equal(res.status, 204);
  t.strictSame(grantOf(res), { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD, OPTIONS' }, 'no PATCH: the browser stops there');
  const actual = await send('PATCH', '/items', { Origin: 'https://app.example.com' });
  t.equal(actual.status, 405, "the application's answer");
});

t.test('two CORS policies for one method of one path are refused; different methods may differ', async (t) => {
  // hapijs/hapi test/cors.js at 8358da17 (before 11.0.0, since removed): 'CORS errors on different
  // headers on multiple routes with same path'. hapi 10 refused different options on different
  // methods of a path; rule E allows them and refuses only two for the same method.
  const cors = createCors({}, { logger: quiet }).route('GET', '/a', { origin: ['https://a.example.com'] });
  t.doesNotThrow(() => cors.route('POST', '/a', { origin: ['https://b.example.com'] }));
  t.throws(() => cors.route('GET', '/a', { origin: ['https://b.example.com'] }), { name: 'RouteRegistrationError', code: 'CORS_ROUTE_CONFLICT' });
});
