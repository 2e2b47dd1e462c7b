/**
 * `@lib/cors/next` in a real Next.js application (test/next/app, built by `next build` before tap
 * starts, served here by `next start`): every request kind of docs/CONTRACT.md against route
 * handlers in the Node.js and Edge runtimes, a per-method policy, a dynamic segment, a Pages
 * Router API route, and proxy.ts over pages, a static file and routes without a policy of their own.
 * Next itself routes every request; the policy applied is the one of the route file it ran.
 */
import t from 'tap';

import { type Answer, corsHeadersOf } from '../helpers/http.js';
import { startNext } from '../helpers/next-app.js';

t.setTimeout(180_000);

const APP = 'https://app.test';
const PARTNER = 'https://partner.test';
const ELSEWHERE = 'https://elsewhere.test';
const next = await startNext({ APP_ORIGIN: APP });
t.teardown(() => next.close());

const preflight = (path: string, origin: string, method: string, headers: Record<string, string> = {}) =>
  next.send('OPTIONS', path, { Origin: origin, 'Access-Control-Request-Method': method, ...headers });
const get = (path: string, origin?: string) => next.send('GET', path, origin === undefined ? {} : { Origin: origin });
const methodsOf = (answer: Answer) => String(answer.headers['access-control-allow-methods'] ?? '').split(', ');
const varyOf = (answer: Answer) => String(answer.headers.vary ?? '').split(/,\s*/);
/** The origin and credentials an answer grants. */
const grantOf = (answer: Answer) => ({
  origin: answer.headers['access-control-allow-origin'],
  credentials: answer.headers['access-control-allow-credentials'],
});
const CREDENTIALED_APP = { origin: APP, credentials: 'true' };

t.test('a route file: preflights are answered from the methods it exports, each under its own policy', async (t) => {
  const write = await preflight('/api/items', APP, 'POST');
  t.equal(write.status, 204);
  t.same(grantOf(write), CREDENTIALED_APP, "POST: credentialed, from the app's origin");
  t.ok(methodsOf(write).includes('POST'));

  const partnerWrite = await preflight('/api/items', PARTNER, 'POST');
  t.not(partnerWrite.headers['access-control-allow-origin'], PARTNER, "POST from another origin: no grant for it (POST's policy is one origin)");

  const read = await preflight('/api/items', ELSEWHERE, 'GET', { 'Access-Control-Request-Headers': 'x-trace' });
  t.equal(read.headers['access-control-allow-origin'], '*', 'GET: open to every origin');
  t.equal(read.headers['access-control-allow-credentials'], undefined, 'GET: without credentials');
  t.equal(read.headers['access-control-allow-headers'], 'x-trace');

  const unexported = await preflight('/api/items', APP, 'PUT');
  t.notOk(methodsOf(unexported).includes('PUT'), 'a method the file does not export is not granted');

  const plain = await next.send('OPTIONS', '/api/items');
  t.equal(plain.status, 204);
  t.equal(plain.headers.allow, 'GET, HEAD, POST, OPTIONS', "a plain OPTIONS lists exactly the file's methods");
});

t.test("a route file: every response of its handlers carries the method's grant", async (t) => {
  const read = await get('/api/items', ELSEWHERE);
  t.equal(read.status, 200);
  t.equal(read.headers['access-control-allow-origin'], '*');
  t.match(read.body, /"items"/);

  const written = await next.send('POST', '/api/items', { Origin: APP }, 'hello');
  t.equal(written.status, 201);
  t.same(grantOf(written), CREDENTIALED_APP);
  const foreign = await next.send('POST', '/api/items', { Origin: PARTNER }, 'hello');
  t.not(foreign.headers['access-control-allow-origin'], PARTNER, 'a POST from another origin is not granted');
});

t.test('a dynamic segment: 4xx, a thrown error, a redirect and a streamed body all carry the grant, with Vary kept', async (t) => {
  const expected = { 'access-control-allow-origin': PARTNER, 'access-control-expose-headers': 'X-Item' };
  for (const [id, status] of [
    ['1', 200],
    ['missing', 404],
    ['boom', 500],
    ['moved', 307],
    ['stream', 200],
  ] as const) {
    const answer = await get(`/api/items/${id}`, PARTNER);
    t.equal(answer.status, status, id);
    t.match(corsHeadersOf(answer), expected, `${id}: the grant`);
    t.ok(varyOf(answer).includes('Origin'), `${id}: Vary names Origin`);
  }
  const streamed = await get('/api/items/stream', PARTNER);
  t.equal(streamed.body, 'one,two', 'the stream reaches the client whole');
  t.ok(varyOf(streamed).includes('Accept'), "the handler's own Vary is kept beside Origin");
  t.not((await get('/api/items/1', ELSEWHERE)).headers['access-control-allow-origin'], ELSEWHERE, 'an origin outside the policy gets no grant');
  t.match(next.output(), /threw \(answered 500\)[\s\S]*the handler failed/, 'the thrown error is logged');

  const remove = await preflight('/api/items/7', PARTNER, 'DELETE');
  t.not(remove.headers['access-control-allow-origin'], PARTNER, "DELETE's own policy: the app's origin only");
  const removeFromApp = await preflight('/api/items/7', APP, 'DELETE');
  t.equal(removeFromApp.headers['access-control-allow-credentials'], 'true');
  t.equal((await next.send('DELETE', '/api/items/7', { Origin: APP })).headers['access-control-allow-origin'], APP);
});

t.test('the Edge runtime: the same engine, the same answers', async (t) => {
  const put = await preflight('/api/edge', APP, 'PUT');
  t.equal(put.status, 204);
  t.same(grantOf(put), CREDENTIALED_APP);
  t.not((await preflight('/api/edge', PARTNER, 'PUT')).headers['access-control-allow-origin'], PARTNER);
  const read = await get('/api/edge', PARTNER);
  t.equal(read.body, 'edge');
  t.equal(read.headers['access-control-allow-origin'], PARTNER);
  t.equal(read.headers['access-control-allow-origin']?.includes(','), false, 'one grant, not two');
});

t.test('a Pages Router API route: preflights from its declared methods, the grant on its answers and on its errors', async (t) => {
  const post = await preflight('/api/legacy', APP, 'POST');
  t.equal(post.status, 204);
  t.equal(post.headers['access-control-allow-origin'], APP);
  t.equal(post.headers['access-control-allow-credentials'], 'true');
  t.notOk(methodsOf(await preflight('/api/legacy', APP, 'PUT')).includes('PUT'), 'an undeclared method is not granted');
  t.equal((await next.send('OPTIONS', '/api/legacy')).headers.allow, 'GET, HEAD, POST, OPTIONS');
  const answered = await next.send('POST', '/api/legacy', { Origin: APP });
  t.same(JSON.parse(answered.body), { method: 'POST' });
  t.equal(answered.headers['access-control-allow-origin'], APP);
  const failed = await get('/api/legacy?fail=1', APP);
  t.equal(failed.status, 500);
  t.equal(failed.headers['access-control-allow-origin'], APP, "Next's error answer keeps the grant");
  t.not((await get('/api/legacy', ELSEWHERE)).headers['access-control-allow-origin'], ELSEWHERE);
});

t.test('proxy.ts: the base policy on pages, static files and routes without their own', async (t) => {
  for (const path of ['/', '/file.txt', '/api/plain']) {
    t.equal((await get(path, PARTNER)).headers['access-control-allow-origin'], PARTNER, path);
    t.equal((await get(path, ELSEWHERE)).headers['access-control-allow-origin'], undefined, `${path}: nothing for an origin outside it`);
  }
  // Next answers the OPTIONS of a route file that exports none; the proxy's grant goes on it.
  const plain = await preflight('/api/plain', PARTNER, 'POST');
  t.equal(plain.status, 204);
  t.equal(plain.headers['access-control-allow-origin'], PARTNER);
  t.ok(methodsOf(plain).includes('POST'));
});

t.test('a route with its own policy that proxy.ts covers too: answered only where both grant the same, else 500', async (t) => {
  const same = await get('/api/same', PARTNER);
  t.equal(same.status, 200, 'the same policy: answered');
  t.equal(same.headers['access-control-allow-origin'], PARTNER);
  const samePreflight = await preflight('/api/same', PARTNER, 'GET');
  t.equal(samePreflight.status, 204);

  const overlap = await get('/api/overlap', APP);
  t.equal(overlap.status, 500, 'grants that differ (credentials): fails closed');
  t.equal(overlap.headers['access-control-allow-credentials'], undefined, "no credentials: the route's grant was never given");
  const overlapPreflight = await preflight('/api/overlap', APP, 'GET');
  t.equal(overlapPreflight.status, 500, 'a preflight fails closed too');
  t.match(next.output(), /proxy\.ts covers it too[\s\S]*Fix: leave the route out of the proxy/, 'the fix is logged');
});
