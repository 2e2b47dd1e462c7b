// Ours in fastify: the same fastify, routes and policy as peers/fastify.mjs, with @lib/cors/fastify registered in
// place of @fastify/cors (awaited before the routes, as its README says).
import Fastify from 'fastify';
import cors from '@lib/cors/fastify';

import { ALLOWED_ORIGIN, announce, BODY, EXTRA_PATHS, MAX_AGE, ROUTES } from '../../build/bench/servers/policy.js';

const app = Fastify({ logger: false });
await app.register(cors, { origin: ALLOWED_ORIGIN, maxAge: MAX_AGE });
const handler = (_request, reply) => reply.type('application/json; charset=utf-8').send(BODY);
for (const path of EXTRA_PATHS) app.get(path, handler);
for (const [method, path] of ROUTES) app.route({ method, url: path, handler });
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server.address().port);
