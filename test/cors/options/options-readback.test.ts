/**
 * options() reads the effective options back, normalised, and they round-trip: an engine built
 * from them answers every request as the engine they came from does (issue 25, point 2), for every
 * policy kind of docs/CONTRACT.md section 2 and the fields beside the origin.
 */
import { createCors as createFetchCors } from '@lib/cors/fetch';
import { createCors, type CorsOptions } from '@lib/cors/standalone';
import t from 'tap';

import { POLICY_CASES, requestOfRow } from '../../helpers/policy-kinds.js';

const OTHER_FIELDS: readonly { name: string; options: CorsOptions<unknown> }[] = [
  { name: 'allowedMethods and allowedHeaders lists, with repeats', options: { allowedMethods: ['GET', 'PUT', 'GET'], allowedHeaders: ['X-A', 'X-B', 'X-A'] } },
  { name: "allowedHeaders and exposedHeaders '*'", options: { allowedHeaders: '*', exposedHeaders: '*' } },
  { name: 'preflightContinue and optionsSuccessStatus 200', options: { preflightContinue: true, optionsSuccessStatus: 200 } },
  { name: 'allowPrivateNetwork', options: { allowPrivateNetwork: true, origin: ['https://a.example.com', 'https://b.example.com'] } },
  {
    name: 'an origin function with a timeout and a cache given without its defaults',
    options: { origin: (origin: string) => origin === 'https://a.example.com', originTimeout: 900, originCache: { max: 10 } as never },
  },
];

const CASES = [...POLICY_CASES.map(({ name, options }) => ({ name, options })), ...OTHER_FIELDS];
const ORIGINS = [
  'https://anyone.test',
  'https://app.example.com',
  'https://b.example.com',
  'https://a.example.com',
  'http://localhost:5173',
  'null',
  undefined,
];

/** Every row of the contract, from every origin, on a covered path, as a Response's status and headers. */
async function answersOf(cors: ReturnType<typeof createFetchCors>): Promise<string[]> {
  const seen: string[] = [];
  for (const row of [1, 2, 3, 4, 5] as const) {
    for (const origin of ORIGINS) {
      const { method, headers } = requestOfRow(row, origin);
      const response = await cors.handle(new Request('http://localhost/items', { method, headers }), () => new Response('app'));
      seen.push(`${row} ${origin}: ${response.status} ${JSON.stringify([...response.headers])}`);
    }
  }
  return seen;
}

for (const { name, options } of CASES) {
  t.test(`${name}: createCors(cors.options()) answers as cors does`, async (t) => {
    const original = createFetchCors(options as CorsOptions<Request>).route(['GET', 'POST'], '/items');
    const read = original.options();
    const copy = createFetchCors(read).route(['GET', 'POST'], '/items');
    t.same(await answersOf(copy), await answersOf(original));
    t.same(copy.options(), read, 'reading back the copy gives the same options');
    t.ok(Object.isFrozen(read), 'frozen');
  });
}

t.test('normalised: the defaults that have a value are filled in, lists lose repeats, derived defaults stay out', async (t) => {
  t.same(createCors().options(), { origin: '*', allowCredentials: false, allowPrivateNetwork: false, preflightContinue: false, optionsSuccessStatus: 204 });
  const read = createCors({
    allowedMethods: ['GET', 'PUT', 'GET'],
    origin: (origin) => origin === 'https://a.example.com',
    originCache: { max: 5, ttl: 10 },
  }).options();
  t.same(read.allowedMethods, ['GET', 'PUT']);
  t.equal(read.originTimeout, 5000, "an origin function's timeout");
  t.same(read.originCache, { max: 5, ttl: 10 });
  t.notOk('allowedHeaders' in read, 'reflected by default: not a value to fill in');
  t.notOk('maxAge' in read, 'not sent by default');
});

t.test('options() reads the options of the last reconfigure(), not the first', async (t) => {
  const cors = createCors({ origin: 'https://a.example.com' });
  cors.reconfigure({ origin: ['https://b.example.com', 'https://c.example.com'], maxAge: 60 });
  t.match(cors.options(), { origin: ['https://b.example.com', 'https://c.example.com'], maxAge: 60 });
  t.throws(() => cors.reconfigure({ maxAge: -1 }));
  t.match(cors.options(), { maxAge: 60 }, 'a refused reconfigure() changes nothing');
});

t.test('reconfigure() takes no options as no options, not as the defaults', async (t) => {
  const cors = createCors({ origin: ['https://a.example.com', 'https://b.example.com'] });
  for (const nothing of [undefined, null]) {
    t.throws(() => cors.reconfigure(nothing as never), { name: 'CorsOptionsError', code: 'CORS_OPTIONS_NOT_OBJECT' }, String(nothing));
  }
  t.same(cors.options().origin, ['https://a.example.com', 'https://b.example.com'], 'still the old options');
});
