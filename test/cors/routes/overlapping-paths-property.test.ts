/**
 * Property-based: random route sets whose paths match some URLs together (statics, parameters,
 * wildcards) with random methods, each method of a path under one of a few policies. The same
 * routes go into find-my-way as the application's router, which says which route a request runs;
 * the fetch adapter in front must answer every request by the policy of that route, and no
 * preflight may list a method that runs under another policy on that URL. Each policy answers one
 * fixed origin, so `Access-Control-Allow-Origin` names the policy that decided.
 */
import fc from 'fast-check';
import FindMyWay from 'find-my-way';
import t from 'tap';

import { createCors } from '@lib/cors/fetch';

const METHODS = ['GET', 'PUT', 'DELETE', 'POST'] as const;
type Method = (typeof METHODS)[number];
const POLICIES = [0, 1, 2].map((index) => `https://p${index}.test`);
const SEGMENTS = ['a', 'me', ':id'];
const URL_SEGMENTS = ['a', 'me', '7'];

/** Paths of one to three segments, the last one possibly a wildcard. */
const paths = fc
  .tuple(fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 3 }), fc.boolean())
  .map(([segments, wildcard]) => `/${(wildcard ? [...segments.slice(0, -1), '*'] : segments).join('/')}`);

const routeSets = fc.uniqueArray(fc.tuple(paths, fc.constantFrom(...METHODS), fc.nat({ max: POLICIES.length - 1 })), {
  minLength: 1,
  maxLength: 8,
  selector: ([path, method]) => `${method} ${path}`,
});

/** Every URL of one to three segments over URL_SEGMENTS. */
const URLS: string[] = [];
for (const first of URL_SEGMENTS) {
  URLS.push(`/${first}`);
  for (const second of URL_SEGMENTS) {
    URLS.push(`/${first}/${second}`);
    for (const third of URL_SEGMENTS) URLS.push(`/${first}/${second}/${third}`);
  }
}

const quiet = { warn: () => {}, error: () => {} };

t.test('every request is answered by the policy of the route the application runs for it', async () => {
  await fc.assert(
    fc.asyncProperty(routeSets, async (routes) => {
      const router = FindMyWay();
      const cors = createCors({}, { logger: quiet });
      for (const [path, method, policy] of routes) {
        router.on(method, path, () => {}, { policy });
        cors.route(method, path, { origin: POLICIES[policy]! });
      }
      const policyRun = (method: string, url: string) => (router.find(method as Method, url)?.store as { policy: number } | undefined)?.policy;
      const send = async (method: string, url: string, headers: Record<string, string>) =>
        (await cors.handle(new Request(`http://127.0.0.1${url}`, { method, headers }), () => new Response('app'))).headers;

      for (const url of URLS) {
        const served = METHODS.filter((method) => policyRun(method, url) !== undefined);
        for (const method of served) {
          const policy = policyRun(method, url)!;
          const actual = await send(method, url, { Origin: 'https://x.test' });
          t.equal(actual.get('access-control-allow-origin'), POLICIES[policy], `${method} ${url}: ${JSON.stringify(routes)}`);

          const preflight = await send('OPTIONS', url, { Origin: POLICIES[policy]!, 'Access-Control-Request-Method': method });
          t.equal(preflight.get('access-control-allow-origin'), POLICIES[policy], `preflight ${method} ${url}: ${JSON.stringify(routes)}`);
          // A browser sends a listed method later with no preflight of its own: each must run under the same policy.
          for (const listed of (preflight.get('access-control-allow-methods') ?? '').split(', ')) {
            if (listed === 'OPTIONS' || listed === 'HEAD' || listed === '') continue;
            t.equal(policyRun(listed, url), policy, `preflight ${method} ${url} lists ${listed}: ${JSON.stringify(routes)}`);
          }
        }
        // A plain OPTIONS lists no method the URL is not served with; where its methods run under
        // more than one policy, every method it is served with.
        const allow = (await send('OPTIONS', url, {})).get('allow');
        const listed = allow === null ? [] : allow.split(', ').filter((method) => method !== 'HEAD' && method !== 'OPTIONS');
        const context = `Allow of ${url}: ${JSON.stringify(routes)}`;
        for (const method of listed) t.ok(served.includes(method as Method), `${method} in ${context}`);
        if (new Set(served.map((method) => policyRun(method, url))).size > 1) t.same(listed.sort(), [...served].sort(), context);
      }
    }),
    { numRuns: 150 },
  );
});
