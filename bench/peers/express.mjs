// express + cors, configured to the benchmark's policy.
import { createServer } from 'node:http';

import express from 'express';
import cors from 'cors';

import { ALLOWED_ORIGIN, announce, BODY, EXTRA_PATHS, MAX_AGE, ROUTES } from '../../build/bench/servers/policy.js';

const app = express();
app.disable('x-powered-by');
app.use(cors({ origin: ALLOWED_ORIGIN, maxAge: MAX_AGE }));
const handler = (_req, res) => res.type('application/json; charset=utf-8').send(BODY);
for (const path of EXTRA_PATHS) app.get(path, handler);
for (const [method, path] of ROUTES) app[method.toLowerCase()](path, handler);
const server = createServer(app).listen(0, '127.0.0.1', () => announce(server.address().port));
