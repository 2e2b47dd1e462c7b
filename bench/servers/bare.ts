/** The host's baseline: a bare node:http handler writing the same body as the host's route (node:http adds its Content-Length). */
import { createServer } from 'node:http';

import { announce, BODY } from './policy.js';

const server = createServer((_req, res) => {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(BODY);
});
server.listen(0, '127.0.0.1', () => announce((server.address() as { port: number }).port));
