// Ours in Koa: the same Koa, @koa/router routes and policy as peers/koa.mjs, with @lib/cors/koa app.use()d in place
// of @koa/cors (one line before the routers, as its README says; the routes are read at the first request).
import { createCors } from '@lib/cors/koa';

// koa-app.mjs next: it imports policy.js after koa, which marks where the server's own code starts.
import { serveKoa } from './koa-app.mjs';

import { ALLOWED_ORIGIN, MAX_AGE } from '../../build/bench/servers/policy.js';

serveKoa(createCors({ origin: ALLOWED_ORIGIN, maxAge: MAX_AGE }));
