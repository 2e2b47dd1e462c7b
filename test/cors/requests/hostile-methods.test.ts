/**
 * A preflight's Access-Control-Request-Method is the client's to choose, and the names of
 * Object.prototype's own properties are valid method tokens. Whatever an entry point does with the
 * value (look it up in its tables, ask the framework's router for its route), every one answers
 * such a preflight as one for a method the path does not declare: a 204 that lists no such method,
 * with nothing written into Object.prototype and the next request served as before. hono's
 * TrieRouter reads a method as a key of a plain object, so asking it for `__proto__` polluted
 * every object of the process (found by a review probe); it is the router `new Hono()` falls back
 * to when its RegExpRouter refuses the routes, as it refuses the pair below.
 */
import Router from '@koa/router';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import Koa from 'koa';
import t, { type Test } from 'tap';

import { createCors as createExpressCors } from '@lib/cors/express';
import fastifyCors from '@lib/cors/fastify';
import { createCors as createFetchCors } from '@lib/cors/fetch';
import { createCors as createHonoCors } from '@lib/cors/hono';
import { createCors as createKoaCors } from '@lib/cors/koa';
import { createCors } from '@lib/cors/standalone';

import { serve } from '../../helpers/http.js';

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'prototype'];
const OPTIONS = { origin: 'https://app.test' };
const ORIGIN = 'https://app.test';

interface Seen {
  status: number;
  allowMethods: string | null;
}
type Send = (method: string, headers: Record<string, string>) => Promise<Seen>;

async function overHttp(t: Test, listener: Parameters<typeof serve>[0]): Promise<Send> {
  const server = await serve(listener);
  t.teardown(server.close);
  return async (method, headers) => {
    const answer = await server.send(method, '/users/7', headers);
    return { status: answer.status, allowMethods: (answer.headers['access-control-allow-methods'] as string | undefined) ?? null };
  };
}

function overFetch(handle: (request: Request) => Promise<Response>): Send {
  return async (method, headers) => {
    const response = await handle(new Request('http://api.test/users/7', { method, headers }));
    await response.text();
    return { status: response.status, allowMethods: response.headers.get('access-control-allow-methods') };
  };
}

function honoApp(app: Hono): Send {
  app.use(createHonoCors(app, OPTIONS));
  app.get('/users/:id{[0-9]+}', (c) => c.text('ran'));
  app.get('/users/:name', (c) => c.text('ran'));
  return overFetch(async (request) => app.fetch(request));
}

const ENTRY_POINTS: Record<string, (t: Test) => Promise<Send>> = {
  standalone: (t) => {
    const cors = createCors(OPTIONS);
    cors.route('GET', '/users/:id');
    return overHttp(t, (req, res) => cors.handle(req, res, () => res.end('ran')));
  },
  'Express 5': (t) => {
    const app = express5();
    app.use(createExpressCors(OPTIONS));
    app.get('/users/:id', (_req, res) => void res.send('ran'));
    return overHttp(t, app as never);
  },
  'Express 4': (t) => {
    const app = (express4 as unknown as typeof express5)();
    app.use(createExpressCors(OPTIONS));
    app.get('/users/:id', (_req, res) => void res.send('ran'));
    return overHttp(t, app as never);
  },
  'Koa with @koa/router': (t) => {
    const app = new Koa();
    const router = new Router();
    router.get('/users/:id', (ctx) => {
      ctx.body = 'ran';
    });
    app.use(createKoaCors(OPTIONS)).use(router.routes());
    return overHttp(t, app.callback());
  },
  fastify: async (t) => {
    const app = Fastify();
    await app.register(fastifyCors, OPTIONS);
    app.get('/users/:id', async () => 'ran');
    await app.ready();
    t.teardown(() => app.close());
    return async (method, headers) => {
      const answer = await app.inject({ method: method as 'OPTIONS', url: '/users/7', headers });
      return { status: answer.statusCode, allowMethods: (answer.headers['access-control-allow-methods'] as string | undefined) ?? null };
    };
  },
  'the fetch adapter': async () => {
    const cors = createFetchCors(OPTIONS);
    cors.route('GET', '/users/:id');
    return overFetch((request) => cors.handle(request, async () => new Response('ran')));
  },
  'hono, new Hono() on its fallback TrieRouter': async () => honoApp(new Hono()),
  'hono with TrieRouter': async () => honoApp(new Hono({ router: new TrieRouter() })),
};

for (const [name, start] of Object.entries(ENTRY_POINTS)) {
  t.test(`${name}: a preflight for a method named like a property of Object.prototype`, async (t) => {
    const send = await start(t);
    const before = Object.getOwnPropertyNames(Object.prototype).sort().join();
    for (const method of PROTOTYPE_NAMES) {
      const preflight = await send('OPTIONS', { Origin: ORIGIN, 'Access-Control-Request-Method': method });
      t.equal(preflight.status, 204, `${method}: answered`);
      t.notOk(preflight.allowMethods?.split(', ').includes(method), `${method}: not listed as allowed`);
    }
    t.equal(Object.getOwnPropertyNames(Object.prototype).sort().join(), before, 'nothing written into Object.prototype');
    t.equal(Object.getOwnPropertyDescriptor(Object.prototype, 'params'), undefined, "no `params` on every object (hono's TrieRouter writes it)");
    t.equal((await send('GET', { Origin: ORIGIN })).status, 200, 'the next request is served');
  });
}
