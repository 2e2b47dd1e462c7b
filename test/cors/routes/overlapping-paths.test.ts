/**
 * Two covered paths that match one URL with different methods: `PUT /users/me` open to every
 * origin, declared first, and `GET`, `PUT` and `DELETE /users/:id` for the staff's origins with
 * credentials. A GET of /users/me runs `GET /users/:id` in the application's own router, so it
 * must get that route's policy, not the open one of /users/me, which a lookup by path alone finds
 * first; and a preflight there for DELETE, decided by the staff policy, must not list PUT, which on
 * this URL runs the open route. Each entry point serves the routes with the router that really
 * runs them (find-my-way in front of the standalone middleware and the fetch adapter; Express's,
 * Koa's, hono's, fastify's and the host's own), and each handler says which route ran.
 */
import Router from '@koa/router';
import express from 'express';
import Fastify from 'fastify';
import FindMyWay from 'find-my-way';
import { Hono } from 'hono';
import Koa from 'koa';
import t, { type Test } from 'tap';

import { CorsModule, CorsOptions } from '@lib/cors';
import { createCors as createExpressCors } from '@lib/cors/express';
import { fastifyCors } from '@lib/cors/fastify';
import { createCors as createFetchCors } from '@lib/cors/fetch';
import { createCors as createHonoCors } from '@lib/cors/hono';
import { createCors as createKoaCors } from '@lib/cors/koa';
import { createCors } from '@lib/cors/standalone';
import { controller, restRootModule, route } from '@lib/rest';

import { serveApplication } from '../../helpers/app.js';
import { corsHeadersOf, serve } from '../../helpers/http.js';

const app = 'https://app.test';
const stranger = 'https://stranger.test';
const quiet = { warn: () => {}, error: () => {} };

const STAFF = { origin: [app, 'https://admin.test'], allowCredentials: true, maxAge: 60 } satisfies CorsOptions;
const OPEN = { origin: '*', maxAge: 60 } satisfies CorsOptions;

/** The routes, in the order every application declares them. */
const ROUTES = [
  ['PUT', '/users/me', OPEN],
  ['GET', '/users/:id', STAFF],
  ['PUT', '/users/:id', STAFF],
  ['DELETE', '/users/:id', STAFF],
] as const;

interface Seen {
  status: number;
  headers: Record<string, string>;
  /** The route the application ran (`GET /users/:id`), or `undefined` when the engine answered. */
  ran: string | undefined;
}
type Send = (method: string, url: string, headers?: Record<string, string>) => Promise<Seen>;

const ranOf = (body: string): string | undefined => (body.startsWith('ran ') ? body.slice(4) : undefined);
const seenOf = (status: number, headers: Record<string, string>, body: string): Seen => ({
  status,
  headers: corsHeadersOf({ status, headers, body }),
  ran: ranOf(body),
});

/** The application's own router in front of the standalone middleware and the fetch adapter: find-my-way, naming the route it runs. */
function applicationRouter(): (method: string, url: string) => string {
  const router = FindMyWay();
  for (const [method, path] of ROUTES) router.on(method, path, () => {}, { ran: `${method} ${path}` });
  return (method, url) => (router.find(method as 'GET', url)?.store as { ran: string } | undefined)?.ran ?? 'no route';
}

/** A node:http server's answers as Seen. */
async function served(t: Test, listener: Parameters<typeof serve>[0]): Promise<Send> {
  const server = await serve(listener);
  t.teardown(server.close);
  return async (method, url, headers = {}) => {
    const answer = await server.send(method, url, headers);
    return { status: answer.status, headers: corsHeadersOf(answer), ran: ranOf(answer.body) };
  };
}

/**
 * The routes in the @lib/rest host, each controller under its policy, `extra` added to both.
 * Declared first, as everywhere: the host once looked a preflight up through its methods in this
 * order, and found PUT's open route for a DELETE.
 */
async function hostApplication(t: Test, extra: CorsOptions, staffOnly: CorsOptions = {}): Promise<Send> {
  @controller({ providersPerRou: [{ token: CorsOptions, useValue: { ...OPEN, ...extra } }] })
  class Me {
    @route('PUT', 'users/me')
    update() {
      return 'ran PUT /users/me';
    }
  }
  @controller({ providersPerRou: [{ token: CorsOptions, useValue: { ...STAFF, ...extra, ...staffOnly } }] })
  class Staff {
    @route('GET', 'users/:id')
    read() {
      return 'ran GET /users/:id';
    }
    @route('PUT', 'users/:id')
    replace() {
      return 'ran PUT /users/:id';
    }
    @route('DELETE', 'users/:id')
    remove() {
      return 'ran DELETE /users/:id';
    }
  }
  @restRootModule({ imports: [CorsModule], controllers: [Me, Staff], providersPerApp: [] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  return async (method, url, headers = {}) => {
    const answer = await server.send(method, url, headers);
    return { status: answer.status, headers: corsHeadersOf(answer), ran: ranOf(answer.body.replace(/^"|"$/g, '')) };
  };
}

const ENTRY_POINTS: Record<string, (t: Test) => Promise<Send>> = {
  async standalone(t) {
    const cors = createCors({}, { logger: quiet });
    for (const [method, path, options] of ROUTES) cors.route(method, path, options);
    const routeOf = applicationRouter();
    return served(t, (req, res) => cors.handle(req, res, () => res.end(`ran ${routeOf(req.method!, req.url!)}`)));
  },
  async fetch() {
    const cors = createFetchCors({}, { logger: quiet });
    for (const [method, path, options] of ROUTES) cors.route(method, path, options);
    const routeOf = applicationRouter();
    return async (method, url, headers = {}) => {
      const response = await cors.handle(
        new Request(`http://127.0.0.1${url}`, { method, headers }),
        (request) => new Response(`ran ${routeOf(request.method, new URL(request.url).pathname)}`),
      );
      return seenOf(response.status, Object.fromEntries(response.headers), await response.text());
    };
  },
  async express(t) {
    const application = express();
    const cors = createExpressCors({}, { logger: quiet });
    application.use(cors);
    for (const [method, path, options] of ROUTES) {
      application[method.toLowerCase() as 'get'](path, cors.route(options), (_req, res) => {
        res.send(`ran ${method} ${path}`);
      });
    }
    return served(t, application as never);
  },
  async koa(t) {
    const application = new Koa();
    const router = new Router();
    const cors = createKoaCors({}, { logger: quiet });
    for (const [method, path, options] of ROUTES) {
      router[method.toLowerCase() as 'get'](path, cors.route(options), (ctx) => {
        ctx.body = `ran ${method} ${path}`;
      });
    }
    application.use(cors);
    application.use(router.routes()).use(router.allowedMethods());
    return served(t, application.callback());
  },
  async hono() {
    const application = new Hono();
    const cors = createHonoCors(application, {}, { logger: quiet });
    application.use(cors);
    for (const [method, path, options] of ROUTES) application.on(method, path, cors.route(options), (c) => c.text(`ran ${method} ${path}`));
    return async (method, url, headers = {}) => {
      const response = await application.fetch(new Request(`http://127.0.0.1${url}`, { method, headers }));
      return seenOf(response.status, Object.fromEntries(response.headers), await response.text());
    };
  },
  async fastify(t) {
    const server = Fastify();
    t.teardown(() => server.close());
    await server.register(fastifyCors, { logger: quiet });
    for (const [method, path, options] of ROUTES) server.route({ method, url: path, config: { cors: options }, handler: async () => `ran ${method} ${path}` });
    await server.ready();
    return async (method, url, headers = {}) => {
      const answer = await server.inject({ method: method as 'GET', url, headers });
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined) flat[name] = String(value);
      return seenOf(answer.statusCode, flat, answer.body);
    };
  },
  'host with CorsModule': (t) => hostApplication(t, {}),
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

    // Express's, Koa's and hono's entry points never predict which route runs: PUT /users/:id matches the URL too,
    // so PUT there is answered under what both PUT routes allow (rule F).
    const narrowsPut = name === 'express' || name === 'koa' || name === 'hono';
    t.test(narrowsPut ? 'PUT /users/me gets what both PUT routes allow' : 'PUT /users/me still gets its own open policy', async (t) => {
      const answer = await send('PUT', '/users/me', { Origin: stranger });
      t.equal(answer.ran, 'PUT /users/me');
      t.equal(answer.headers['access-control-allow-origin'], narrowsPut ? undefined : '*');
      t.notOk(answer.headers['access-control-allow-credentials']);
      if (narrowsPut) {
        const fromApp = await send('PUT', '/users/me', { Origin: app });
        t.equal(fromApp.headers['access-control-allow-origin'], app, 'an origin both allow');
        t.notOk(fromApp.headers['access-control-allow-credentials'], 'without credentials, which the open route does not give');
      }
    });

    t.test('a preflight for DELETE /users/me is decided by the staff policy and never lists PUT, which runs the open route there', async (t) => {
      const answer = await send('OPTIONS', '/users/me', preflight(app, 'DELETE'));
      t.equal(answer.ran, undefined);
      t.equal(answer.headers['access-control-allow-origin'], app);
      t.equal(answer.headers['access-control-allow-credentials'], 'true');
      if (narrowsPut) t.equal(answer.headers['access-control-allow-methods'], 'GET, DELETE', 'the methods the URL runs under the staff policy alone');
      else if (name === 'fastify')
        t.equal(answer.headers['access-control-allow-methods'], 'GET, HEAD, DELETE', 'fastify runs GET and HEAD here under the staff policy too');
      else t.equal(answer.headers['access-control-allow-methods'], 'DELETE', 'the URL runs other methods under another policy');
      t.match(answer.headers.vary, /Access-Control-Request-Method/);
      const refused = await send('OPTIONS', '/users/me', preflight(stranger, 'DELETE'));
      t.notOk(refused.headers['access-control-allow-origin']);
    });

    t.test("a preflight for PUT /users/me is the open route's, and lists neither GET nor DELETE, which run the staff's", async (t) => {
      const answer = await send('OPTIONS', '/users/me', preflight(narrowsPut ? app : stranger, 'PUT'));
      t.equal(answer.headers['access-control-allow-origin'], narrowsPut ? app : '*');
      if (narrowsPut) t.notOk((await send('OPTIONS', '/users/me', preflight(stranger, 'PUT'))).headers['access-control-allow-origin'], 'narrowed');
      const listed = answer.headers['access-control-allow-methods']!.split(', ');
      t.ok(listed.includes('PUT'), `PUT is granted (${listed})`);
      t.notOk(listed.includes('GET') || listed.includes('DELETE'), 'no method of the staff route');
      t.match(answer.headers.vary, /Access-Control-Request-Method/, 'a cache must not hand the PUT answer to a DELETE preflight');
    });

    t.test('a plain OPTIONS of /users/me lists the methods of both routes', async (t) => {
      const answer = await send('OPTIONS', '/users/me');
      t.equal(answer.headers.allow, name === 'fastify' ? 'GET, HEAD, PUT, DELETE, OPTIONS' : 'PUT, GET, HEAD, DELETE, OPTIONS');
    });

    t.test('a URL only the staff route matches is answered as on any other path', async (t) => {
      const get = await send('GET', '/users/7', { Origin: stranger });
      t.equal(get.ran, 'GET /users/:id');
      t.notOk(get.headers['access-control-allow-origin']);
      const put = await send('PUT', '/users/7', { Origin: app });
      t.equal(put.ran, 'PUT /users/:id');
      t.equal(put.headers['access-control-allow-origin'], app);
      const answer = await send('OPTIONS', '/users/7', preflight(app, 'DELETE'));
      t.equal(answer.headers['access-control-allow-methods'], 'GET, HEAD, PUT, DELETE, OPTIONS');
      t.equal((await send('OPTIONS', '/users/7')).headers.allow, 'GET, HEAD, PUT, DELETE, OPTIONS');
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

t.test('paths that share a URL under one policy keep their own answers', async (t) => {
  // An application's own fallback beside its API, every route under the same options.
  const cors = createCors({ origin: [app] }, { logger: quiet })
    .route('GET', '/*')
    .route('POST', '/api/login');
  const server = await serve((req, res) => cors.handle(req, res, () => res.end('app')));
  t.teardown(server.close);
  const answer = await server.send('OPTIONS', '/api/login', preflight(app, 'POST'));
  t.equal(answer.headers['access-control-allow-methods'], 'POST, OPTIONS', 'the path found first lists its own methods');
  t.equal(answer.headers.vary, 'Access-Control-Request-Headers', 'no Vary on the method: every method gets the same grant');
  t.equal((await server.send('OPTIONS', '/api/login')).headers.allow, 'POST, OPTIONS');
  t.equal((await server.send('GET', '/api/login', { Origin: app })).headers['access-control-allow-origin'], app);
});

t.test("hono: a path with an optional parameter shares the URL without it, as hono's router matches it", async (t) => {
  const application = new Hono();
  const cors = createHonoCors(application, {}, { logger: quiet });
  application.use(cors);
  application.put('/users', cors.route(OPEN), (c) => c.text('ran PUT /users'));
  for (const method of ['GET', 'PUT', 'DELETE']) application.on(method, '/users/:id?', cors.route(STAFF), (c) => c.text(`ran ${method} /users/:id?`));
  const send = (method: string, url: string, headers: Record<string, string>) => application.fetch(new Request(`http://127.0.0.1${url}`, { method, headers }));

  t.equal(await (await send('PUT', '/users', {})).text(), 'ran PUT /users', 'hono runs the route declared first');
  t.equal(await (await send('DELETE', '/users', {})).text(), 'ran DELETE /users/:id?');
  const answer = await send('OPTIONS', '/users', preflight(app, 'DELETE'));
  t.equal(answer.headers.get('access-control-allow-origin'), app);
  t.notOk((answer.headers.get('access-control-allow-methods') ?? '').includes('PUT'), 'not PUT, which runs the open route on /users too');
});

t.test("host: with preflightContinue, the generated OPTIONS route's Allow lists every method the URL is served with", async (t) => {
  const send = await hostApplication(t, { preflightContinue: true });
  const answer = await send('OPTIONS', '/users/me', preflight(app, 'DELETE'));
  t.equal(answer.headers['access-control-allow-origin'], app);
  t.equal(answer.headers['access-control-allow-methods'], 'DELETE', "the preflight headers are the URL's, as without preflightContinue");
  t.equal(answer.headers.allow, 'PUT, GET, HEAD, DELETE, OPTIONS', 'not only the methods of the path found first');
  t.equal((await send('OPTIONS', '/users/7', preflight(app, 'DELETE'))).headers.allow, 'GET, HEAD, PUT, DELETE, OPTIONS');
});

t.test("host: with preflightContinue, a preflight's status is that of the policy that decided it", async (t) => {
  const send = await hostApplication(t, { preflightContinue: true }, { optionsSuccessStatus: 200 });
  t.equal((await send('OPTIONS', '/users/me', preflight(app, 'DELETE'))).status, 200, "DELETE runs the staff's route");
  t.equal((await send('OPTIONS', '/users/me', preflight(stranger, 'PUT'))).status, 204, 'PUT runs the open route');
  t.equal((await send('OPTIONS', '/users/me')).status, 204, 'a plain OPTIONS is no preflight');
});
