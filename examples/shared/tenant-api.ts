/**
 * The application both origin-store examples serve, whichever store keeps the lists: `GET|PUT
 * /data` for the allowed origins of the tenant named by the Host's first label, and an
 * administrator's grant and revocation. Prints its curl commands, then how to stop it.
 */
import { createServer } from 'node:http';

import type { OriginStore } from '@lib/cors/origin-store';
import { createCors } from '@lib/cors/standalone';

/** Each customer's list is keyed by the first label of the Host: acme.api.example.com is 'acme'. */
export const tenantOfHost = (req: { headers: { host?: string } }) => req.headers.host?.split('.')[0];

export function serveTenantApi(name: string, origins: OriginStore): void {
  const cors = createCors({ origin: origins.origin, allowCredentials: true, allowedHeaders: ['Content-Type'] }).route(['GET', 'PUT'], '/data');
  const server = createServer((req, res) =>
    cors.handle(req, res, async () => {
      // An administrator's grant and revocation, written once for every instance. (Unauthenticated
      // here to keep the example short: put your own authentication in front of it.)
      const admin = /^\/admin\/(grant|revoke)\?origin=(.+)$/.exec(req.url ?? '');
      if (admin !== null && req.method === 'POST') {
        const tenant = tenantOfHost(req) ?? '';
        const origin = decodeURIComponent(admin[2]!);
        try {
          await (admin[1] === 'grant' ? origins.grant(tenant, origin) : origins.revoke(tenant, origin));
          res.end('done\n');
        } catch (error) {
          // A refused origin (its fix in the message), or a store that did not take the write.
          res.statusCode = (error as { code?: string }).code === 'CORS_INVALID_ORIGIN' ? 400 : 503;
          res.end(`${(error as Error).message}\n`);
        }
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
    console.log(`${name} example listening on ${url}`);
    console.log(`
  grant:   curl -i -X POST '${url}/admin/grant?origin=https://app.acme.test' -H 'Host: acme.api.test'
  ask:     curl -i ${url}/data -H 'Host: acme.api.test' -H 'Origin: https://app.acme.test'
  revoke:  curl -i -X POST '${url}/admin/revoke?origin=https://app.acme.test' -H 'Host: acme.api.test'
  ask again: curl -i ${url}/data -H 'Host: acme.api.test' -H 'Origin: https://app.acme.test'
Stop it with Ctrl+C.`);
  });
}
