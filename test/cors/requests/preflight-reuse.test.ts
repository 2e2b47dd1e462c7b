/**
 * Property-based: a preflight's answer depends on that preflight alone. The engine keeps the
 * last granted answer that reflected a header list and hands it to the next preflight asking
 * for the same list (core/path-table.ts, grantedPreflight()); here random sequences of
 * preflights over paths that share a policy, and paths that do not, each get exactly the answer
 * a fresh engine, which has answered nothing before, gives the same request.
 */
import fc from 'fast-check';
import t from 'tap';

import { createCors, type CorsOptions } from '@lib/cors/standalone';

import { fakeExchange } from '../../helpers/fake-http.js';

const LISTED: CorsOptions = { origin: ['https://a.test', 'https://b.test'] };
const PRIVATE: CorsOptions = { origin: ['https://a.test', 'https://b.test'], allowPrivateNetwork: true };
const FIXED_HEADERS: CorsOptions = { allowedHeaders: ['x-fixed'] };

const build = () =>
  createCors({ origin: 'https://a.test', maxAge: 600 })
    .route(['GET', 'PUT'], '/a/:id')
    .route(['GET', 'PUT'], '/b')
    .route('PUT', '/list/:id', LISTED)
    .route('DELETE', '/private', PRIVATE)
    .route('PATCH', '/fixed', FIXED_HEADERS);

type Engine = ReturnType<typeof build>;

interface Preflight {
  path: string;
  method: string;
  origin: string;
  list: string | undefined;
  privateNetwork: boolean;
}

function answer(engine: Engine, { path, method, origin, list, privateNetwork }: Preflight) {
  const headers: Record<string, string> = { origin, 'access-control-request-method': method };
  if (list !== undefined) headers['access-control-request-headers'] = list;
  if (privateNetwork) headers['access-control-request-private-network'] = 'true';
  const exchange = fakeExchange('OPTIONS', path, headers);
  engine.handle(exchange.req, exchange.res, () => {});
  return { status: exchange.res.statusCode, headers: [...exchange.headers].sort() };
}

// Lists of one length that differ, an invalid one, an empty one, and none.
const LISTS = ['x-a', 'x-b', 'x-a,x-b', 'x-b,x-a', 'content-type', 'x a', '', undefined];
const preflight = fc.record({
  path: fc.constantFrom('/a/1', '/a/2', '/b', '/list/7', '/private', '/fixed'),
  method: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH'),
  origin: fc.constantFrom('https://a.test', 'https://b.test', 'https://c.test'),
  list: fc.constantFrom(...LISTS),
  privateNetwork: fc.boolean(),
});

t.test('each preflight gets what a fresh engine answers it, whatever came before', async (t) => {
  fc.assert(
    fc.property(fc.array(preflight, { minLength: 2, maxLength: 12 }), (sequence) => {
      const engine = build();
      for (const request of sequence) t.strictSame(answer(engine, request), answer(build(), request));
    }),
    { numRuns: 150 },
  );
});

t.test('regression: the same list asked again, then another list of the same length, on one path', async (t) => {
  const engine = build();
  const asked = (list: string) => answer(engine, { path: '/b', method: 'PUT', origin: 'https://a.test', list, privateNetwork: false });
  const reflected = (list: string) => asked(list).headers.find(([name]) => name === 'access-control-allow-headers')?.[1];
  t.equal(reflected('x-a'), 'x-a');
  t.equal(reflected('x-a'), 'x-a');
  t.equal(reflected('x-b'), 'x-b');
  t.equal(reflected('x a'), undefined);
  t.equal(reflected('x-b'), 'x-b');
});
