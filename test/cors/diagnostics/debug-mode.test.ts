/**
 * setDebug(): switched while serving, debug mode makes a preflight refused by its method's policy
 * name the failed check to the browser, for an origin another policy of the path allows (rule E),
 * and tells an origin no policy allows nothing (issue 25, point 4). The browsers' own console
 * messages are read in test/browser/debug-console.test.ts; this is the header level, on the fetch
 * adapter and on fastify (whose constant answers skip the engine unless someone looks).
 */
import { createCors } from '@lib/cors/fetch';
import fastifyCors from '@lib/cors/fastify';
import Fastify from 'fastify';
import t from 'tap';

const APP = 'https://app.example.com';
const ADMIN = 'https://admin.example.com';
const STRANGER = 'https://evil.example.com';
// Reads open to the app (and a second origin: a one-origin list is the fixed kind), deletes only from the admin console, with credentials.
const READS = { origin: [APP, 'https://www.example.com'] };
const DELETES = { origin: [ADMIN, 'https://ops.example.com'], allowCredentials: true };

interface Row {
  name: string;
  debug: boolean;
  origin: string;
  method: string;
  /** Access-Control-Allow-Origin and -Credentials expected on the answer, `null` when absent. */
  allowOrigin: string | null;
  allowCredentials: string | null;
  allowMethods: string | null;
}

const ROWS: Row[] = [
  {
    name: 'debug off: a refused DELETE preflight from the app says nothing',
    debug: false,
    origin: APP,
    method: 'DELETE',
    allowOrigin: null,
    allowCredentials: null,
    allowMethods: null,
  },
  {
    name: "debug on: the same preflight gets GET's origin grant and still no method",
    debug: true,
    origin: APP,
    method: 'DELETE',
    allowOrigin: APP,
    allowCredentials: null,
    allowMethods: null,
  },
  {
    name: "debug on: the admin's refused GET preflight gets DELETE's grant with its credentials",
    debug: true,
    origin: ADMIN,
    method: 'GET',
    allowOrigin: ADMIN,
    allowCredentials: 'true',
    allowMethods: null,
  },
  {
    name: 'debug on: an origin no policy allows is told nothing',
    debug: true,
    origin: STRANGER,
    method: 'DELETE',
    allowOrigin: null,
    allowCredentials: null,
    allowMethods: null,
  },
  {
    name: 'debug on: an allowed preflight is granted as always',
    debug: true,
    origin: ADMIN,
    method: 'DELETE',
    allowOrigin: ADMIN,
    allowCredentials: 'true',
    allowMethods: 'DELETE',
  },
  {
    name: 'debug off again: the refusal says nothing again',
    debug: false,
    origin: ADMIN,
    method: 'GET',
    allowOrigin: null,
    allowCredentials: null,
    allowMethods: null,
  },
];

function preflight(origin: string, method: string): Request {
  return new Request('http://localhost/items', { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': method } });
}

t.test('fetch adapter: one engine, debug switched between requests', async (t) => {
  const cors = createCors({}, { logger: { warn() {}, error() {} } })
    .route('GET', '/items', READS)
    .route('DELETE', '/items', DELETES);
  for (const row of ROWS) {
    cors.setDebug(row.debug);
    const answer = await cors.handle(preflight(row.origin, row.method), () => new Response('app'));
    t.same(
      {
        allowOrigin: answer.headers.get('access-control-allow-origin'),
        allowCredentials: answer.headers.get('access-control-allow-credentials'),
        allowMethods: answer.headers.get('access-control-allow-methods'),
      },
      { allowOrigin: row.allowOrigin, allowCredentials: row.allowCredentials, allowMethods: row.allowMethods },
      row.name,
    );
    // The answer depends on the origin now: caches must key it so.
    if (row.allowOrigin !== null) t.match(answer.headers.get('vary'), /\bOrigin\b/, `${row.name}: Vary names Origin`);
  }
});

t.test('debug mode asks no origin function again: a path whose other policy is a function discloses nothing', async (t) => {
  let asked = 0;
  const ask = (origin: string) => {
    asked++;
    return origin === APP;
  };
  const cors = createCors({}, { debug: true, logger: { warn() {}, error() {} } })
    .route('GET', '/items', { origin: ask })
    .route('DELETE', '/items', DELETES);
  const answer = await cors.handle(preflight(APP, 'DELETE'), () => new Response('app'));
  t.equal(answer.headers.get('access-control-allow-origin'), null);
  t.equal(asked, 0);
});

t.test('fastify: setDebug() reaches routes whose constant answer skips the engine', async (t) => {
  const warnings: string[] = [];
  const app = Fastify();
  await app.register(fastifyCors, { origin: 'https://app.example.com', logger: { warn: (line: string) => warnings.push(line), error() {} } });
  app.get('/open', async () => 'ok');
  await app.ready();
  t.teardown(() => app.close());
  const get = () => app.inject({ method: 'GET', url: '/open', headers: { origin: STRANGER } });
  await get();
  t.equal(warnings.length, 0, 'debug off: a refused read is not logged');
  app.cors.setDebug(true);
  const answer = await get();
  t.equal(answer.headers['access-control-allow-origin'], 'https://app.example.com', 'the same constant answer');
  t.match(warnings, [/CORS refused \[origin-mismatch\] GET \/open from https:\/\/evil\.example\.com/], 'debug on: logged');
});
