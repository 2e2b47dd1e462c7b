/** @lib/cors/standalone in front of a find-my-way router holding the routes. */
import { createServer } from 'node:http';

import Router from 'find-my-way';
import { createCors } from '@lib/cors/standalone';

import { ALLOWED_ORIGIN, announce, BODY, EXTRA_PATHS, MAX_AGE, ROUTES } from './policy.js';

const router = Router();
for (const [method, path] of [...EXTRA_PATHS.map((path) => ['GET', path] as const), ...ROUTES]) {
  router.on(method as 'GET', path, (_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(BODY);
  });
}
const cors = createCors({ origin: ALLOWED_ORIGIN, maxAge: MAX_AGE }).mirror(router);
const server = createServer((req, res) => cors.handle(req, res, () => router.lookup(req, res)));
server.listen(0, '127.0.0.1', () => announce((server.address() as { port: number }).port));
