/**
 * Two covered paths that match one URL with different methods: `GET` and `DELETE /users/:id` for
 * the staff's origins with credentials, `PUT /users/me` open to every origin. A GET of /users/me
 * runs `GET /users/:id` in the application's own router, so it must get that route's policy, not
 * the one of /users/me, which the engine's tree finds first for the URL. Each entry point serves
 * the routes with the router that really runs them (find-my-way in front of the standalone
 * middleware and the fetch adapter, fastify's, the host's), which says which route ran.
 */
import FindMyWay from 'find-my-way';
import Fastify from 'fastify';
import t, { type Test } from 'tap';

import { CorsModule, CorsOptions } from '@lib/cors';
import { fastifyCors } from '@lib/cors/fastify';
import { createCors as createFetchCors } from '@lib/cors/fetch';
import { createCors } from '@lib/cors/standalone';
import { controller, restRootModule, route } from '@lib/rest';

import { serveApplication } from '../helpers/app.js';
import { corsHeadersOf, serve } from '../helpers/http.js';

const app = 'https://app.test';
const stranger = 'https://stranger.test';
const quiet = { warn: () => {}, error: () => {} };

const STAFF = { origin: [app, 'https://admin.test'], allowCredentials: true, maxAge: 60 } satisfies CorsOptions;
const OPEN = { origin: '*', maxAge: 60 } satisfies CorsOptions;

interface Seen {
  headers: Record<string, string>;
  /** The route the application ran (`GET /users/:id`), or `undefined` when the engine answered. */
  ran: string | undefined;
}
type Send = (method: string, url: string, headers?: Record<string, string>) => Promise<Seen>;

/** The application's router for the standalone middleware and the fetch adapter: each handler names its route. */
function applicationRouter() {
  const router = FindMyWay();
  for (const [method, path] of [
    ['GET', '/users/:id'],
    ['DELETE', '/users/:id'],
    ['PUT', '/users/me'],
  ] as const) {
    router.on(method, path, () => {}, { ran: `${method} ${path}` });
  }
  return (method: string, url: string) => (router.find(method as 'GET', url)?.store as { ran: string } | undefined)?.ran ?? 'no route';
}

const ranOf = (body: string): string | undefined => (body.startsWith('ran ') ? body.slice(4) : undefined);

const ENTRY_POINTS: Record<string, (t: Test) => Promise<Send>> = {
  async standalone(t) {
    const cors = createCors({}, { logger: quiet }).route(['GET', 'DELETE'], '/users/:id', STAFF).route('PUT', '/users/me', OPEN);
    const routeOf = applicationRouter();
    const server = await serve((req, res) => cors.handle(req, res, () => res.end(`ran ${routeOf(req.method!, req.url!)}`)));
    t.teardown(server.close);
    return async (method, url, headers = {}) => {
      const answer = await server.send(method, url, headers);
      return { headers: corsHeadersOf(answer), ran: ranOf(answer.body) };
    };
  },
  async fetch() {
    const cors = createFetchCors({}, { logger: quiet }).route(['GET', 'DELETE'], '/users/:id', STAFF).route('PUT', '/users/me', OPEN);
    const routeOf = applicationRouter();
    return async (method, url, headers = {}) => {
      const response = await cors.handle(
        new Request(`http://127.0.0.1${url}`, { method, headers }),
        (request) => new Response(`ran ${routeOf(request.method, new URL(request.url).pathname)}`),
      );
      const body = await response.text();
      return { headers: corsHeadersOf({ status: response.status, headers: Object.fromEntries(response.headers), body }), ran: ranOf(body) };
    };
  },
  async fastify(t) {
    const server = Fastify();
    t.teardown(() => server.close());
    await server.register(fastifyCors, { logger: quiet });
    server.get('/users/:id', { config: { cors: STAFF } }, async () => 'ran GET /users/:id');
    server.delete('/users/:id', { config: { cors: STAFF } }, async () => 'ran DELETE /users/:id');
    server.put('/users/me', { config: { cors: OPEN } }, async () => 'ran PUT /users/me');
    await server.ready();
    return async (method, url, headers = {}) => {
      const answer = await server.inject({ method: method as 'GET', url, headers });
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined) flat[name] = String(value);
      return { headers: corsHeadersOf({ status: answer.statusCode, headers: flat, body: '' }), ran: ranOf(answer.body) };
    };
  },
  async 'host with CorsModule'(t) {
    @controller({ providersPerRou: [{ token: CorsOptions, useValue: STAFF }] })
    class Staff {
      @route('GET', 'users/:id')
      read() {
        return 'ran GET /users/:id';
      }
      @route('DELETE', 'users/:id')
      remove() {
        return 'ran DELETE /users/:id';
      }
    }
    @controller({ providersPerRou: [{ token: CorsOptions, useValue: OPEN }] })
    class Me {
      @route('PUT', 'users/me')
      update() {
        return 'ran PUT /users/me';
      }
    }
    @restRootModule({ imports: [CorsModule], controllers: [Me, Staff], providersPerApp: [] })
    class App {}
    const server = await serveApplication(App);
    t.teardown(server.close);
    return async (method, url, headers = {}) => {
      const answer = await server.send(method, url, headers);
      return { headers: corsHeadersOf(answer), ran: ranOf(answer.body.replace(/^"|"$/g, '')) };
    };
  },
};

const preflight = (origin: string, method: string) => ({ Origin: origin, 'Access-Control-Request-Method': method });

for (const [name, start] of Object.entries(ENTRY_POINTS)) {
  t.test(`${name}: one URL, two paths, each method under the policy of the route that runs it`, async (t) => {
    const send = await start(t);

    t.test("a GET of /users/me runs GET /users/:id, and gets that route's policy, not the open one of PUT /users/me", async (t) => {
      const fromStranger = await send('GET', '/users/me', { Origin: stranger });
      t.equal(fromStranger.ran, 'GET /users/:id');
      t.notOk(fromStranger.headers['access-control-allow-origin'], 'no grant to an origin the staff policy refuses');
      const fromApp = await send('GET', '/users/me', { Origin: app });
      t.equal(fromApp.ran, 'GET /users/:id');
      t.equal(fromApp.headers['access-control-allow-origin'], app);
      t.equal(fromApp.headers['access-control-allow-credentials'], 'true');
    });

    t.test('PUT /users/me still gets its own open policy', async (t) => {
      const answer = await send('PUT', '/users/me', { Origin: stranger });
      t.equal(answer.ran, 'PUT /users/me');
      t.equal(answer.headers['access-control-allow-origin'], '*');
      t.notOk(answer.headers['access-control-allow-credentials']);
    });

    t.test('a preflight for DELETE /users/me is decided by the staff policy and never lists PUT, which is the open route', async (t) => {
      const answer = await send('OPTIONS', '/users/me', preflight(app, 'DELETE'));
      t.equal(answer.ran, undefined);
      t.equal(answer.headers['access-control-allow-origin'], app);
      t.equal(answer.headers['access-control-allow-credentials'], 'true');
      const listed = answer.headers['access-control-allow-methods']!.split(', ');
      t.ok(listed.includes('DELETE'), `DELETE is granted (${listed})`);
      t.notOk(listed.includes('PUT'), 'PUT /users/me runs under another policy');
      const refused = await send('OPTIONS', '/users/me', preflight(stranger, 'DELETE'));
      t.notOk(refused.headers['access-control-allow-origin']);
    });
  });
}

// The engine's own tree (the standalone middleware and the fetch adapter) answers these itself.
for (const name of ['standalone', 'fetch'] as const) {
  t.test(`${name}: what the engine's tree answers on a URL two paths share`, async (t) => {
    const send = await ENTRY_POINTS[name]!(t);

    t.test('a preflight routed to another path lists the requested method alone, and every preflight of the URL varies by method', async (t) => {
      const del = await send('OPTIONS', '/users/me', preflight(app, 'DELETE'));
      t.equal(del.headers['access-control-allow-methods'], 'DELETE');
      t.match(del.headers.vary, /Access-Control-Request-Method/);
      const put = await send('OPTIONS', '/users/me', preflight(stranger, 'PUT'));
      t.equal(put.headers['access-control-allow-origin'], '*');
      t.equal(put.headers['access-control-allow-methods'], 'PUT, OPTIONS', 'GET and DELETE are the staff route');
      t.match(put.headers.vary, /Access-Control-Request-Method/, 'a cache must not hand the PUT answer to a DELETE preflight');
    });

    t.test('a plain OPTIONS of /users/me lists the methods of both routes', async (t) => {
      const answer = await send('OPTIONS', '/users/me');
      t.equal(answer.headers.allow, 'PUT, GET, HEAD, DELETE, OPTIONS');
      const other = await send('OPTIONS', '/users/7');
      t.equal(other.headers.allow, 'GET, HEAD, DELETE, OPTIONS', '/users/7 is the staff route alone');
    });

    t.test('a URL only one path matches is answered as before', async (t) => {
      const answer = await send('GET', '/users/7', { Origin: stranger });
      t.equal(answer.ran, 'GET /users/:id');
      t.notOk(answer.headers['access-control-allow-origin']);
      const preflightAnswer = await send('OPTIONS', '/users/7', preflight(app, 'DELETE'));
      t.equal(preflightAnswer.headers['access-control-allow-methods'], 'GET, HEAD, DELETE, OPTIONS');
    });
  });
}

t.test('the matching settings decide which paths share a URL', async (t) => {
  // Case-insensitive, trailing slash ignored, and a parameter whose regular expression holds a '/'.
  const matching = { caseSensitive: false, ignoreTrailingSlash: true };
  const router = FindMyWay(matching);
  router.on('GET', '/Files/:name(^[a-z]+/?$)', () => {}, { ran: 'GET /Files/:name' });
  router.on('PUT', '/files/README/', () => {}, { ran: 'PUT /files/README/' });
  const cors = createCors({}, { logger: quiet, matching }).route('GET', '/Files/:name(^[a-z]+/?$)', STAFF).route('PUT', '/files/README/', OPEN);
  const ranOn = (method: string, url: string) => (router.find(method as 'GET', url)?.store as { ran: string } | undefined)?.ran;
  const server = await serve((req, res) => cors.handle(req, res, () => res.end(`ran ${ranOn(req.method!, req.url!)}`)));
  t.teardown(server.close);

  const get = await server.send('GET', '/files/readme', { Origin: stranger });
  t.equal(get.body, 'ran GET /Files/:name');
  t.notOk(get.headers['access-control-allow-origin'], 'the staff policy of the route that ran, not the open one of PUT /files/README/');
  const put = await server.send('PUT', '/FILES/readme', { Origin: stranger });
  t.equal(put.body, 'ran PUT /files/README/');
  t.equal(put.headers['access-control-allow-origin'], '*');
  t.equal((await server.send('OPTIONS', '/files/readme')).headers.allow, 'PUT, GET, HEAD, OPTIONS');
});
