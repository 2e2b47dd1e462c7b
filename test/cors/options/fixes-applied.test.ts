/**
 * Issue 46, goal 4: every fix works. The mistakes users make in each option are generated (a
 * trailing slash, a path, no scheme, upper case, the scheme's own port, whitespace, a comma
 * string, lower-case methods, header names in one string, a number as a string), each refused at
 * start-up; the fix each refusal gives is applied as written (test/helpers/fixes.ts, as the corpus
 * of real configurations applies it), and then the options are accepted and grant what the user
 * meant: the intended origin, method and header, asked for by a preflight.
 */
import fc from 'fast-check';
import t from 'tap';

import { createCors, CorsOptionsError } from '@lib/cors/standalone';

import { fakeExchange } from '../../helpers/fake-http.js';
import { applyFix } from '../../helpers/fixes.js';

const quiet = { warn: () => {}, error: () => {} };

/** An origin the user meant: https anywhere, or plain http on a loopback dev server. */
const intendedOrigin = fc.oneof(
  fc.record({
    scheme: fc.constant('https'),
    host: fc.constantFrom('app.example.com', 'api.example.org', 'shop.example.co.uk'),
    port: fc.constantFrom(undefined, 8443),
  }),
  fc.record({ scheme: fc.constant('http'), host: fc.constantFrom('localhost', '127.0.0.1'), port: fc.constantFrom(undefined, 3000, 4200) }),
);
type Intended = { scheme: string; host: string; port: number | undefined };
const serialized = ({ scheme, host, port }: Intended) => `${scheme}://${host}${port === undefined ? '' : `:${port}`}`;

/** One origin as a user may write it wrongly. */
const MISTAKES: Record<string, (origin: Intended) => string> = {
  'a trailing slash': (o) => `${serialized(o)}/`,
  'a path': (o) => `${serialized(o)}/app/`,
  'no scheme': (o) => `${o.host}${o.port === undefined ? '' : `:${o.port}`}`,
  'no scheme, a trailing slash': (o) => `${o.host}${o.port === undefined ? '' : `:${o.port}`}/`,
  'upper case': (o) => serialized(o).toUpperCase(),
  "the scheme's own port": (o) => (o.port === undefined ? `${serialized(o)}:${o.scheme === 'https' ? 443 : 80}` : `${serialized(o)}/`),
  'whitespace around it': (o) => ` ${serialized(o)} `,
};

const mistake = fc.record({
  origin: intendedOrigin,
  other: intendedOrigin,
  how: fc.constantFrom(...Object.keys(MISTAKES)),
  inList: fc.boolean(),
  credentials: fc.boolean(),
});

/** The options after every refusal's fix, applied as written one round at a time, or the refusal that could not be fixed. */
function fixedOptions(options: Record<string, unknown>, intended: readonly string[]): { options: Record<string, unknown>; fixes: string[] } {
  const fixes: string[] = [];
  for (let round = 0; round < 6; round++) {
    try {
      createCors(options as never, { logger: quiet });
      return { options, fixes };
    } catch (error) {
      if (!(error instanceof CorsOptionsError)) throw error;
      const [problem] = error.errors;
      const fixed = applyFix(options, problem!, intended);
      if (fixed === undefined) throw new Error(`the fix cannot be applied as written: ${problem!.message}`);
      fixes.push(`${problem!.code} ${problem!.field}: ${problem!.fix}`);
      options = fixed;
    }
  }
  throw new Error(`still refused after ${fixes.join('; ')}`);
}

/** A preflight's answer under `options` on a route of GET, PUT and DELETE. */
function preflight(options: Record<string, unknown>, origin: string, method: string, headers?: string) {
  const cors = createCors(options as never, { logger: quiet }).route(['GET', 'PUT', 'DELETE'], '/things');
  const exchange = fakeExchange('OPTIONS', '/things', {
    Origin: origin,
    'Access-Control-Request-Method': method,
    ...(headers === undefined ? {} : { 'Access-Control-Request-Headers': headers }),
  });
  cors.handle(exchange.req, exchange.res, () => {});
  return exchange.headers;
}

t.test('an origin written wrongly is refused, and its fix, applied as written, is accepted and grants the origin meant', async (t) => {
  let checked = 0;
  fc.assert(
    fc.property(mistake, ({ origin, other, how, inList, credentials }) => {
      const meant = serialized(origin);
      const written = MISTAKES[how]!(origin);
      const options = { origin: inList ? [written, serialized(other)] : written, allowCredentials: credentials };
      const { options: fixed, fixes } = fixedOptions(options, [meant]);
      if (fixes.length === 0) throw new Error(`${JSON.stringify(written)} (${how}) was accepted as written`);
      if (fixes.length > 1) throw new Error(`${JSON.stringify(written)} (${how}) took ${fixes.length} fixes: ${fixes.join('; ')}`);
      const answer = preflight(fixed, meant, 'PUT');
      if (answer.get('access-control-allow-origin') !== meant) {
        throw new Error(
          `${JSON.stringify(written)} fixed as ${JSON.stringify(fixed.origin)} does not grant ${meant}: ${answer.get('access-control-allow-origin')}`,
        );
      }
      if (credentials && answer.get('access-control-allow-credentials') !== 'true') throw new Error(`${meant}: credentials lost in the fix`);
      checked++;
    }),
    { numRuns: 300 },
  );
  t.ok(checked >= 300, `${checked} mistakes fixed`);
});

t.test("the issue's own case: 'localhost:4200/' is fixed as 'http://localhost:4200', which is accepted", async (t) => {
  try {
    createCors({ origin: 'localhost:4200/' } as never, { logger: quiet });
    t.fail('accepted as written');
  } catch (error) {
    t.type(error, CorsOptionsError);
    t.match((error as CorsOptionsError).errors[0]!.fix, "'http://localhost:4200'");
  }
  const { options } = fixedOptions({ origin: 'localhost:4200/' }, ['http://localhost:4200']);
  t.equal(options.origin, 'http://localhost:4200');
});

t.test('a comma string of origins is refused, and the list its fix gives grants each origin', async (t) => {
  fc.assert(
    fc.property(intendedOrigin, intendedOrigin, (first, second) => {
      const meant = [serialized(first), serialized(second)];
      const { options, fixes } = fixedOptions({ origin: meant.join(',') }, meant);
      if (fixes.length !== 1) throw new Error(`${meant.join(',')}: ${fixes.length} fixes`);
      for (const origin of meant) {
        if (preflight(options, origin, 'GET').get('access-control-allow-origin') !== origin) throw new Error(`${origin} not granted after ${fixes[0]}`);
      }
    }),
    { numRuns: 100 },
  );
  t.pass('every comma string fixed');
});

t.test('methods, header names and maxAge written wrongly: each fix is accepted and grants what was meant', async (t) => {
  const method = fc.constantFrom('PUT', 'DELETE');
  const header = fc.constantFrom('X-Api-Key', 'Content-Type', 'X-Request-Id');
  fc.assert(
    fc.property(method, header, header, fc.constantFrom('lower case', 'one string'), (meantMethod, a, b, how) => {
      const headers = [...new Set([a, b])];
      const written =
        how === 'lower case'
          ? { allowedMethods: [meantMethod.toLowerCase(), 'get'], allowedHeaders: headers, maxAge: '600' }
          : { allowedMethods: `${meantMethod}, GET`, allowedHeaders: headers.join(', '), maxAge: '600' };
      const { options, fixes } = fixedOptions({ origin: 'https://app.example.com', ...written }, ['https://app.example.com']);
      if (fixes.length === 0) throw new Error(`${JSON.stringify(written)} accepted as written`);
      const answer = preflight(options, 'https://app.example.com', meantMethod, headers.join(',').toLowerCase());
      if (answer.get('access-control-allow-origin') !== 'https://app.example.com') throw new Error(`not granted after ${fixes.join('; ')}`);
      const listed = String(answer.get('access-control-allow-methods') ?? '').split(', ');
      if (!listed.includes(meantMethod)) throw new Error(`${meantMethod} not granted after ${fixes.join('; ')}: ${listed}`);
      const allowedHeaders = String(answer.get('access-control-allow-headers') ?? '').toLowerCase();
      for (const name of headers) if (!allowedHeaders.includes(name.toLowerCase())) throw new Error(`${name} not granted after ${fixes.join('; ')}`);
      if (answer.get('access-control-max-age') !== '600') throw new Error(`maxAge lost after ${fixes.join('; ')}`);
    }),
    { numRuns: 100 },
  );
  t.pass('every method, header list and maxAge fixed');
});
