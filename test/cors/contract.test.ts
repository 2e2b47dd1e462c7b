/**
 * DESIGN section 3, row by row, under every kind of origin policy, over real sockets. Each
 * policy states the facts its answers follow from; each row states the exact CORS headers
 * (and, by exact comparison, the absence of every other one).
 */
import t from 'tap';

import { createCors, type CorsOptions } from '@lib/cors/standalone';

import { captureLogger, corsHeadersOf, deepFreeze, echoApp, serve } from '../helpers/http.js';

interface PolicyCase {
  name: string;
  options: CorsOptions;
  allowed?: string;
  denied?: string;
  /** The `Access-Control-Allow-Origin` sent on every response (rule A), if the policy has one. */
  constant?: string;
  /** The policy depends on Origin: `Vary: Origin` on every response. */
  varies: boolean;
}

const common = { exposedHeaders: ['X-Total'], maxAge: 600 } satisfies CorsOptions;

const policies: PolicyCase[] = [
  { name: "'*' (the default)", options: { ...common }, allowed: 'https://anyone.test', constant: '*', varies: false },
  { name: 'one origin', options: { ...common, origin: 'https://app.example.com' }, allowed: 'https://app.example.com', denied: 'https://evil.example.com', constant: 'https://app.example.com', varies: false },
  { name: 'a list, with credentials', options: { ...common, origin: ['https://a.example.com', 'https://b.example.com'], allowCredentials: true }, allowed: 'https://b.example.com', denied: 'https://c.example.com', varies: true },
  { name: 'a wildcard pattern', options: { ...common, origin: 'https://*.example.com' }, allowed: 'https://api.eu.example.com', denied: 'https://example.com', varies: true },
  { name: 'a RegExp', options: { ...common, origin: /^https:\/\/(?:www\.)?example\.org$/ }, allowed: 'https://www.example.org', denied: 'https://example.org.evil.net', varies: true },
  { name: 'an async function', options: { ...common, origin: async (origin: string) => origin.endsWith('.trusted.test') }, allowed: 'https://x.trusted.test', denied: 'https://trusted.test.evil', varies: true },
  { name: 'a sync function', options: { ...common, origin: (origin: string) => origin === 'http://localhost:5173' }, allowed: 'http://localhost:5173', denied: 'http://localhost:5174', varies: true },
  { name: 'reflection (true)', options: { ...common, origin: true }, allowed: 'https://whoever.test', denied: 'null', varies: true },
  { name: 'CORS off (false)', options: { ...common, origin: false }, denied: 'https://app.example.com', varies: false },
];

const ALLOW = 'GET, HEAD, POST, OPTIONS';

for (const policy of policies) {
  t.test(`policy: ${policy.name}`, async (t) => {
    const { logger, warnings, errors } = captureLogger();
    const cors = createCors(deepFreeze(policy.options), { logger }).route(['GET', 'POST'], '/users/:id');
    const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
    t.teardown(server.close);

    const always = { ...(policy.constant && { 'access-control-allow-origin': policy.constant }), ...(policy.varies && { vary: 'Origin' }) };
    const credentials = policy.options.allowCredentials ? { 'access-control-allow-credentials': 'true' } : {};
    const granted = (origin: string) => ({ ...always, 'access-control-allow-origin': policy.constant ?? origin, ...credentials });
    const preflightVary = policy.varies ? 'Origin, Access-Control-Request-Headers' : 'Access-Control-Request-Headers';

    t.test('row 1: plain OPTIONS gets 204, Allow and the always-on headers', async (t) => {
      const answer = await server.send('OPTIONS', '/users/7');
      t.equal(answer.status, 204);
      t.equal(answer.headers['content-length'], '0');
      t.same(corsHeadersOf(answer), { allow: ALLOW, ...always });
    });

    t.test('row 5: a request without Origin reaches the handler with the always-on headers only', async (t) => {
      const answer = await server.send('GET', '/users/7?full=1');
      t.equal(answer.body, 'app saw GET /users/7?full=1');
      t.same(corsHeadersOf(answer), always);
    });

    t.test('outside the covered paths nothing is touched', async (t) => {
      for (const method of ['GET', 'OPTIONS']) {
        const answer = await server.send(method, '/posts', { Origin: policy.allowed ?? 'https://x.test', 'Access-Control-Request-Method': 'GET' });
        t.equal(answer.body, `app saw ${method} /posts`);
        t.same(corsHeadersOf(answer), {});
      }
    });

    if (policy.allowed !== undefined) {
      const origin = policy.allowed;
      t.test('row 2: OPTIONS with an allowed Origin gets Allow and the actual-response headers', async (t) => {
        const answer = await server.send('OPTIONS', '/users/7', { Origin: origin });
        t.equal(answer.status, 204);
        t.same(corsHeadersOf(answer), { allow: ALLOW, ...granted(origin), 'access-control-expose-headers': 'X-Total' });
      });

      t.test('row 3: an actual request from an allowed origin reaches the handler with the grant', async (t) => {
        const answer = await server.send('POST', '/users/7', { Origin: origin });
        t.equal(answer.body, 'app saw POST /users/7');
        t.same(corsHeadersOf(answer), { ...granted(origin), 'access-control-expose-headers': 'X-Total' });
      });

      t.test('row 4: a preflight from an allowed origin is answered with the grant', async (t) => {
        const answer = await server.send('OPTIONS', '/users/7', { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-foo' });
        t.equal(answer.status, 204);
        t.equal(answer.body, '');
        t.equal(answer.headers['content-length'], '0');
        t.same(corsHeadersOf(answer), {
          ...granted(origin),
          'access-control-allow-methods': ALLOW,
          'access-control-allow-headers': 'content-type,x-foo',
          'access-control-max-age': '600',
          vary: preflightVary,
        });
      });
    }

    if (policy.denied !== undefined) {
      const origin = policy.denied;
      t.test('row 2, refused origin: Allow and the always-on headers, no grant', async (t) => {
        const answer = await server.send('OPTIONS', '/users/7', { Origin: origin });
        t.equal(answer.status, 204);
        t.same(corsHeadersOf(answer), { allow: ALLOW, ...always });
      });

      t.test('row 3, refused origin: the handler still runs (CORS is no access control), no grant', async (t) => {
        const answer = await server.send('GET', '/users/7', { Origin: origin });
        t.equal(answer.body, 'app saw GET /users/7');
        t.same(corsHeadersOf(answer), always);
      });

      t.test('row 4, refused origin: the same status, no grant headers', async (t) => {
        const answer = await server.send('OPTIONS', '/users/7', { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-foo' });
        t.equal(answer.status, 204);
        t.same(corsHeadersOf(answer), { ...always, vary: preflightVary });
      });
    }

    t.same(warnings, []);
    t.same(errors, []);
  });
}

t.test('the grant is set before the handler, so its errors are readable too', async (t) => {
  const cors = createCors({ origin: ['https://a.test', 'https://b.test'] }).route('GET', '/boom');
  const server = await serve((req, res) =>
    cors.handle(req, res, () => {
      res.statusCode = 500;
      res.end('failed');
    }),
  );
  t.teardown(server.close);
  const answer = await server.send('GET', '/boom', { Origin: 'https://b.test' });
  t.equal(answer.status, 500);
  t.same(corsHeadersOf(answer), { 'access-control-allow-origin': 'https://b.test', vary: 'Origin' });
});

t.test('Vary is appended to, never replaced', async (t) => {
  const cors = createCors({ origin: ['https://a.test', 'https://b.test'] }).route('GET', '/');
  const server = await serve((req, res) => {
    res.setHeader('Vary', 'Accept-Encoding');
    cors.handle(req, res, () => {
      res.setHeader('Vary', [String(res.getHeader('Vary')), 'Accept-Language'].join(', '));
      res.end();
    });
  });
  t.teardown(server.close);
  const actual = await server.send('GET', '/', { Origin: 'https://a.test' });
  t.equal(actual.headers.vary, 'Accept-Encoding, Origin, Accept-Language');
  const preflight = await server.send('OPTIONS', '/', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'GET' });
  t.equal(preflight.headers.vary, 'Accept-Encoding, Origin, Access-Control-Request-Headers');
});
