/**
 * Property-based: explain() reports exactly what a request gets. For generated requests over every
 * policy kind, the status and CORS headers explain() reports are those of the real response over
 * a socket, and a request explain() says the engine hands on reaches the application. The origin
 * function is asked exactly once per real request (when it is asked at all), with debug on and
 * with debug off.
 */
import t from 'tap';
import fc from 'fast-check';

import { createCors, type CorsOptions } from '@lib/cors/standalone';

import { echoApp, serve } from '../../helpers/http.js';
import { POLICY_CASES } from '../../helpers/policy-kinds.js';

const quiet = { warn: () => {}, error: () => {} };

/** The headers the engine may write: what explain() reports is compared with these of the real answer. */
function engineHeaders(headers: Record<string, string | string[] | undefined>, engineAnswered: boolean): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const ours = name.startsWith('access-control-') || name === 'vary' || name === 'allow' || (engineAnswered && name === 'content-length');
    if (ours) picked[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return picked;
}

const POLICIES: { name: string; options: CorsOptions<unknown>; allowed?: string | undefined; denied?: string | undefined }[] = [
  ...POLICY_CASES,
  {
    name: 'status 200, private network',
    options: { origin: ['https://a.test', 'https://b.test'], optionsSuccessStatus: 200, allowPrivateNetwork: true },
    allowed: 'https://a.test',
  },
  { name: 'preflightContinue', options: { origin: 'https://a.test', preflightContinue: true, allowedHeaders: ['X-A'] }, allowed: 'https://a.test' },
];

const methods = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH');
const paths = fc.constantFrom('/users/7', '/users/7?full=1', '/items', '/nowhere');

for (const policy of POLICIES) {
  t.test(`${policy.name}: explain() is the real answer`, async (t) => {
    const cors = createCors(policy.options, { logger: quiet }).route(['GET', 'POST'], '/users/:id').route('PUT', '/items', { maxAge: 30 });
    const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
    t.teardown(server.close);
    const origins = fc.constantFrom(undefined, policy.allowed, policy.denied, 'null', 'https://other.test', 'not an origin');
    await fc.assert(
      fc.asyncProperty(
        methods,
        paths,
        origins,
        fc.constantFrom(undefined, 'GET', 'PUT', 'DELETE'),
        fc.constantFrom(undefined, 'x-a', 'content-type, x-b', 'bad header', ''),
        fc.constantFrom(undefined, 'true'),
        async (method, url, origin, requestMethod, requestHeaders, privateNetwork) => {
          const headers: Record<string, string> = {};
          if (origin !== undefined) headers.origin = origin;
          if (requestMethod !== undefined) headers['access-control-request-method'] = requestMethod;
          if (requestHeaders !== undefined) headers['access-control-request-headers'] = requestHeaders;
          if (privateNetwork !== undefined) headers['access-control-request-private-network'] = privateNetwork;
          const explanation = await cors.explain({ method, url, headers });
          const real = await server.send(method, url, headers);
          const reachedApp = real.body.startsWith('app saw');
          if (!explanation.covered) {
            t.ok(reachedApp, `${method} ${url}: uncovered, so the application answers`);
            t.same(engineHeaders(real.headers, false), {}, `${method} ${url}: nothing of the engine's`);
            return;
          }
          const engineAnswered = explanation.status !== undefined;
          t.equal(reachedApp, !engineAnswered, `${method} ${url} ${JSON.stringify(headers)}: handed on exactly when explain() says so`);
          if (engineAnswered) t.equal(real.status, explanation.status, 'the status explain() reports');
          t.same(
            engineHeaders(real.headers, engineAnswered),
            explanation.headers,
            `${method} ${url} ${JSON.stringify(headers)}: the headers explain() reports`,
          );
        },
      ),
      { numRuns: 150 },
    );
  });
}

t.test('the origin function is asked once per request, with debug on and off', async (t) => {
  for (const debug of [false, true]) {
    for (const kind of ['sync', 'async'] as const) {
      let calls = 0;
      const allowed = 'https://a.test';
      const origin =
        kind === 'sync'
          ? (candidate: string) => {
              calls++;
              return candidate === allowed;
            }
          : async (candidate: string) => {
              calls++;
              return candidate === allowed;
            };
      const cors = createCors({ origin }, { logger: quiet, debug }).route(['GET', 'POST'], '/users/:id');
      const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
      await fc.assert(
        fc.asyncProperty(
          methods,
          fc.constantFrom(undefined, allowed, 'https://b.test', 'null', 'not an origin'),
          fc.constantFrom(undefined, 'PUT'),
          async (method, requestOrigin, requestMethod) => {
            const headers: Record<string, string> = {};
            if (requestOrigin !== undefined) headers.origin = requestOrigin;
            if (requestMethod !== undefined) headers['access-control-request-method'] = requestMethod;
            const before = calls;
            await server.send(method, '/users/1', headers);
            // Only well-formed origins reach the function ('null' must be listed; a malformed value never is).
            const asked = requestOrigin === allowed || requestOrigin === 'https://b.test';
            t.equal(calls - before, asked ? 1 : 0, `debug ${debug}, ${kind}: ${method} from ${requestOrigin}`);
          },
        ),
        { numRuns: 60 },
      );
      await server.close();
    }
  }
});
