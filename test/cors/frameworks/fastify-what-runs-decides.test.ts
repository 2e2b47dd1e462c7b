/**
 * fastify under rule F, as an adversarial probe of its redesigned plugin found it giving a
 * preflight a grant the route fastify then runs does not allow (each case failed before its fix):
 * - a root registration handing on a preflight a left-out route may run, which a registration in
 *   a child context then answered from its own routes;
 * - HTTP/2, where the host a route is constrained to comes as `:authority`, not `Host`;
 * - a host strategy of the application's (the host read from X-Forwarded-Host behind a proxy);
 * - a prefixed plugin's route declared as '' (fastify serves no `prefix/` twin for it);
 * - top-level router options beside `routerOptions` (fastify 5.5 on reports the top-level ones
 *   as defaults in `initialConfig.routerOptions`);
 * - fastify 4's `version` route option, which becomes a constraint only after onRoute.
 * Each asserts the route that then runs, so the case stays the one it was.
 */
import { connect } from 'node:http2';
import type { AddressInfo } from 'node:net';

import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import t from 'tap';

import fastifyCors from '@lib/cors/fastify';

const quiet = { warn: () => {}, error: () => {} };
const PARTNER = 'https://partner.test';
const APP = 'https://app.test';
const WWW = 'https://www.test';
const CONSOLE = 'https://console.test';

const tag = (name: string) => async () => name;

async function inject(app: FastifyInstance, method: string, url: string, headers: Record<string, string>) {
  const answer = await app.inject({ method: method as 'GET', url, headers });
  return { ran: answer.body, origin: answer.headers['access-control-allow-origin'], credentials: answer.headers['access-control-allow-credentials'] };
}
const preflight = (origin: string, method: string, more: Record<string, string> = {}) => ({ origin, 'access-control-request-method': method, ...more });

t.test('a preflight a left-out route may run is answered by no registration inside the one that leaves it out', async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  await app.register(fastifyCors, { origin: [APP], allowCredentials: true, logger: quiet });
  app.put('/v1/internal', { config: { cors: false } }, tag('internal'));
  await app.register(
    async (child) => {
      await child.register(fastifyCors, { origin: [PARTNER], allowCredentials: true, logger: quiet });
      child.put('/:name', tag('child /v1/:name'));
    },
    { prefix: '/v1' },
  );
  const asked = await inject(app, 'OPTIONS', '/v1/internal', preflight(PARTNER, 'PUT'));
  t.not(asked.origin, PARTNER);
  t.equal(asked.credentials, undefined);
  t.equal((await inject(app, 'PUT', '/v1/internal', { origin: PARTNER })).ran, 'internal', 'the left-out route runs the PUT');
  t.equal((await inject(app, 'OPTIONS', '/v1/other', preflight(PARTNER, 'PUT'))).origin, PARTNER, "the child's own routes keep their policy");
});

t.test('HTTP/2: a route constrained by host is told apart by :authority, as fastify routes it', async (t) => {
  const app = Fastify({ http2: true });
  t.teardown(() => app.close());
  await app.register(fastifyCors, { origin: [WWW], allowCredentials: true, logger: quiet });
  app.delete('/account', { constraints: { host: 'admin.test' }, config: { cors: { origin: [CONSOLE] } } }, tag('admin /account'));
  app.delete('/:resource', tag('public /:resource'));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const send = (headers: Record<string, string>) =>
    new Promise<{ ran: string; origin: unknown }>((resolve, reject) => {
      const client = connect(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
      const request = client.request({ ':path': '/account', ':authority': 'admin.test', ...headers });
      let origin: unknown;
      let ran = '';
      request.on('response', (response) => {
        origin = response['access-control-allow-origin'];
      });
      request.on('data', (chunk: Buffer) => {
        ran += chunk;
      });
      request.on('end', () => {
        client.close();
        resolve({ ran, origin });
      });
      request.on('error', reject);
      request.end();
    });
  t.not((await send({ ':method': 'OPTIONS', ...preflight(WWW, 'DELETE') })).origin, WWW, "not the public route's grant");
  t.equal((await send({ ':method': 'OPTIONS', ...preflight(CONSOLE, 'DELETE') })).origin, CONSOLE);
  t.equal((await send({ ':method': 'DELETE', origin: CONSOLE })).ran, 'admin /account', 'the admin route runs the DELETE');
});

t.test("a host strategy of the application's: a host-constrained route counts wherever its path matches", async (t) => {
  const hostFromProxy = {
    name: 'host',
    storage() {
      const kept = new Map<string, unknown>();
      return { get: (key: string) => (kept.get(key) ?? null) as never, set: (key: string, value: unknown) => void kept.set(key, value) };
    },
    deriveConstraint: (req: { headers: Record<string, string | undefined> }) => req.headers['x-forwarded-host'] ?? req.headers.host,
    validate() {},
  };
  const app = Fastify({ constraints: { host: hostFromProxy } } as FastifyServerOptions);
  t.teardown(() => app.close());
  await app.register(fastifyCors, { origin: [WWW], allowCredentials: true, logger: quiet });
  app.delete('/account', { constraints: { host: 'admin.test' }, config: { cors: { origin: [CONSOLE] } } }, tag('admin /account'));
  app.delete('/:resource', tag('public /:resource'));
  const proxied = { host: 'backend:3000', 'x-forwarded-host': 'admin.test' };
  t.not((await inject(app, 'OPTIONS', '/account', { ...proxied, ...preflight(WWW, 'DELETE') })).origin, WWW);
  t.equal((await inject(app, 'DELETE', '/account', { ...proxied, origin: WWW })).ran, 'admin /account', 'the admin route runs the DELETE');
});

t.test("a prefixed route declared as '' has no twin at prefix/: fastify runs another route there", async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  await app.register(fastifyCors, { origin: [APP], allowCredentials: true, logger: quiet });
  await app.register(
    async (api) => {
      api.post('', { config: { cors: { origin: [APP, PARTNER] } } }, tag("api ''"));
      api.post('/*', tag('api /*'));
    },
    { prefix: '/api' },
  );
  t.not((await inject(app, 'OPTIONS', '/api/', preflight(PARTNER, 'POST'))).origin, PARTNER);
  t.equal((await inject(app, 'POST', '/api/', { origin: PARTNER })).ran, 'api /*', 'the wildcard route runs the POST');
  t.equal((await inject(app, 'OPTIONS', '/api', preflight(PARTNER, 'POST'))).origin, PARTNER, "'' itself keeps its policy");
});

t.test('router options given at the top level beside routerOptions are the ones fastify routes with', async (t) => {
  const app = Fastify({ ignoreTrailingSlash: true, routerOptions: { maxParamLength: 200 } } as FastifyServerOptions);
  t.teardown(() => app.close());
  await app.register(fastifyCors, { origin: [APP], allowCredentials: true, logger: quiet });
  app.delete('/users/me', tag('/users/me'));
  app.delete('/users/*', { config: { cors: { origin: [APP, PARTNER] } } }, tag('/users/*'));
  t.equal((await inject(app, 'DELETE', '/users/me/', { origin: APP })).ran, '/users/me', 'fastify ignores the trailing slash');
  t.not((await inject(app, 'OPTIONS', '/users/me/', preflight(PARTNER, 'DELETE'))).origin, PARTNER);
});

t.test("fastify 4's version route option is a constraint like constraints.version", async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  await app.register(fastifyCors, { origin: [PARTNER], allowCredentials: true, logger: quiet });
  const [major] = app.version.split('.').map(Number) as [number];
  const versioned = major >= 5 ? { constraints: { version: '2.0.0' } } : ({ version: '2.0.0' } as object);
  app.put('/users/:id', { ...versioned, config: { cors: { origin: [APP] } } }, tag('v2 /users/:id'));
  app.put('/users/me', tag('/users/me'));
  const asked = await inject(app, 'OPTIONS', '/users/me', preflight(PARTNER, 'PUT', { 'access-control-request-headers': 'accept-version' }));
  t.not(asked.origin, PARTNER);
  t.equal((await inject(app, 'PUT', '/users/me', { origin: PARTNER, 'accept-version': '2.x' })).ran, 'v2 /users/:id', 'the versioned route runs it');
});
