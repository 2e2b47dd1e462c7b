/**
 * The hono middleware for @lib/cors/fetch that the README gave before @lib/cors/hono (the
 * bench still runs it, bench/peers/hono-app.mjs), in hono 4: it answers as the adapter
 * does, and assigns `c.res` only when the adapter answered itself or had to copy the response,
 * since hono copies the response and its headers on every assignment over an existing one.
 */
import type { Context, Next } from 'hono';
import { Hono } from 'hono';
import t from 'tap';

import { createCors } from '@lib/cors/fetch';

const ORIGIN = 'https://app.example.com';

/** The README's middleware, as written there. */
function readmeMiddleware(cors: ReturnType<typeof createCors>) {
  return async (c: Context, next: Next) => {
    let handled: Response | undefined;
    const response = await cors.handle(c.req.raw, async () => {
      await next();
      handled = c.res;
      return handled;
    });
    if (response !== handled) {
      // A preflight's answer, or a copy of immutable headers; cleared first, since hono 4.0
      // delete from the old response's headers as they merge them, which throws on immutable ones.
      c.res = undefined as unknown as Response;
      c.res = response;
    }
  };
}

/** An app with the README's middleware, a JSON route keeping the Response it made, a redirect, and a route setting Vary and two cookies. */
function appWith(options: Parameters<typeof createCors>[0]) {
  const cors = createCors(options).route(['GET', 'PUT'], '/users/:id').route('GET', '/moved').route('GET', '/cookies');
  const made: Response[] = [];
  const app = new Hono();
  app.use(readmeMiddleware(cors));
  app.get('/users/:id', (c) => {
    const response = c.json({ id: c.req.param('id') });
    made.push(response);
    return response;
  });
  app.put('/users/:id', (c) => c.json({ saved: true }));
  app.get('/moved', () => Response.redirect('https://elsewhere.example/', 302));
  app.get('/cookies', (c) => {
    c.header('Vary', 'Accept');
    c.header('Set-Cookie', 'a=1', { append: true });
    c.header('Set-Cookie', 'b=2', { append: true });
    return c.text('ok');
  });
  return { app, made };
}

const request = (path: string, init: RequestInit = {}) => new Request(`http://127.0.0.1${path}`, init);

t.test('a preflight is answered by the adapter, before any route', async (t) => {
  const { app } = appWith({ origin: ORIGIN, maxAge: 600 });
  const response = await app.fetch(
    request('/users/7', {
      method: 'OPTIONS',
      headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type' },
    }),
  );
  t.equal(response.status, 204);
  t.equal(response.headers.get('access-control-allow-origin'), ORIGIN);
  t.equal(response.headers.get('access-control-allow-methods'), 'GET, HEAD, PUT, OPTIONS');
  t.equal(response.headers.get('access-control-allow-headers'), 'content-type');
  t.equal(response.headers.get('access-control-max-age'), '600');
});

t.test("an actual request gets the grant on hono's own Response, not on a copy", async (t) => {
  const { app, made } = appWith({ origin: ORIGIN });
  for (const headers of [{ Origin: ORIGIN }, {}] as Record<string, string>[]) {
    const response = await app.fetch(request('/users/7', { headers }));
    t.equal(response, made.at(-1), `${JSON.stringify(headers)}: the Response the route made`);
    t.equal(response.headers.get('access-control-allow-origin'), ORIGIN, 'rule A: the grant, Origin or not');
    t.same(await response.json(), { id: '7' });
  }
});

t.test("a dynamic policy: Vary merged with the route's, cookies kept once each, a refused origin gets no grant", async (t) => {
  const { app } = appWith({ origin: [ORIGIN, 'https://admin.example.com'] });
  const allowed = await app.fetch(request('/cookies', { headers: { Origin: ORIGIN } }));
  t.equal(allowed.headers.get('access-control-allow-origin'), ORIGIN);
  t.equal(allowed.headers.get('vary'), 'Accept, Origin');
  t.same(allowed.headers.getSetCookie(), ['a=1', 'b=2']);
  const refused = await app.fetch(request('/cookies', { headers: { Origin: 'https://evil.example' } }));
  t.equal(refused.headers.get('access-control-allow-origin'), null);
  t.equal(refused.headers.get('vary'), 'Accept, Origin');
});

t.test('a Response with immutable headers (Response.redirect) is copied by the adapter and assigned', async (t) => {
  const { app } = appWith({ origin: ORIGIN });
  const response = await app.fetch(request('/moved', { headers: { Origin: ORIGIN } }));
  t.equal(response.status, 302);
  t.equal(response.headers.get('location'), 'https://elsewhere.example/');
  t.equal(response.headers.get('access-control-allow-origin'), ORIGIN);
});
