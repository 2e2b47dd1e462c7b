/**
 * docs/CONTRACT.md, rule E, row by row, through every entry point: one path, reads open to every
 * origin, writes only from the app's origins with credentials. The standalone middleware, the
 * fetch adapter, the fastify plugin and the host with CorsModule each declare the same routes
 * their own way, and each must give exactly the answers below.
 */
import Fastify from 'fastify';
import t, { type Test } from 'tap';

import { CorsModule, CorsOptions } from '@lib/cors';
import { fastifyCors } from '@lib/cors/fastify';
import { createCors as createFetchCors } from '@lib/cors/fetch';
import { createCors } from '@lib/cors/standalone';
import { controller, restRootModule, route } from '@lib/rest';

import { serveApplication } from '../../helpers/app.js';
import { corsHeadersOf, echoApp, serve } from '../../helpers/http.js';

const app = 'https://app.test';
const admin = 'https://admin.test';
const stranger = 'https://stranger.test';
const quiet = { warn: () => {}, error: () => {} };

const READS = { origin: '*', maxAge: 60 } satisfies CorsOptions;
const WRITES = { origin: [app, admin], allowCredentials: true, maxAge: 60 } satisfies CorsOptions;

interface Seen {
  status: number;
  headers: Record<string, string>;
  /** The application's handler ran. */
  reached: boolean;
}
type Send = (method: string, headers: Record<string, string>) => Promise<Seen>;

const ENTRY_POINTS: Record<string, (t: Test) => Promise<Send>> = {
  async standalone(t) {
    const cors = createCors({}, { logger: quiet }).route('GET', '/posts', READS).route(['POST', 'DELETE'], '/posts', WRITES);
    const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
    t.teardown(server.close);
    return async (method, headers) => {
      const answer = await server.send(method, '/posts', headers);
      return { status: answer.status, headers: corsHeadersOf(answer), reached: answer.body.startsWith('app saw') };
    };
  },
  async fetch() {
    const cors = createFetchCors({}, { logger: quiet }).route('GET', '/posts', READS).route(['POST', 'DELETE'], '/posts', WRITES);
    return async (method, headers) => {
      let reached = false;
      const response = await cors.handle(new Request('http://127.0.0.1/posts', { method, headers }), () => {
        reached = true;
        return new Response('app');
      });
      return { status: response.status, headers: corsHeadersOf({ status: response.status, headers: Object.fromEntries(response.headers), body: '' }), reached };
    };
  },
  async fastify(t) {
    const server = Fastify();
    t.teardown(() => server.close());
    await server.register(fastifyCors, { logger: quiet });
    const handler = async () => 'app';
    server.get('/posts', { config: { cors: READS } }, handler);
    server.post('/posts', { config: { cors: WRITES } }, handler);
    server.delete('/posts', { config: { cors: WRITES } }, handler);
    await server.ready();
    return async (method, headers) => {
      const answer = await server.inject({ method: method as 'GET', url: '/posts', headers });
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined) flat[name] = String(value);
      return { status: answer.statusCode, headers: corsHeadersOf({ status: answer.statusCode, headers: flat, body: '' }), reached: answer.body === 'app' };
    };
  },
  async 'host with CorsModule'(t) {
    @controller({ providersPerRou: [{ token: CorsOptions, useValue: READS }] })
    class Reads {
      @route('GET', 'posts')
      list() {
        return 'app';
      }
    }
    @controller({ providersPerRou: [{ token: CorsOptions, useValue: WRITES }] })
    class Writes {
      @route('POST', 'posts')
      create() {
        return 'app';
      }
      @route('DELETE', 'posts')
      remove() {
        return 'app';
      }
    }
    @restRootModule({ imports: [CorsModule], controllers: [Reads, Writes], providersPerApp: [] })
    class App {}
    const server = await serveApplication(App);
    t.teardown(server.close);
    return async (method, headers) => {
      const answer = await server.send(method, '/posts', headers);
      return { status: answer.status, headers: corsHeadersOf(answer), reached: answer.body.includes('app') };
    };
  },
};

const preflight = (origin: string, method: string) => ({ Origin: origin, 'Access-Control-Request-Method': method });
const READ_PREFLIGHT_VARY = 'Access-Control-Request-Headers, Access-Control-Request-Method';
const WRITE_PREFLIGHT_VARY = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';

for (const [name, start] of Object.entries(ENTRY_POINTS)) {
  t.test(`${name}: reads open, writes from the app with credentials (rule E)`, async (t) => {
    const send = await start(t);

    t.test('a preflight for a write is decided by the write policy, and lists only the writes', async (t) => {
      const answer = await send('OPTIONS', preflight(app, 'DELETE'));
      t.equal(answer.status, 204);
      t.notOk(answer.reached);
      t.same(answer.headers, {
        'access-control-allow-origin': app,
        'access-control-allow-credentials': 'true',
        'access-control-allow-methods': 'POST, DELETE',
        'access-control-max-age': '60',
        vary: WRITE_PREFLIGHT_VARY,
      });
    });

    t.test('a preflight for a write from an origin only the read policy allows gets no grant', async (t) => {
      const answer = await send('OPTIONS', preflight(stranger, 'DELETE'));
      t.equal(answer.status, 204);
      t.same(answer.headers, { vary: WRITE_PREFLIGHT_VARY });
    });

    t.test('a preflight for a read is decided by the read policy, and lists only the reads', async (t) => {
      const answer = await send('OPTIONS', preflight(stranger, 'GET'));
      t.same(answer.headers, {
        'access-control-allow-origin': '*',
        // fastify's OPTIONS is the plugin's own route, under no route's policy: it is listed only where a path table lists it.
        'access-control-allow-methods': name === 'fastify' ? 'GET, HEAD' : 'GET, HEAD, OPTIONS',
        'access-control-max-age': '60',
        vary: READ_PREFLIGHT_VARY,
      });
    });

    t.test('actual requests: each by its own method, HEAD with GET', async (t) => {
      const read = await send('GET', { Origin: stranger });
      t.ok(read.reached);
      t.same(read.headers, { 'access-control-allow-origin': '*' });
      const head = await send('HEAD', { Origin: stranger });
      t.same(head.headers, { 'access-control-allow-origin': '*' });
      const write = await send('DELETE', { Origin: admin });
      t.ok(write.reached, 'CORS is no access control: the handler runs');
      t.same(write.headers, { 'access-control-allow-origin': admin, 'access-control-allow-credentials': 'true', vary: 'Origin' });
      const refused = await send('POST', { Origin: stranger });
      t.same(refused.headers, { vary: 'Origin' });
    });

    t.test('requests without Origin: each by its own method too (a shared cache keeps them)', async (t) => {
      const read = await send('GET', {});
      t.ok(read.reached);
      t.same(read.headers, { 'access-control-allow-origin': '*' });
      t.same((await send('HEAD', {})).headers, { 'access-control-allow-origin': '*' });
      for (const method of ['POST', 'DELETE']) {
        const write = await send(method, {});
        t.ok(write.reached);
        t.same(write.headers, { vary: 'Origin' }, `${method}: the write policy's, never the read policy's *`);
      }
    });

    t.test("plain OPTIONS: the OPTIONS policy (GET's here), and Allow lists every method", async (t) => {
      const answer = await send('OPTIONS', { Origin: stranger });
      t.equal(answer.status, 204);
      t.same(answer.headers, { allow: 'GET, HEAD, POST, DELETE, OPTIONS', 'access-control-allow-origin': '*' });
    });
  });
}

t.test('a path whose methods share one policy answers as if it had one route', async (t) => {
  const one = createCors({ origin: [app, admin] }, { logger: quiet }).route(['GET', 'POST'], '/x');
  const split = createCors({ origin: [app, admin] }, { logger: quiet })
    .route('GET', '/x')
    .route('POST', '/x', { origin: [app, admin] });
  for (const [method, headers] of [
    ['OPTIONS', preflight(app, 'POST')],
    ['OPTIONS', { Origin: app }],
    ['POST', { Origin: app }],
  ] as const) {
    const request = { method, url: '/x', headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) };
    t.same((await split.explain(request)).headers, (await one.explain(request)).headers, `${method} ${JSON.stringify(headers)}`);
  }
});

t.test('explain() names the method whose policy decided', async (t) => {
  const cors = createCors({}, { logger: quiet }).route('GET', '/posts', READS).route(['POST', 'DELETE'], '/posts', WRITES);
  const refused = await cors.explain({ method: 'OPTIONS', url: '/posts', headers: { origin: stranger, 'access-control-request-method': 'DELETE' } });
  t.equal(refused.method, 'DELETE');
  t.equal(refused.reason, 'origin-not-allowed');
  t.equal(refused.message, `${stranger} is not allowed by origin for DELETE /posts: add it to origin.`);
});
