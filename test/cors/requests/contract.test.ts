/**
 * docs/CONTRACT.md, section 3, row by row, under every kind of origin policy (section 2), over
 * real sockets. Each policy states the facts its answers follow from; each row states the exact
 * CORS headers (and, by exact comparison, the absence of every other one).
 */
import t from 'tap';

import { createCors } from '@lib/cors/standalone';

import { captureLogger, corsHeadersOf, deepFreeze, echoApp, serve } from '../../helpers/http.js';
import { POLICY_CASES } from '../../helpers/policy-kinds.js';

const ALLOW = 'GET, HEAD, POST, OPTIONS';

for (const policy of POLICY_CASES) {
  t.test(`policy: ${policy.name}`, async (t) => {
    const { logger, warnings, errors } = captureLogger();
    const cors = createCors(deepFreeze(policy.options), { logger }).route(['GET', 'POST'], '/users/:id');
    const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
    t.teardown(server.close);

    const constant = policy.kind === 'any' ? '*' : policy.kind === 'fixed' ? (policy.allowed as string) : undefined;
    const ruleB = (origin: string) => ({
      'access-control-allow-origin': origin,
      ...(policy.options.allowCredentials && { 'access-control-allow-credentials': 'true' }),
      'access-control-expose-headers': 'X-Total',
    });
    // Rule A: a constant policy sends all of rule B to everyone; a dynamic one varies on Origin.
    const always = constant !== undefined ? ruleB(constant) : policy.kind === 'dynamic' ? { vary: 'Origin' } : {};
    const granted = (origin: string) => (constant !== undefined ? always : { vary: 'Origin', ...ruleB(origin) });
    const preflightVary = policy.kind === 'dynamic' ? 'Origin, Access-Control-Request-Headers' : 'Access-Control-Request-Headers';
    const preflightGrant = (origin: string) => ({
      'access-control-allow-origin': constant ?? origin,
      ...(policy.options.allowCredentials && { 'access-control-allow-credentials': 'true' }),
      'access-control-allow-methods': ALLOW,
      'access-control-allow-headers': 'content-type,x-foo',
      'access-control-max-age': '600',
      vary: preflightVary,
    });

    t.test('row 1: plain OPTIONS gets 204 without Content-Length, Allow and rule A', async (t) => {
      const answer = await server.send('OPTIONS', '/users/7');
      t.equal(answer.status, 204);
      t.notOk('content-length' in answer.headers, 'RFC 9110 8.6: no Content-Length in a 204');
      t.same(corsHeadersOf(answer), { allow: ALLOW, ...always });
    });

    t.test('row 5: a request without Origin reaches the handler with rule A only', async (t) => {
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
      t.test('row 2: OPTIONS with an allowed Origin gets Allow and rule B', async (t) => {
        const answer = await server.send('OPTIONS', '/users/7', { Origin: origin });
        t.equal(answer.status, 204);
        t.notOk('content-length' in answer.headers);
        t.same(corsHeadersOf(answer), { allow: ALLOW, ...granted(origin) });
      });

      t.test('row 3: an actual request from an allowed origin reaches the handler with the grant', async (t) => {
        const answer = await server.send('POST', '/users/7', { Origin: origin });
        t.equal(answer.body, 'app saw POST /users/7');
        t.same(corsHeadersOf(answer), granted(origin));
      });

      t.test('row 4: a preflight from an allowed origin is answered with the grant', async (t) => {
        const answer = await server.send('OPTIONS', '/users/7', {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type,x-foo',
        });
        t.equal(answer.status, 204);
        t.equal(answer.body, '');
        t.notOk('content-length' in answer.headers);
        t.same(corsHeadersOf(answer), preflightGrant(origin));
      });
    }

    if (policy.denied !== undefined) {
      const origin = policy.denied;
      // Under a fixed policy a stranger gets the very same answer: its browser fails the CORS check.
      const refusal = constant !== undefined;
      t.test(`row 2, refused origin: Allow and rule A${refusal ? ' (the same answer as everyone)' : ', no grant'}`, async (t) => {
        const answer = await server.send('OPTIONS', '/users/7', { Origin: origin });
        t.equal(answer.status, 204);
        t.same(corsHeadersOf(answer), { allow: ALLOW, ...always });
      });

      t.test('row 3, refused origin: the handler still runs (CORS is no access control), no grant for it', async (t) => {
        const answer = await server.send('GET', '/users/7', { Origin: origin });
        t.equal(answer.body, 'app saw GET /users/7');
        t.same(corsHeadersOf(answer), always);
        t.not(answer.headers['access-control-allow-origin'], origin, "the browser's CORS check fails");
      });

      t.test('row 4, refused origin: the same status, no grant for it', async (t) => {
        const answer = await server.send('OPTIONS', '/users/7', {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type,x-foo',
        });
        t.equal(answer.status, 204);
        t.same(corsHeadersOf(answer), refusal ? preflightGrant(origin) : { vary: preflightVary });
        t.not(answer.headers['access-control-allow-origin'], origin, "the browser's CORS check fails");
      });
    }

    // Queued after the rows, so it runs once they have sent their requests.
    t.test('nothing was logged', async (t) => {
      t.same(warnings, []);
      t.same(errors, []);
    });
  });
}

t.test('a preflight answered with 200 says Content-Length: 0; plain OPTIONS stays 204 without it', async (t) => {
  for (const touched of [false, true]) {
    const cors = createCors({ optionsSuccessStatus: 200 }).route('PUT', '/');
    const server = await serve((req, res) => {
      if (touched) res.setHeader('X-Earlier', '1');
      cors.handle(req, res, () => echoApp(req, res));
    });
    const preflight = await server.send('OPTIONS', '/', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'PUT' });
    t.equal(preflight.status, 200);
    t.equal(preflight.headers['content-length'], '0', touched ? 'set header by header' : 'one writeHead()');
    t.notOk('transfer-encoding' in preflight.headers);
    const options = await server.send('OPTIONS', '/');
    t.equal(options.status, 204);
    t.notOk('content-length' in options.headers);
    await server.close();
  }
});

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
