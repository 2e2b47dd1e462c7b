// The fastify application of the fastify peers, with the CORS plugin it is given (@fastify/cors in fastify.mjs,
// @lib/cors/fastify in fastify-lib.mjs), registered with `await` before the routes: the benchmark's routes, served
// on 127.0.0.1.
import Fastify from 'fastify';

import { announce, BODY, EXTRA_PATHS, ROUTES } from '../../build/bench/servers/policy.js';

export async function serveFastify(plugin, options) {
  const app = Fastify({ logger: false });
  await app.register(plugin, options);
  const handler = (_request, reply) => reply.type('application/json; charset=utf-8').send(BODY);
  for (const path of EXTRA_PATHS) app.get(path, handler);
  for (const [method, path] of ROUTES) app.route({ method, url: path, handler });
  await app.listen({ port: 0, host: '127.0.0.1' });
  announce(app.server.address().port);
}
