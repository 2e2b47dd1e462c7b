// The hono application of the hono peers, with one of three CORS middlewares: hono's own cors ('hono');
// @lib/cors/fetch as the main README shows it ('lib', each route also given to the adapter with route()); or
// @lib/cors/hono ('lib-hono', one app.use(createCors(app, options)) line before the routes, which it reads from the
// app at the first request). The routes and policy are the benchmark's. Served by @hono/node-server (hono.mjs,
// hono-fetch.mjs, hono-lib.mjs), Deno or Bun (hono-runtime.mjs).
import { Hono } from 'hono';
import { cors as honoCors } from 'hono/cors';
import { createCors } from '@lib/cors/fetch';
import { createCors as createHonoCors } from '@lib/cors/hono';

import { ALLOWED_ORIGIN, BODY, EXTRA_PATHS, MAX_AGE, ROUTES } from '../../build/bench/servers/policy.js';

export function honoApp(corsKind) {
  const app = new Hono();
  const cors = corsKind === 'lib' ? createCors({ origin: ALLOWED_ORIGIN, maxAge: MAX_AGE }) : undefined;
  if (corsKind === 'lib-hono') {
    app.use(createHonoCors(app, { origin: ALLOWED_ORIGIN, maxAge: MAX_AGE }));
  } else if (cors === undefined) {
    app.use('*', honoCors({ origin: ALLOWED_ORIGIN, maxAge: MAX_AGE }));
  } else {
    app.use(async (c, next) => {
      let handled;
      const response = await cors.handle(c.req.raw, async () => {
        await next();
        handled = c.res;
        return handled;
      });
      if (response !== handled) c.res = response;
    });
  }
  const handler = (c) => c.body(BODY, 200, { 'Content-Type': 'application/json; charset=utf-8' });
  for (const [method, path] of [...EXTRA_PATHS.map((path) => ['GET', path]), ...ROUTES]) {
    cors?.route(method, path);
    app.on(method, path, handler);
  }
  return app;
}
