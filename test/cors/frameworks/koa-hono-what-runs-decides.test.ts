/**
 * Koa and hono under rule F, as an adversarial probe of their new entry points found them giving
 * a grant the route that ran does not allow (each case fails on the build before its fix):
 * - a path-less `router.use(cors.route(o))` in a router nested without a prefix, and a sub-app's
 *   `app.use(cors.route(o))` routed at '/': @koa/router and hono merge the routers' routes into
 *   one list, so the marker gave its options to every other router's routes after it;
 * - a sub-app's own middleware copied into its parent by `app.route('/books', books)`: it matched
 *   the parent's URLs against the sub-app's routes, found none, and gave the middleware's options;
 * - an error object or a Response an application returns from several requests kept the first
 *   request's grant for the next ones;
 * - hono's `app.all()` runs any method, those no route names included: those were answered as no
 *   route's, under the middleware's options.
 */
import Router from '@koa/router';
import { Hono } from 'hono';
import Koa from 'koa';
import t from 'tap';

import { createCors as createHonoCors } from '@lib/cors/hono';
import { createCors as createKoaCors } from '@lib/cors/koa';

import { serve } from '../../helpers/http.js';

const quiet = { warn: () => {}, error: () => {} };
const A = 'https://a.test';
const B = 'https://b.test';
const BASE = { origin: [A, 'https://a2.test'] };
const PARTNERS = { origin: [B, 'https://b2.test'], allowCredentials: true };

const honoSend = async (app: Hono, method: string, path: string, origin: string) => {
  const response = await app.fetch(new Request(`http://api.test${path}`, { method, headers: { Origin: origin } }));
  await response.text();
  return { ran: response.headers.get('x-route'), granted: response.headers.get('access-control-allow-origin') };
};

t.test("Koa: a path-less marker in a router nested without a prefix gives no other router's routes its options", async (t) => {
  const app = new Koa();
  const cors = createKoaCors(BASE, { logger: quiet });
  const partner = new Router();
  partner.use(cors.route(PARTNERS));
  partner.get('/partner/feed', (ctx) => {
    ctx.body = 'feed';
  });
  const admin = new Router();
  admin.get('/admin/users', (ctx) => {
    ctx.set('x-route', 'admin-users');
    ctx.body = 'users';
  });
  const api = new Router();
  api.use(partner.routes());
  api.use(admin.routes());
  app.use(cors).use(api.routes());
  const server = await serve(app.callback());
  t.teardown(server.close);
  const seen = await server.send('GET', '/admin/users', { Origin: B });
  t.equal(seen.headers['x-route'], 'admin-users');
  t.equal(seen.headers['access-control-allow-origin'], undefined, "not the partner router's grant");
  t.equal(seen.headers['access-control-allow-credentials'], undefined);
});

t.test("hono: a sub-app's path-less marker routed at '/' gives no other sub-app's routes its options", async (t) => {
  const app = new Hono();
  const cors = createHonoCors(app, BASE, { logger: quiet });
  app.use(cors);
  const partner = new Hono();
  partner.use(cors.route(PARTNERS));
  partner.get('/partner/feed', (c) => c.text('feed'));
  const admin = new Hono();
  admin.get('/admin/users', (c) => c.text('users', 200, { 'x-route': 'admin-users' }));
  app.route('/', partner);
  app.route('/', admin);
  t.same(await honoSend(app, 'GET', '/admin/users', B), { ran: 'admin-users', granted: null });
});

t.test("hono: a sub-app's own middleware run by its parent answers nothing, never the middleware's options", async (t) => {
  const books = new Hono();
  const logged: string[] = [];
  const cors = createHonoCors(books, BASE, { logger: { warn: () => {}, error: (line: string) => void logged.push(line) } });
  books.use(cors);
  books.get('/admin', cors.route({ origin: [B, 'https://b2.test'] }), (c) => c.text('admin', 200, { 'x-route': 'books-admin' }));
  const app = new Hono();
  app.route('/books', books);
  t.same(await honoSend(app, 'GET', '/books/admin', A), { ran: 'books-admin', granted: null }, 'no grant the route does not give');
  t.match(logged.join('\n'), /runs in another app/, 'said in the log');
});

t.test('Koa: an error object thrown again by other requests keeps no earlier grant', async (t) => {
  const app = new Koa();
  app.silent = true;
  const cors = createKoaCors(BASE, { logger: quiet });
  const forbidden = Object.assign(new Error('forbidden'), { status: 403, expose: true });
  const router = new Router();
  router.post('/open', cors.route(PARTNERS), () => {
    throw forbidden;
  });
  router.post('/plain', () => {
    throw forbidden;
  });
  app.use(cors).use(router.routes());
  const server = await serve(app.callback());
  t.teardown(server.close);
  t.equal((await server.send('POST', '/open', { Origin: B })).headers['access-control-allow-origin'], B);
  const plain = await server.send('POST', '/plain', { Origin: 'https://evil.test' });
  t.equal(plain.status, 403);
  t.equal(plain.headers['access-control-allow-origin'], undefined, "not the earlier request's grant");
  t.equal(plain.headers['access-control-allow-credentials'], undefined);
});

t.test('hono: a Response returned from several requests keeps no earlier grant', async (t) => {
  const app = new Hono();
  const cors = createHonoCors(app, BASE, { logger: quiet });
  app.use(cors);
  const done = new Response(null, { status: 204 });
  app.post('/open', cors.route(PARTNERS), () => done);
  app.post('/plain', () => done);
  t.equal((await honoSend(app, 'POST', '/open', B)).granted, B);
  t.equal((await honoSend(app, 'POST', '/plain', 'https://evil.test')).granted, null);
  t.equal((await honoSend(app, 'POST', '/plain', B)).granted, null);
});

t.test('hono: app.all() decides the methods no route names, which hono runs it for too', async (t) => {
  const app = new Hono();
  const cors = createHonoCors(app, BASE, { logger: quiet });
  app.use(cors);
  app.all('/secret', cors.route({ origin: [B, 'https://b2.test'] }), (c) => c.text('secret', 200, { 'x-route': 'all-secret' }));
  for (const method of ['PROPFIND', 'PURGE']) {
    t.same(await honoSend(app, method, '/secret', A), { ran: 'all-secret', granted: null }, `${method}: under the route's policy, not the middleware's`);
  }
  t.equal((await honoSend(app, 'PURGE', '/secret', B)).granted, B);
});
