// fastify + @fastify/cors, configured to the benchmark's policy (JavaScript: peers are not type-checked with the library).
import Fastify from 'fastify';
import cors from '@fastify/cors';

import { ALLOWED_ORIGIN, announce, BODY, EXTRA_PATHS, MAX_AGE, ROUTES } from '../../build/bench/servers/policy.js';

const app = Fastify({ logger: false });
await app.register(cors, { origin: ALLOWED_ORIGIN, maxAge: MAX_AGE, credentials: false });
const handler = (_request, reply) => reply.type('application/json; charset=utf-8').send(BODY);
for (const path of EXTRA_PATHS) app.get(path, handler);
for (const [method, path] of ROUTES) app.route({ method, url: path, handler });
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server.address().port);
