// fastify + @fastify/cors, configured to the benchmark's policy (JavaScript: peers are not type-checked with the library).
import cors from '@fastify/cors';

// fastify-app.mjs next: it imports policy.js after fastify, which marks where the server's own code starts.
import { serveFastify } from './fastify-app.mjs';

import { ALLOWED_ORIGIN, MAX_AGE } from '../../build/bench/servers/policy.js';

await serveFastify(cors, { origin: ALLOWED_ORIGIN, maxAge: MAX_AGE, credentials: false });
