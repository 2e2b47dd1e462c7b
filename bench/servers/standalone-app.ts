/** What the standalone servers share: @lib/cors/standalone in front of a find-my-way router holding the route set. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

import Router from 'find-my-way';
import { type CorsOptions, createCors } from '@lib/cors/standalone';

import { countingTables, reportTableCount } from './table-count.js';
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
  const serve = (req: IncomingMessage, res: ServerResponse) => cors.handle(req, res, () => router.lookup(req, res));
  // BENCH_COUNT_TABLES only: the tables and answer sets, once the first request sealed the engine.
  const server = createServer(
    countingTables
      ? (req, res) => {
          serve(req, res);
          reportTableCount();
        }
      : serve,
  );
  server.listen(0, '127.0.0.1', () => announce((server.address() as { port: number }).port));
}
