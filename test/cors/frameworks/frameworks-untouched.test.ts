/**
 * Issue 45: the fastify, Koa and hono entry points use their framework as documented and change
 * nothing of it. Each framework's objects and classes are read before the entry point serves
 * (after one request the framework served alone, so the classes it makes per request exist) and
 * after it has read the routes and answered every kind of request: the same own properties, each
 * function the same function. (Express's own test is in express-what-runs-decides.test.ts.)
 * Each framework runs in a process of its own (tap runs each file alone), and this file serves
 * each one without the entry point first, so a patch made by any earlier request would show.
 */
import type { AddressInfo } from 'node:net';

import Router from '@koa/router';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import t, { type Test } from 'tap';

import fastifyCors from '@lib/cors/fastify';
import { createCors as createHonoCors } from '@lib/cors/hono';
import { createCors as createKoaCors } from '@lib/cors/koa';

import { fetchAnswer, serve } from '../../helpers/http.js';

const quiet = { warn: () => {}, error: () => {} };
const A = 'https://a.test';
const B = 'https://b.test';
const preflight = (origin: string, method = 'GET') => ({ Origin: origin, 'Access-Control-Request-Method': method });

/** Every kind of request the entry points answer: actual on a route with its own options, preflights, a plain OPTIONS, a 404. */
const REQUESTS = [
  ['GET', '/items/1', { Origin: B }],
  ['GET', '/items/1', {}],
  ['OPTIONS', '/items/1', preflight(B)],
  ['OPTIONS', '/items/1', preflight(A, 'PUT')],
  ['OPTIONS', '/items/1', {}],
  ['GET', '/nowhere', { Origin: A }],
  ['OPTIONS', '/nowhere', preflight(A)],
] as const;

/** An object's own property names, each function-valued one with its function: what a patch would change. */
function snapshot(object: object): [string, unknown][] {
  return Reflect.ownKeys(object).map((key) => {
    const value = Object.getOwnPropertyDescriptor(object, key)?.value as unknown;
    return [String(key), typeof value === 'function' ? value : 'a value'];
  });
}

/** `object` and its prototypes, up to Object.prototype. */
function withPrototypes(name: string, object: object): [string, object][] {
  const chain: [string, object][] = [];
  for (let level: object | null = object; level !== null && level !== Object.prototype && level !== Function.prototype; level = Object.getPrototypeOf(level)) {
    chain.push([chain.length === 0 ? name : `${name}, ${chain.length} prototypes up`, level]);
  }
  return chain;
}

async function assertUntouched(t: Test, watched: [string, object][], serveAll: () => Promise<void>): Promise<void> {
  const before = watched.map(([, object]) => snapshot(object));
  await serveAll();
  for (const [index, [what, object]] of watched.entries()) t.same(snapshot(object), before[index], `${what}: the same properties, the same functions`);
}

t.test('fastify: nothing of fastify is added or replaced, by reading its routes or by serving', async (t) => {
  // One request fastify serves alone: its Request and Reply classes, before the plugin runs.
  const alone = Fastify();
  let classes: { request: object; reply: object } | undefined;
  alone.get('/', async (request, reply) => {
    classes = { request: Object.getPrototypeOf(request), reply: Object.getPrototypeOf(reply) };
    return 'alone';
  });
  await alone.inject({ method: 'GET', url: '/' });
  await alone.close();

  const app = Fastify();
  t.teardown(() => app.close());
  const watched = [
    ...withPrototypes('the instance', app),
    ...withPrototypes('the Request class', classes!.request),
    ...withPrototypes('the Reply class', classes!.reply),
  ];
  await app.register(fastifyCors, { logger: quiet, origin: A });
  app.get('/items/:id', { config: { cors: { origin: B } } }, async () => 'item');
  app.put('/items/:id', { constraints: { version: '1.0.0' } }, async () => 'v1');
  await app.register(async (api) => void api.get('/', async () => 'api'), { prefix: '/api' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  await assertUntouched(t, watched, async () => {
    for (const [method, path, headers] of REQUESTS) await fetchAnswer(`${base}${path}`, method, headers);
    t.equal((await fetchAnswer(`${base}/items/1`, 'GET', { Origin: B })).headers['access-control-allow-origin'], B, 'the plugin answered');
  });
});

t.test('Koa: nothing of Koa or @koa/router is added or replaced, by reading its routers or by serving', async (t) => {
  const app = new Koa();
  const router = new Router();
  const cors = createKoaCors({ origin: A }, { logger: quiet });
  app.use(cors);
  router.get('/items/:id', cors.route({ origin: B }), (ctx) => {
    ctx.body = 'item';
  });
  router.put('/items/:id', (ctx) => {
    ctx.body = 'put';
  });
  app.use(router.routes());
  const watched = [
    ...withPrototypes('the application', app),
    ...withPrototypes('the context', app.context),
    ...withPrototypes('the request', app.request),
    ...withPrototypes('the response', app.response),
    ...withPrototypes('the router', router),
    ...router.stack.flatMap((layer, index) => withPrototypes(`layer ${index}`, layer)),
    ...withPrototypes('the routes() middleware', app.middleware.at(-1)!),
  ];
  const server = await serve(app.callback());
  t.teardown(server.close);
  await assertUntouched(t, watched, async () => {
    for (const [method, path, headers] of REQUESTS) await server.send(method, path, headers);
    t.equal((await server.send('GET', '/items/1', { Origin: B })).headers['access-control-allow-origin'], B, 'the marker answered');
  });
});

t.test('hono: nothing of hono is added or replaced, by reading its routes or by serving', async (t) => {
  // One request hono serves alone: its Context class, before the middleware runs.
  let contextClass: object | undefined;
  const alone = new Hono();
  alone.get('/', (c) => {
    contextClass = Object.getPrototypeOf(c);
    return c.text('alone');
  });
  await alone.fetch(new Request('http://api.test/'));

  const app = new Hono();
  const cors = createHonoCors(app, { origin: A }, { logger: quiet });
  app.use(cors);
  app.get('/items/:id', cors.route({ origin: B }), (c) => c.text('item'));
  app.put('/items/:id', (c) => c.text('put'));
  // hono's SmartRouter chooses its router at its first match and puts that router's match() on
  // itself, whoever asks: asked here first, so what it does of its own is not taken for a patch.
  app.router.match('GET', '/');
  const watched = [
    ...withPrototypes('the application', app),
    ...withPrototypes('its router', app.router),
    ...app.routes.flatMap((route, index) => withPrototypes(`route ${index}`, route)),
    ...withPrototypes('the Context class', contextClass!),
  ];
  await assertUntouched(t, watched, async () => {
    for (const [method, path, headers] of REQUESTS) {
      const response = await app.fetch(new Request(`http://api.test${path}`, { method, headers }));
      await response.arrayBuffer();
    }
    const answer = await app.fetch(new Request('http://api.test/items/1', { headers: { Origin: B } }));
    t.equal(answer.headers.get('access-control-allow-origin'), B, 'the marker answered');
  });
});
