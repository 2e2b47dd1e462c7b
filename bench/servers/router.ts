/**
 * The reference for `--startup`: the standalone server's own find-my-way router with the same
 * routes, and no CORS. What a route costs the application before any CORS library is added.
 */
import { createServer } from 'node:http';

import Router from 'find-my-way';

import { ALLOWED_ORIGIN, announce, BODY, EXTRA_PATHS, ROUTES } from './policy.js';

const router = Router();
for (const [method, path] of [...EXTRA_PATHS.map((path) => ['GET', path] as const), ...ROUTES]) {
  router.on(method as 'GET', path, (_req, res) => {
    // The one CORS header the start-up check reads, written as a constant.
    res.setHeader('Access-Control-Allow-Origin', ALLOWED_ORIGIN);
    res.setHeader('Content-Type', 'application/json');
    res.end(BODY);
  });
}
const server = createServer((req, res) => router.lookup(req, res));
server.listen(0, '127.0.0.1', () => announce((server.address() as { port: number }).port));
