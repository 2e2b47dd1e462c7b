// Koa + @koa/router + @koa/cors, configured to the benchmark's policy.
import cors from '@koa/cors';

// koa-app.mjs next: it imports policy.js after koa, which marks where the server's own code starts.
import { serveKoa } from './koa-app.mjs';

import { ALLOWED_ORIGIN, MAX_AGE } from '../../build/bench/servers/policy.js';

serveKoa(cors({ origin: ALLOWED_ORIGIN, maxAge: MAX_AGE }));
