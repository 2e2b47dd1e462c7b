/**
 * Property-based, rule E: random paths whose methods have their own policies, random preflights.
 * A preflight is granted exactly when the policy of the method it asks for grants the origin, and
 * no method it lists is one whose own policy would refuse that origin or answer it with other
 * credentials. The model below is written from docs/CONTRACT.md, not from the engine.
 */
import fc from 'fast-check';
import t from 'tap';

import { createCors, type CorsOptions } from '@lib/cors/standalone';

import { fakeExchange } from '../../helpers/fake-http.js';

const A = 'https://a.test';
const B = 'https://b.test';
const C = 'https://c.test';

interface ModelPolicy {
  options: CorsOptions;
  allows(origin: string): boolean;
  credentials: boolean;
}

const POLICIES: readonly ModelPolicy[] = [
  { options: { origin: '*' }, allows: () => true, credentials: false },
  { options: { origin: [A, B], allowCredentials: true }, allows: (o) => o === A || o === B, credentials: true },
  { options: { origin: C }, allows: (o) => o === C, credentials: false },
  { options: { origin: false }, allows: () => false, credentials: false },
  { options: { origin: true, allowedMethods: '*' }, allows: () => true, credentials: false },
  { options: { origin: [B], allowCredentials: true, allowedMethods: ['GET', 'PUT', 'DELETE', 'PATCH'] }, allows: (o) => o === B, credentials: true },
];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/** The policy that decides `method` on a path declaring `declared` (rule E). */
function effective(declared: ReadonlyMap<string, number>, method: string): number {
  const own = declared.get(method) ?? (method === 'HEAD' ? declared.get('GET') : undefined);
  if (own !== undefined) return own;
  return declared.get('OPTIONS') ?? declared.get('GET') ?? declared.values().next().value!;
}

const routeTables = fc.uniqueArray(fc.tuple(fc.constantFrom(...METHODS), fc.nat({ max: POLICIES.length - 1 })), {
  minLength: 1,
  maxLength: METHODS.length,
  selector: ([method]) => method,
});

t.test('a preflight is granted exactly as the requested method policy says, and lists no method of another answer', async () => {
  await fc.assert(
    fc.property(routeTables, fc.constantFrom(...METHODS, 'HEAD', 'OPTIONS'), fc.constantFrom(A, B, C, 'https://stranger.test'), (routes, asked, origin) => {
      const declared = new Map(routes);
      const cors = createCors({}, { logger: { warn: () => {}, error: () => {} } });
      for (const [method, policy] of routes) cors.route(method, '/p', POLICIES[policy]!.options);
      const exchange = fakeExchange('OPTIONS', '/p', { origin, 'access-control-request-method': asked });
      cors.handle(exchange.req, exchange.res, () => {});
      const header = (name: string) => exchange.headers.get(name) as string | undefined;
      const allowOrigin = header('access-control-allow-origin');
      const credentials = header('access-control-allow-credentials') === 'true';
      const deciding = POLICIES[effective(declared, asked)]!;
      // Granted: the browser's CORS check passes for this origin (no credentials asked of '*').
      const granted = allowOrigin === origin || (allowOrigin === '*' && !credentials);
      if (granted !== deciding.allows(origin)) return false;
      if (granted && credentials !== deciding.credentials) return false;
      if (!granted) return true;
      const distinct = new Set(routes.map(([, policy]) => policy)).size > 1;
      const listed = (header('access-control-allow-methods') ?? '').split(', ').filter((method) => method !== '');
      // '*' covers every method: only where one policy decides them all.
      if (listed.includes('*')) return !distinct;
      for (const method of listed) {
        const own = POLICIES[effective(declared, method)]!;
        if (!own.allows(origin) || own.credentials !== credentials) return false;
      }
      // Where the path's methods differ in policy, caches are told the answer depends on the method.
      return !distinct || String(header('vary')).includes('Access-Control-Request-Method');
    }),
    { numRuns: 3000 },
  );
});
