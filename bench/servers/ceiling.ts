/**
 * The ceiling: a bare node:http server writing the same headers as the CORS servers from
 * constants, with no routing and no checks, each answer in one writeHead() of a prebuilt list
 * (cheaper than setHeader() one by one). Nothing correct can be faster.
 *
 * With CEILING_WRITES=setHeader (the GET path's steps in `--instructions`), a GET sets its
 * headers one by one, as a handler behind a middleware must, and node:http adds Content-Length.
 */
import { createServer } from 'node:http';

import { ALLOWED_ORIGIN, announce, BODY, MAX_AGE } from './policy.js';

const ALLOW_ORIGIN = ['Access-Control-Allow-Origin', ALLOWED_ORIGIN];
const PREFLIGHT = [
  ...ALLOW_ORIGIN,
  'Vary',
  'Access-Control-Request-Headers',
  'Access-Control-Allow-Methods',
  'GET, HEAD, PUT, OPTIONS',
  'Access-Control-Max-Age',
  String(MAX_AGE),
];
// 204s carry no Content-Length (RFC 9110 8.6), as the engine's do.
const OPTIONS = [...ALLOW_ORIGIN, 'Allow', 'GET, HEAD, PUT, OPTIONS'];
const JSON_BODY = [...ALLOW_ORIGIN, 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(BODY))];

const headersOneByOne = process.env.CEILING_WRITES === 'setHeader';

const server = createServer((req, res) => {
  if (req.method !== 'OPTIONS') {
    if (headersOneByOne) {
      res.setHeader('Access-Control-Allow-Origin', ALLOWED_ORIGIN);
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(BODY);
    } else {
      res.writeHead(200, JSON_BODY).end(BODY);
    }
  } else if (req.headers['access-control-request-method'] === undefined) {
    res.writeHead(204, OPTIONS).end();
  } else {
    const requested = req.headers['access-control-request-headers'];
    res.writeHead(204, requested === undefined ? PREFLIGHT : [...PREFLIGHT, 'Access-Control-Allow-Headers', requested]).end();
  }
});
server.listen(0, '127.0.0.1', () => announce((server.address() as { port: number }).port));
