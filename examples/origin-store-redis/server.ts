/**
 * Allowed origins kept in Redis, shared by every instance: `REDIS_URL=redis://127.0.0.1:6379
 * npm run example -- origin-store-redis` (PORT=3000 by default). Start it twice on two ports and
 * grant or revoke an origin from either (or from any process with a store on the same Redis): both
 * answer the change at once. docs/operations.md, "Many instances".
 */
import { createServer } from 'node:http';

import { Redis } from 'ioredis';

import { redisOrigins } from '@lib/cors/origin-store';
import { createCors } from '@lib/cors/standalone';

// maxRetriesPerRequest: 1, so a command fails soon while Redis is down (the store refuses the
// origin then); the store tells the outage once, so the client's own errors are not logged again.
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1, retryStrategy: () => 200 });
redis.on('error', () => {});

// Each customer's list is keyed by the first label of the Host: acme.api.example.com is 'acme'.
const origins = redisOrigins({ client: redis, tenant: (req) => req.headers.host?.split('.')[0] });

const cors = createCors({ origin: origins.origin, allowCredentials: true, allowedHeaders: ['Content-Type'] }).route(['GET', 'PUT'], '/data');

const server = createServer((req, res) =>
  cors.handle(req, res, async () => {
    // An administrator's grant and revocation, written once for every instance. (Unauthenticated
    // here to keep the example short: put your own authentication in front of it.)
    const admin = /^\/admin\/(grant|revoke)\?origin=(.+)$/.exec(req.url ?? '');
    if (admin !== null && req.method === 'POST') {
      const tenant = req.headers.host?.split('.')[0] ?? '';
      await (admin[1] === 'grant' ? origins.grant(tenant, decodeURIComponent(admin[2]!)) : origins.revoke(tenant, decodeURIComponent(admin[2]!)));
      res.end('done\n');
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ data: 'for the allowed origins of this tenant' }));
  }),
);

const port = Number(process.env.PORT ?? 3000);
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : port}`;
  console.log(`origin-store-redis example listening on ${url}`);
  console.log(`
  grant:   curl -i -X POST '${url}/admin/grant?origin=https://app.acme.test' -H 'Host: acme.api.test'
  ask:     curl -i ${url}/data -H 'Host: acme.api.test' -H 'Origin: https://app.acme.test'
  revoke:  curl -i -X POST '${url}/admin/revoke?origin=https://app.acme.test' -H 'Host: acme.api.test'
  ask again: curl -i ${url}/data -H 'Host: acme.api.test' -H 'Origin: https://app.acme.test'
Stop it with Ctrl+C.`);
});
