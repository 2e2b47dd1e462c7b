// Ours in fastify: the same fastify, routes and policy as peers/fastify.mjs, with @lib/cors/fastify registered in
// place of @fastify/cors (awaited before the routes, as its README says).
import cors from '@lib/cors/fastify';

// fastify-app.mjs next: it imports policy.js after fastify, which marks where the server's own code starts.
import { serveFastify } from './fastify-app.mjs';

import { ALLOWED_ORIGIN, MAX_AGE } from '../../build/bench/servers/policy.js';

await serveFastify(cors, { origin: ALLOWED_ORIGIN, maxAge: MAX_AGE });
