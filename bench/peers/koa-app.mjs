// The Koa application of the koa peers, with the CORS middleware it is given (@koa/cors in koa.mjs, @lib/cors/koa in
// koa-lib.mjs), app.use()d before one @koa/router router with the benchmark's routes and its allowedMethods() (as
// @koa/router's README sets an application up: it answers a plain OPTIONS with Allow), served by node:http on
// 127.0.0.1.
import { createServer } from 'node:http';

import Koa from 'koa';
import Router from '@koa/router';

import { announce, BODY, EXTRA_PATHS, ROUTES } from '../../build/bench/servers/policy.js';

export function serveKoa(cors) {
  const app = new Koa();
  const router = new Router();
  const handler = (ctx) => {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = BODY;
  };
  for (const path of EXTRA_PATHS) router.get(path, handler);
  for (const [method, path] of ROUTES) router[method.toLowerCase()](path, handler);
  app.use(cors);
  app.use(router.routes());
  app.use(router.allowedMethods());
  const server = createServer(app.callback()).listen(0, '127.0.0.1', () => announce(server.address().port));
}
