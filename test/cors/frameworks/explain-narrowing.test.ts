/**
 * Issue 45: where rule F narrows a grant the user probably meant (two routes of one URL with
 * different policies), `cors.explain()` of Express, Koa and hono says so, naming both routes; a
 * URL matched by one route is explained without them. The frameworks' own routers are read.
 */
import Router from '@koa/router';
import { createCors as expressCors } from '@lib/cors/express';
import { createCors as honoCors } from '@lib/cors/hono';
import { createCors as koaCors } from '@lib/cors/koa';
import express from 'express';
import { Hono } from 'hono';
import Koa from 'koa';
import t from 'tap';

import { captureLogger } from '../../helpers/http.js';

const PARTNER = 'https://partner.example';
const read = (origin: string, url: string) => ({ method: 'GET', url, headers: { origin } });
const open = { origin: [PARTNER] };
const closed = { origin: false as const };

t.test('Express: /users/admin, matched by its own closed route and by /users/:id, names both', async (t) => {
  const { logger } = captureLogger();
  const app = express();
  const cors = expressCors({ origin: ['https://app.example'] }, { logger });
  app.use(cors);
  app.get('/users/:id', cors.route(open), (_req, res) => res.end('user'));
  app.get('/users/admin', cors.route(closed), (_req, res) => res.end('admin'));
  app.get('/teams/:id', cors.route(open), (_req, res) => res.end('team'));
  await t.rejects(cors.explain(read(PARTNER, '/users/admin')), { code: 'CORS_NO_ENGINE' }, 'before the routes are read');
  cors.mirror(app);
  const narrowed = await cors.explain(read(PARTNER, '/users/admin'));
  t.equal(narrowed.allowed, false);
  t.match(narrowed.routes, [/\/users\/:id/, /\/users\/admin/]);
  t.match(narrowed.message, /matched by .*\/users\/:id.* and .*\/users\/admin.*rule F/);
  const alone = await cors.explain(read(PARTNER, '/teams/7'));
  t.equal(alone.allowed, true, 'one route: its own policy');
  t.equal(alone.routes, undefined, 'and no route named');
});

t.test('Koa with @koa/router: the same two routes, both named', async (t) => {
  const { logger } = captureLogger();
  const app = new Koa();
  const router = new Router();
  const cors = koaCors({ origin: ['https://app.example'] }, { logger });
  router.get('/users/:id', cors.route(open), (ctx) => {
    ctx.body = 'user';
  });
  router.get('/users/admin', cors.route(closed), (ctx) => {
    ctx.body = 'admin';
  });
  app.use(cors).use(router.routes());
  cors.mirror(app);
  const narrowed = await cors.explain(read(PARTNER, '/users/admin'));
  t.equal(narrowed.allowed, false);
  t.match(narrowed.routes, [/\/users\/:id/, /\/users\/admin/]);
  t.equal((await cors.explain(read(PARTNER, '/users/7'))).routes, undefined, '/users/7 is matched by one route');
});

t.test('hono: the same two routes, both named', async (t) => {
  const { logger } = captureLogger();
  const app = new Hono();
  const cors = honoCors(app, { origin: ['https://app.example'] }, { logger });
  app.use(cors);
  app.get('/users/:id', cors.route(open), (c) => c.text('user'));
  app.get('/users/admin', cors.route(closed), (c) => c.text('admin'));
  const narrowed = await cors.explain(read(PARTNER, '/users/admin'));
  t.equal(narrowed.allowed, false);
  t.match(narrowed.routes, [/\/users\/:id/, /\/users\/admin/]);
  t.match(await cors.explain(read(PARTNER, '/users/7')), { allowed: true, routes: undefined });
});
