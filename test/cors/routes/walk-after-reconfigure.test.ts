/**
 * A URL's routes, once found, are kept (CandidateCache in core/route-markers.ts); what its
 * OPTIONS answers need of them (which paths share it, under which policies) is weighed again
 * after reconfigure() replaced the policies. Found by a review: a preflight on a URL seen before a
 * reconfigure() listed a method that now runs under another policy.
 */
import Router from '@koa/router';
import express5 from 'express';
import Koa from 'koa';
import t from 'tap';

import { createCors as createExpressCors } from '@lib/cors/express';
import { createCors as createKoaCors } from '@lib/cors/koa';

import { serve } from '../../helpers/http.js';

const quiet = { warn: () => {}, error: () => {} };
const BEFORE = { origin: 'https://before.test' };
const AFTER = { origin: 'https://after.test' };
const preflightOfGet = { Origin: BEFORE.origin, 'Access-Control-Request-Method': 'GET' };

// `PUT /users/me` runs under the middleware's options; `GET /users/:id`, whose path also serves
// PUT, under its own. Under one policy at first, the URL's answers are its path's; reconfigured,
// PUT /users/me runs under another policy, so a preflight for GET there must list GET alone.
t.test('Express: a preflight on a URL walked before reconfigure() lists what the new policies allow', async (t) => {
  const app = express5();
  const cors = createExpressCors(BEFORE, { logger: quiet });
  app.use(cors);
  app.put('/users/me', (_req, res) => void res.send('me'));
  app.get('/users/:id', cors.route(BEFORE), (_req, res) => void res.send('id'));
  app.put('/users/:id', cors.route(BEFORE), (_req, res) => void res.send('id'));
  cors.mirror(app);
  const server = await serve(app as never);
  t.teardown(server.close);
  // The URL's methods in the order Express's routes serve them (its own Allow's order).
  t.equal((await server.send('OPTIONS', '/users/me', preflightOfGet)).headers['access-control-allow-methods'], 'PUT, GET, HEAD, OPTIONS');
  cors.reconfigure(AFTER);
  t.equal((await server.send('OPTIONS', '/users/me', preflightOfGet)).headers['access-control-allow-methods'], 'GET');
});

t.test('Koa: the same', async (t) => {
  const app = new Koa();
  const router = new Router();
  const cors = createKoaCors(BEFORE, { logger: quiet });
  const answer = (ctx: Koa.Context) => {
    ctx.body = 'ok';
  };
  router.put('/users/me', answer);
  router.get('/users/:id', cors.route(BEFORE), answer);
  router.put('/users/:id', cors.route(BEFORE), answer);
  app.use(cors);
  app.use(router.routes());
  cors.mirror(app);
  const server = await serve(app.callback());
  t.teardown(server.close);
  t.equal((await server.send('OPTIONS', '/users/me', preflightOfGet)).headers['access-control-allow-methods'], 'PUT, GET, HEAD, OPTIONS');
  cors.reconfigure(AFTER);
  t.equal((await server.send('OPTIONS', '/users/me', preflightOfGet)).headers['access-control-allow-methods'], 'GET');
});
