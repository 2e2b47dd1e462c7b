/** The examples of the spec's table "Ways to use the module", each in its own process, over sockets. */
import t from 'tap';

import { startExample } from '../helpers/example.js';
import { corsHeadersOf, fetchAnswer, type RequestHeaders } from '../helpers/http.js';

const origin = 'https://example.com';

t.test('default-settings: the five request kinds under the defaults', async (t) => {
  const url = await startExample(t, 'default-settings');
  const send = (method: string, path: string, headers?: RequestHeaders) => fetchAnswer(url + path, method, headers);

  const plain = await send('OPTIONS', '/users');
  t.equal(plain.status, 204);
  t.same(corsHeadersOf(plain), { allow: 'GET, HEAD, OPTIONS', 'access-control-allow-origin': '*' });
  const posts = await send('OPTIONS', '/posts', { Origin: origin });
  t.equal(posts.status, 204);
  t.same(corsHeadersOf(posts), { allow: 'GET, HEAD, POST, OPTIONS', 'access-control-allow-origin': '*' });
  const simple = await send('GET', '/users', { Origin: origin });
  t.same(JSON.parse(simple.body), [{ id: 1, name: 'Ada' }]);
  t.same(corsHeadersOf(simple), { 'access-control-allow-origin': '*' });
  const preflight = await send('OPTIONS', '/posts', {
    Origin: origin,
    'Access-Control-Request-Method': 'POST',
    'Access-Control-Request-Headers': 'content-type, x-request-id',
  });
  t.equal(preflight.status, 204);
  t.same(corsHeadersOf(preflight), {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
    'access-control-allow-headers': 'content-type, x-request-id',
    vary: 'Access-Control-Request-Headers',
  });
  const credentials = await send('GET', '/credentials', { Origin: origin });
  t.same(credentials.headers['set-cookie'], ['one=value%20for%20one; Path=/; HttpOnly']);
  t.same(
    corsHeadersOf(credentials),
    { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' },
    'the origin named by the controller of /credentials, echoed with credentials',
  );
  t.equal((await send('POST', '/posts', { Origin: origin })).status, 201);
});

t.test('module-options: one origin for the whole module, credentials from setCookie', async (t) => {
  const url = await startExample(t, 'module-options');
  const send = (method: string, path: string, headers?: RequestHeaders) => fetchAnswer(url + path, method, headers);
  t.same(corsHeadersOf(await send('GET', '/', { Origin: origin })), { 'access-control-allow-origin': origin });
  t.same(
    corsHeadersOf(await send('GET', '/', { Origin: 'https://evil.example' })),
    { 'access-control-allow-origin': origin },
    'a fixed origin is sent to all, and matches only its own',
  );
  const preflight = await send('OPTIONS', '/', { Origin: origin, 'Access-Control-Request-Method': 'PATCH' });
  t.same(corsHeadersOf(preflight), {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'GET, HEAD, POST, PATCH, OPTIONS',
    vary: 'Access-Control-Request-Headers',
  });
  const credentials = await send('GET', '/credentials', { Origin: origin });
  t.same(credentials.headers['set-cookie'], ['one=value%20for%20one; Path=/; HttpOnly']);
  t.same(corsHeadersOf(credentials), { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' });
});

t.test('route-options: the module providersPerRou, merged with and overridden by a controller', async (t) => {
  const url = await startExample(t, 'route-options');
  const send = (method: string, path: string, headers?: RequestHeaders) => fetchAnswer(url + path, method, headers);
  t.same(corsHeadersOf(await send('GET', '/articles', { Origin: origin })), { 'access-control-allow-origin': origin });
  const reports = await send('OPTIONS', '/reports', { Origin: origin, 'Access-Control-Request-Method': 'GET' });
  t.same(corsHeadersOf(reports), {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    'access-control-max-age': '600',
    vary: 'Access-Control-Request-Headers',
  });
  t.equal((await send('GET', '/reports', { Origin: origin })).headers['access-control-expose-headers'], 'X-Total-Count');
  t.same(corsHeadersOf(await send('GET', '/public', { Origin: 'https://anyone.example' })), { 'access-control-allow-origin': '*' });
});

t.test('cookies: credentials for listed origins only', async (t) => {
  const url = await startExample(t, 'cookies');
  const send = (method: string, path: string, headers?: RequestHeaders) => fetchAnswer(url + path, method, headers);
  const login = await send('POST', '/login', { Origin: 'https://app.example.com' });
  t.same(login.headers['set-cookie'], ['session=abc123; Path=/; HttpOnly; SameSite=Lax', 'theme=dark; Max-Age=3600; Path=/']);
  t.same(corsHeadersOf(login), { 'access-control-allow-origin': 'https://app.example.com', 'access-control-allow-credentials': 'true', vary: 'Origin' });
  const refused = await send('POST', '/login', { Origin: 'https://evil.example' });
  t.same(corsHeadersOf(refused), { 'access-control-allow-credentials': 'true', vary: 'Origin' }, 'no origin granted, so the browser refuses');
  const preflight = await send('OPTIONS', '/me', { Origin: 'http://127.0.0.1:5173', 'Access-Control-Request-Method': 'GET' });
  t.same(corsHeadersOf(preflight), {
    'access-control-allow-origin': 'http://127.0.0.1:5173',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    'access-control-allow-credentials': 'true',
    vary: 'Origin, Access-Control-Request-Headers',
  });
});
