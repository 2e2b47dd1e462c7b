// hono on @hono/node-server + hono's cors, configured to the benchmark's policy.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { cors } from 'hono/cors';

import { ALLOWED_ORIGIN, announce, BODY, EXTRA_PATHS, MAX_AGE, ROUTES } from '../../build/bench/servers/policy.js';

const app = new Hono();
app.use('*', cors({ origin: ALLOWED_ORIGIN, maxAge: MAX_AGE }));
const handler = (c) => c.body(BODY, 200, { 'Content-Type': 'application/json; charset=utf-8' });
for (const path of EXTRA_PATHS) app.get(path, handler);
for (const [method, path] of ROUTES) app.on(method, path, handler);
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info.port));
void server;
