// The express application of the express peers, with the CORS middleware it is given (cors in express.mjs,
// @lib/cors/express in express-lib.mjs), app.use()d before the routes: the benchmark's routes, served by node:http
// on 127.0.0.1.
import { createServer } from 'node:http';

import express from 'express';

import { announce, BODY, EXTRA_PATHS, ROUTES } from '../../build/bench/servers/policy.js';

export function serveExpress(cors) {
  const app = express();
  app.disable('x-powered-by');
  app.use(cors);
  const handler = (_req, res) => res.type('application/json; charset=utf-8').send(BODY);
  for (const path of EXTRA_PATHS) app.get(path, handler);
  for (const [method, path] of ROUTES) app[method.toLowerCase()](path, handler);
  const server = createServer(app).listen(0, '127.0.0.1', () => announce(server.address().port));
}
