/**
 * `@lib/cors/next` outside a server: options refused at module load with the project's codes and
 * fixes (so `next build`, which loads every route file, stops on them), explain() on a route
 * file's policy and on the proxy's, and cors-check against the built application.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { createCors, CorsOptionsError } from '@lib/cors/next';
import t from 'tap';

import { applyFix } from '../helpers/fixes.js';
import { startNext } from '../helpers/next-app.js';

const APP = 'https://app.example.com';
const handler = async () => new Response('ok');

t.test("'*' with credentials is refused at module load, with a fix that works when applied", async (t) => {
  const options = { origin: '*' as const, allowCredentials: true };
  const error = t.throws(() => createCors(options)) as CorsOptionsError;
  t.equal(error.code, 'CORS_WILDCARD_WITH_CREDENTIALS');
  const fixed = applyFix(options, error.errors[0]!, [APP]);
  t.ok(fixed, error.errors[0]!.fix);
  t.doesNotThrow(() => createCors(fixed as never), `fixed as written: ${JSON.stringify(fixed)}`);

  const cors = createCors({ origin: [APP] });
  const inRoute = t.throws(() => cors.route({ POST: handler }, { POST: { origin: '*', allowCredentials: true } })) as CorsOptionsError;
  t.equal(inRoute.code, 'CORS_WILDCARD_WITH_CREDENTIALS', "a method's own options are checked as the file's are");
});

t.test('options for a method the file does not export are refused, naming it and the fix', async (t) => {
  const cors = createCors({ origin: [APP] });
  const error = t.throws(() => cors.route({ GET: handler }, { DELETE: { allowCredentials: true } })) as CorsOptionsError;
  t.equal(error.code, 'CORS_UNKNOWN_OPTION');
  t.match(error.message, /DELETE[\s\S]*does not export[\s\S]*Fix: export a DELETE handler/);
  t.doesNotThrow(() => cors.route({ GET: handler, DELETE: handler }, { DELETE: { allowCredentials: true } }), 'with the handler exported, accepted');
});

t.test("explain() judges a request under a route file's policy for its method, and under the proxy's", async (t) => {
  const cors = createCors({ origin: [APP] });
  const route = cors.route({ GET: handler, POST: handler }, { origin: '*', POST: { origin: APP, allowCredentials: true } });
  const preflight = (origin: string, method: string) => ({
    method: 'OPTIONS',
    url: '/api/posts',
    headers: { origin, 'access-control-request-method': method },
  });
  t.match(await route.explain(preflight(APP, 'POST'), { credentials: true }), { allowed: true, kind: 'preflight', method: 'POST' });
  t.match(await route.explain(preflight('https://elsewhere.example', 'POST')), { allowed: false, reason: 'origin-mismatch' });
  t.match(await route.explain(preflight(APP, 'PUT')), { allowed: false, reason: 'method-not-allowed' }, 'a method the file does not export');
  const read = { method: 'GET', url: '/api/posts', headers: { origin: APP } };
  t.match(await route.explain(read, { credentials: true }), { allowed: false, reason: 'wildcard-with-credentials' });
  t.match(await cors.explain(read, { credentials: true }), { allowed: false, reason: 'credentials-not-allowed' }, "the proxy's policy: no credentials");
  t.match(await cors.explain({ ...read, headers: { origin: 'https://elsewhere.example' } }), { allowed: false, reason: 'origin-mismatch' });
});

t.test('cors-check against the built application: the per-method grant, and a refusal', async (t) => {
  const next = await startNext({ APP_ORIGIN: APP });
  t.teardown(() => next.close());
  const command = fileURLToPath(new URL('../../../src/cors/dist/diagnostics/cors-check.js', import.meta.url));
  const check = (...args: string[]) =>
    new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(process.execPath, [command, ...args], (error, stdout) => resolve({ code: error === null ? 0 : Number(error.code), stdout })),
    );
  const granted = await check(`${next.origin}/api/items`, '--origin', APP, '--method', 'POST', '--header', 'Content-Type: application/json', '--credentials');
  t.equal(granted.code, 0, granted.stdout);
  const refused = await check(`${next.origin}/api/items`, '--origin', APP, '--credentials');
  t.equal(refused.code, 1, 'a credentialed GET under GET\'s "*"');
  t.match(refused.stdout, /wildcard-with-credentials/);
});
