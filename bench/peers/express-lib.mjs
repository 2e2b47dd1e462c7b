// Ours in express: the same express, routes and policy as peers/express.mjs, with @lib/cors/express app.use()d in
// place of cors (one line before the routes, as its README says; the routes are read at the first request).
import { createCors } from '@lib/cors/express';

// express-app.mjs next: it imports policy.js after express, which marks where the server's own code starts.
import { serveExpress } from './express-app.mjs';

import { ALLOWED_ORIGIN, MAX_AGE } from '../../build/bench/servers/policy.js';

serveExpress(createCors({ origin: ALLOWED_ORIGIN, maxAge: MAX_AGE }));
