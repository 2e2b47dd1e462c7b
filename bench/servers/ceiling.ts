/**
 * The ceiling: a bare node:http server writing the same headers as the CORS servers from
 * constants, with no routing and no checks. Nothing correct can be faster.
 */
import { createServer } from 'node:http';

import { ALLOWED_ORIGIN, announce, BODY, MAX_AGE } from './policy.js';

const server = createServer((req, res) => {
  res.setHeader('Access-Control-Allow-Origin', ALLOWED_ORIGIN);
  if (req.method === 'OPTIONS') {
    if (req.headers['access-control-request-method'] !== undefined) {
      res.setHeader('Vary', 'Access-Control-Request-Headers');
      res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, POST, OPTIONS');
      const requested = req.headers['access-control-request-headers'];
      if (requested !== undefined) res.setHeader('Access-Control-Allow-Headers', requested);
      res.setHeader('Access-Control-Max-Age', String(MAX_AGE));
    } else {
      res.setHeader('Allow', 'GET, HEAD, POST, OPTIONS');
    }
    res.statusCode = 204;
    res.setHeader('Content-Length', '0');
    res.end();
    return;
  }
  res.setHeader('Content-Type', 'application/json');
  res.end(BODY);
});
server.listen(0, '127.0.0.1', () => announce((server.address() as { port: number }).port));
