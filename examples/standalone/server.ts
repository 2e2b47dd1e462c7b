/**
 * The standalone middleware on a raw node:http server: `npm run example -- standalone`
 * (PORT=3000 by default). It prints a curl command for each request kind it answers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

import { createCors } from '@lib/cors/standalone';

const users = [{ id: 1, name: 'Ada' }];

// The application: a handful of routes, no framework.
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  'GET /users': (_req, res) => sendJson(res, users),
  'POST /users': (_req, res) => sendJson(res, { created: true }, 201),
  'GET /health': (_req, res) => sendJson(res, { ok: true }),
};

// One policy for the app, a wider one for /health; each route registered once, at start-up.
const cors = createCors({ origin: ['https://app.example.com', 'https://admin.example.com'], maxAge: 600, exposedHeaders: ['X-Total-Count'] })
  .route(['GET', 'POST'], '/users')
  .route('GET', '/health', { origin: '*', exposedHeaders: [] });

const server = createServer((req, res) =>
  cors.handle(req, res, () => {
    const route = routes[`${req.method} ${req.url?.split('?')[0]}`];
    if (route === undefined) return sendJson(res, { error: 'not found' }, 404);
    route(req, res);
  }),
);

const port = Number(process.env.PORT ?? 3000);
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : port}`;
  console.log(`standalone example listening on ${url}`);
  console.log(`
Try each request kind:
  plain OPTIONS:        curl -i -X OPTIONS ${url}/users
  OPTIONS with Origin:  curl -i -X OPTIONS ${url}/users -H 'Origin: https://app.example.com'
  GET with Origin:      curl -i ${url}/users -H 'Origin: https://app.example.com'
  preflight:            curl -i -X OPTIONS ${url}/users -H 'Origin: https://app.example.com' -H 'Access-Control-Request-Method: POST' -H 'Access-Control-Request-Headers: content-type'
  refused origin:       curl -i ${url}/users -H 'Origin: https://evil.example'
  public route ('*'):   curl -i ${url}/health -H 'Origin: https://anyone.example'
`);
});

function sendJson(res: ServerResponse, value: unknown, status = 200): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'X-Total-Count': '1' });
  res.end(body);
}
