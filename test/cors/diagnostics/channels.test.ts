/**
 * The diagnostics channels (issue 25, point 5): each decision on `lib-cors:decision` with its
 * kind, route pattern, origin, verdict and reason code; each configuration on `lib-cors:config`.
 * Published from the engine whatever the entry point (the runtimes suite checks Deno, Bun and
 * workerd publish what Node does); the cost without a subscriber is counted in bench/.
 */
import diagnosticsChannel from 'node:diagnostics_channel';

import { CONFIG_CHANNEL, type CorsConfigMessage, type CorsDecisionMessage, DECISION_CHANNEL } from '@lib/cors/standalone';
import { createCors } from '@lib/cors/standalone';
import fastifyCors from '@lib/cors/fastify';
import Fastify from 'fastify';
import t from 'tap';

import { fakeExchange } from '../../helpers/fake-http.js';

/** Messages published on `name` while `run` runs. */
async function published<M>(name: string, run: () => unknown): Promise<M[]> {
  const seen: M[] = [];
  const listener = (message: unknown) => seen.push(message as M);
  diagnosticsChannel.subscribe(name, listener);
  try {
    await run();
  } finally {
    diagnosticsChannel.unsubscribe(name, listener);
  }
  return seen;
}

const APP = 'https://app.example.com';
const cors = createCors({ origin: [APP, 'https://www.example.com'] }, { source: 'the channels test' })
  .route(['GET', 'PUT'], '/users/:id')
  .route('DELETE', '/users/:id', { origin: ['https://admin.example.com', 'https://ops.example.com'] });

const ROWS: { name: string; method: string; headers: Record<string, string>; expected: Partial<CorsDecisionMessage> }[] = [
  {
    name: 'an allowed preflight',
    method: 'OPTIONS',
    headers: { origin: APP, 'access-control-request-method': 'PUT' },
    expected: { kind: 'preflight', method: 'PUT', route: '/users/:id', origin: APP, verdict: 'allowed', reason: 'allowed', status: 204 },
  },
  {
    name: "a preflight its method's policy refuses",
    method: 'OPTIONS',
    headers: { origin: APP, 'access-control-request-method': 'DELETE' },
    expected: { kind: 'preflight', method: 'DELETE', verdict: 'refused', reason: 'origin-not-allowed' },
  },
  {
    name: 'a read from a stranger',
    method: 'GET',
    headers: { origin: 'https://evil.example.com' },
    expected: { kind: 'actual', method: 'GET', verdict: 'refused', reason: 'origin-not-allowed', status: undefined },
  },
  { name: 'a request without Origin', method: 'GET', headers: {}, expected: { kind: 'actual', origin: undefined, verdict: 'not-cors', reason: 'not-cors' } },
];

for (const row of ROWS) {
  t.test(`lib-cors:decision: ${row.name}`, async (t) => {
    const exchange = fakeExchange(row.method, '/users/7', row.headers);
    const messages = await published<CorsDecisionMessage>(DECISION_CHANNEL, () => cors.handle(exchange.req, exchange.res, () => {}));
    t.equal(messages.length, 1);
    t.match(messages[0], { source: 'the channels test', ...row.expected });
    t.equal(messages[0]!.request, exchange.req, 'the request, as an origin function gets it');
  });
}

t.test('lib-cors:decision: nothing off the covered paths, nothing once unsubscribed', async (t) => {
  const off = fakeExchange('GET', '/elsewhere', { origin: APP });
  t.same(await published(DECISION_CHANNEL, () => cors.handle(off.req, off.res, () => {})), []);
  const seen: unknown[] = [];
  const listener = (message: unknown) => seen.push(message);
  diagnosticsChannel.subscribe(DECISION_CHANNEL, listener);
  diagnosticsChannel.unsubscribe(DECISION_CHANNEL, listener);
  const on = fakeExchange('GET', '/users/7', { origin: APP });
  cors.handle(on.req, on.res, () => {});
  t.same(seen, []);
});

t.test('lib-cors:config: the engine when built, and each reconfigure(), normalised; not a refused one', async (t) => {
  const messages = await published<CorsConfigMessage>(CONFIG_CHANNEL, () => {
    const engine = createCors({ origin: 'https://a.example.com' }, { source: 'configured' }).route('GET', '/a').route('GET', '/b');
    engine.reconfigure({ origin: ['https://b.example.com', 'https://c.example.com'], allowedMethods: ['GET', 'GET'] });
    t.throws(() => engine.reconfigure({ origin: 'https://bad.example.com/' }));
  });
  t.match(messages, [
    { source: 'configured', event: 'configure', routes: 0, options: { origin: 'https://a.example.com', allowCredentials: false } },
    { source: 'configured', event: 'reconfigure', routes: 2, options: { origin: ['https://b.example.com', 'https://c.example.com'], allowedMethods: ['GET'] } },
  ]);
  t.equal(messages.length, 2);
});

t.test('fastify: a route with a constant answer publishes too while someone subscribes', async (t) => {
  const app = Fastify();
  await app.register(fastifyCors, { origin: APP });
  app.get('/open', async () => 'ok');
  await app.ready();
  t.teardown(() => app.close());
  const messages = await published<CorsDecisionMessage>(DECISION_CHANNEL, () => app.inject({ method: 'GET', url: '/open', headers: { origin: APP } }));
  t.match(messages, [{ source: '@lib/cors/fastify', kind: 'actual', route: '/open', verdict: 'allowed' }]);
});
