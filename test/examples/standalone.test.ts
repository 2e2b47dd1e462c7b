/** `npm run example -- standalone` answers each request kind of docs/CONTRACT.md (section 3) as the contract says. */
import t from 'tap';

import { startExample } from '../helpers/example.js';
import { corsHeadersOf, fetchAnswer, type Answer, type RequestHeaders } from '../helpers/http.js';

const url = await startExample(t, 'standalone');
const send = (method: string, path: string, headers?: RequestHeaders): Promise<Answer> => fetchAnswer(url + path, method, headers);
const app = 'https://app.example.com';

t.test('plain OPTIONS', async (t) => {
  const answer = await send('OPTIONS', '/users');
  t.equal(answer.status, 204);
  t.same(corsHeadersOf(answer), { allow: 'GET, HEAD, POST, OPTIONS', vary: 'Origin' });
});

t.test('OPTIONS with Origin', async (t) => {
  const answer = await send('OPTIONS', '/users', { Origin: app });
  t.equal(answer.status, 204);
  t.same(corsHeadersOf(answer), {
    allow: 'GET, HEAD, POST, OPTIONS',
    vary: 'Origin',
    'access-control-allow-origin': app,
    'access-control-expose-headers': 'X-Total-Count',
  });
});

t.test('GET with Origin', async (t) => {
  const answer = await send('GET', '/users', { Origin: app });
  t.equal(answer.status, 200);
  t.same(JSON.parse(answer.body), [{ id: 1, name: 'Ada' }]);
  t.same(corsHeadersOf(answer), { vary: 'Origin', 'access-control-allow-origin': app, 'access-control-expose-headers': 'X-Total-Count' });
});

t.test('preflight', async (t) => {
  const answer = await send('OPTIONS', '/users', { Origin: app, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' });
  t.equal(answer.status, 204);
  t.same(corsHeadersOf(answer), {
    vary: 'Origin, Access-Control-Request-Headers',
    'access-control-allow-origin': app,
    'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
    'access-control-allow-headers': 'content-type',
    'access-control-max-age': '600',
  });
});

t.test('GET without Origin, from a refused origin, on the public route, and off the covered paths', async (t) => {
  t.same(corsHeadersOf(await send('GET', '/users')), { vary: 'Origin' });
  t.same(corsHeadersOf(await send('GET', '/users', { Origin: 'https://evil.example' })), { vary: 'Origin' });
  t.same(corsHeadersOf(await send('GET', '/health', { Origin: 'https://anyone.example' })), { 'access-control-allow-origin': '*' });
  const unknown = await send('GET', '/nowhere', { Origin: app });
  t.equal(unknown.status, 404);
  t.same(corsHeadersOf(unknown), {});
});
