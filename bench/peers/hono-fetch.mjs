// hono on @hono/node-server + @lib/cors/fetch as a middleware (the pattern the README gives), configured to the
// benchmark's policy: the same routes and server as peers/hono.mjs, with our adapter in place of hono/cors.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createCors } from '@lib/cors/fetch';

import { ALLOWED_ORIGIN, announce, BODY, EXTRA_PATHS, MAX_AGE, ROUTES } from '../../build/bench/servers/policy.js';

const cors = createCors({ origin: ALLOWED_ORIGIN, maxAge: MAX_AGE });
const app = new Hono();
app.use(async (c, next) => {
  c.res = await cors.handle(c.req.raw, async () => {
    await next();
    return c.res;
  });
});
const handler = (c) => c.body(BODY, 200, { 'Content-Type': 'application/json; charset=utf-8' });
for (const path of EXTRA_PATHS) {
  cors.route('GET', path);
  app.get(path, handler);
}
for (const [method, path] of ROUTES) {
  cors.route(method, path);
  app.on(method, path, handler);
}
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info.port));
void server;
