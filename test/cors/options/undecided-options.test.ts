/**
 * Property-based: the node entry answers OPTIONS requests that need no origin judged without
 * building a decision (core/answer.ts, optionsAnswerUndecided()), but only while nobody observes
 * decisions; with a subscriber on `lib-cors:decision` every request goes through decide() and
 * answerOf(). Random policies and OPTIONS requests get the same answer either way.
 */
import diagnosticsChannel from 'node:diagnostics_channel';

import fc from 'fast-check';
import t from 'tap';

import { createCors, type CorsOptions } from '@lib/cors/standalone';

import { fakeExchange } from '../../helpers/fake-http.js';

const quiet = { warn: () => {}, error: () => {} };

// The '*' policies say allowPrivateNetwork: false, as they must over the 'private network' base:
// every origin may not reach a private network (CORS_PRIVATE_NETWORK_TO_EVERY_ORIGIN).
const POLICIES: Record<string, CorsOptions> = {
  any: { origin: '*', allowPrivateNetwork: false },
  fixed: { origin: 'https://a.test', allowCredentials: true, maxAge: 60 },
  listed: { origin: ['https://a.test', 'https://b.test'], allowCredentials: true },
  none: { origin: false },
  function: { origin: (origin) => origin === 'https://b.test' },
  'fixed headers': { origin: '*', allowPrivateNetwork: false, allowedHeaders: ['x-a'], exposedHeaders: ['x-e'] },
  'private network': { origin: 'https://a.test', allowPrivateNetwork: true },
  'status 200, continue': { origin: '*', allowPrivateNetwork: false, optionsSuccessStatus: 200, preflightContinue: true },
  'status 200': { origin: 'https://b.test', optionsSuccessStatus: 200, allowedMethods: ['GET', 'PATCH'] },
};
const NAMES = Object.keys(POLICIES);

const setup = fc.record({
  base: fc.constantFrom(...NAMES),
  put: fc.option(fc.constantFrom(...NAMES), { nil: undefined }),
  explicitOptions: fc.boolean(),
});

const request = fc.record({
  path: fc.constantFrom('/r/1', '/other'),
  origin: fc.option(fc.constantFrom('https://a.test', 'https://b.test', 'https://c.test', 'null', ''), { nil: undefined }),
  method: fc.option(fc.constantFrom('GET', 'PUT', 'DELETE', 'OPTIONS', ''), { nil: undefined }),
  list: fc.option(fc.constantFrom('x-a', 'x-a, x-b', 'x a', ''), { nil: undefined }),
  privateNetwork: fc.option(fc.constantFrom('true', 'false'), { nil: undefined }),
});

type Setup = { base: string; put: string | undefined; explicitOptions: boolean };
type Sent = { path: string; origin: string | undefined; method: string | undefined; list: string | undefined; privateNetwork: string | undefined };

function build({ base, put, explicitOptions }: Setup) {
  const cors = createCors(POLICIES[base], { logger: quiet }).route('GET', '/r/:id');
  // A route's options merge over the base's: credentials are set where a policy wants them.
  cors.route('PUT', '/r/:id', put === undefined ? undefined : { allowCredentials: false, ...POLICIES[put] });
  if (explicitOptions) cors.route('OPTIONS', '/r/:id');
  return cors.route('GET', '/other');
}

function answer(engine: ReturnType<typeof build>, { path, origin, method, list, privateNetwork }: Sent) {
  const headers: Record<string, string> = {};
  if (origin !== undefined) headers.origin = origin;
  if (method !== undefined) headers['access-control-request-method'] = method;
  if (list !== undefined) headers['access-control-request-headers'] = list;
  if (privateNetwork !== undefined) headers['access-control-request-private-network'] = privateNetwork;
  const exchange = fakeExchange('OPTIONS', path, headers);
  let handedOn = false;
  engine.handle(exchange.req, exchange.res, () => {
    handedOn = true;
  });
  return { status: exchange.res.statusCode, ended: exchange.ended, handedOn, headers: [...exchange.headers].sort() };
}

t.test('an OPTIONS request gets the same answer whether decisions are observed or not', async (t) => {
  const observer = () => {};
  fc.assert(
    fc.property(setup, fc.array(request, { minLength: 1, maxLength: 6 }), (chosen, requests) => {
      const engine = build(chosen);
      for (const sent of requests) {
        const undecided = answer(engine, sent);
        diagnosticsChannel.subscribe('lib-cors:decision', observer);
        try {
          t.strictSame(undecided, answer(engine, sent), JSON.stringify({ chosen, sent }));
        } finally {
          diagnosticsChannel.unsubscribe('lib-cors:decision', observer);
        }
      }
    }),
    { numRuns: 300 },
  );
});
