/** What the standalone servers share: @lib/cors/standalone in front of a find-my-way router holding the route set. */
import { createServer } from 'node:http';

import Router from 'find-my-way';
import { type CorsOptions, createCors } from '@lib/cors/standalone';

import { announce, BODY, EXTRA_PATHS, MAX_AGE, ROUTES } from './policy.js';

/** Serves the route set with `options` (and the benchmark's `maxAge`), and announces the port. */
export function serveStandalone(options: CorsOptions): void {
  const router = Router();
  for (const [method, path] of [...EXTRA_PATHS.map((path) => ['GET', path] as const), ...ROUTES]) {
    router.on(method as 'GET', path, (_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(BODY);
    });
  }
  const cors = createCors({ ...options, maxAge: MAX_AGE }).mirror(router);
  const server = createServer((req, res) => cors.handle(req, res, () => router.lookup(req, res)));
  server.listen(0, '127.0.0.1', () => announce((server.address() as { port: number }).port));
}
