// express + cors, configured to the benchmark's policy.
import cors from 'cors';

// express-app.mjs next: it imports policy.js after express, which marks where the server's own code starts.
import { serveExpress } from './express-app.mjs';

import { ALLOWED_ORIGIN, MAX_AGE } from '../../build/bench/servers/policy.js';

serveExpress(cors({ origin: ALLOWED_ORIGIN, maxAge: MAX_AGE }));
