/**
 * A GET route and a HEAD route of one path under different policies, in Express 5, Express 4, Koa
 * with @koa/router and hono (core/route-markers.ts). Each handler says which route ran; the policy
 * applied is no more than that route's.
 * - Express and @koa/router run a GET route for HEAD too: the first of the two declared answers
 *   HEAD. Their entry points never predict which of them runs, and answer HEAD under what both
 *   allow (rule F): here, nothing.
 * - hono never runs a HEAD route: it answers HEAD with the GET route's answer, whatever the order.
 */
import Router from '@koa/router';
import express5 from 'express';
import express4 from 'express4';
import { Hono } from 'hono';
import Koa from 'koa';
import t from 'tap';

import { createCors as createExpressCors } from '@lib/cors/express';
import { createCors as createHonoCors } from '@lib/cors/hono';
import { createCors as createKoaCors } from '@lib/cors/koa';

import { serve } from '../../helpers/http.js';

const quiet = { warn: () => {}, error: () => {} };
const BASE = { origin: 'https://base.test' };
const READS = { origin: 'https://reads.test' };
const HEADS = { origin: 'https://heads.test' };

type Order = 'GET first' | 'HEAD first';
/** What the server answered a request from `origin`: the route that ran, and the origin granted. */
type Send = (method: string, origin: string) => Promise<{ ran: string | undefined; granted: string | undefined }>;
type Start = (order: Order) => Promise<Send>;

async function served(listener: Parameters<typeof serve>[0]): Promise<Send> {
  const server = await serve(listener);
  t.teardown(server.close);
  return async (method, origin) => {
    const answer = await server.send(method, '/things', { Origin: origin });
    return { ran: answer.headers['x-ran'] as string | undefined, granted: answer.headers['access-control-allow-origin'] as string | undefined };
  };
}

function expressApp(express: typeof express5): Start {
  return async (order) => {
    const app = express();
    const cors = createExpressCors(BASE, { logger: quiet });
    app.use(cors);
    const get = () => app.get('/things', cors.route(READS), (_req, res) => void res.set('x-ran', 'GET').send('read'));
    const head = () => app.head('/things', cors.route(HEADS), (_req, res) => void res.set('x-ran', 'HEAD').end());
    for (const declare of order === 'GET first' ? [get, head] : [head, get]) declare();
    cors.mirror(app);
    return served(app as never);
  };
}

const koaApp: Start = async (order) => {
  const app = new Koa();
  const router = new Router();
  const cors = createKoaCors(BASE, { logger: quiet });
  const get = () =>
    router.get('/things', cors.route(READS), (ctx) => {
      ctx.set('x-ran', 'GET');
      ctx.body = 'read';
    });
  const head = () =>
    router.head('/things', cors.route(HEADS), (ctx) => {
      ctx.set('x-ran', 'HEAD');
      ctx.status = 200;
    });
  for (const declare of order === 'GET first' ? [get, head] : [head, get]) declare();
  app.use(cors);
  app.use(router.routes()).use(router.allowedMethods());
  cors.mirror(app);
  return served(app.callback());
};

const honoApp: Start = async (order) => {
  const app = new Hono();
  const cors = createHonoCors(app, BASE, { logger: quiet });
  app.use(cors);
  const get = () => app.get('/things', cors.route(READS), (c) => c.text('read', 200, { 'x-ran': 'GET' }));
  const head = () => app.on('HEAD', '/things', cors.route(HEADS), (c) => c.body(null, 200, { 'x-ran': 'HEAD' }));
  for (const declare of order === 'GET first' ? [get, head] : [head, get]) declare();
  cors.mirror();
  return async (method, origin) => {
    const response = await app.fetch(new Request('http://api.test/things', { method, headers: { Origin: origin } }));
    return { ran: response.headers.get('x-ran') ?? undefined, granted: response.headers.get('access-control-allow-origin') ?? undefined };
  };
};

const FRAMEWORKS: Record<string, Start> = {
  'Express 5': expressApp(express5),
  'Express 4': expressApp(express4 as unknown as typeof express5),
  'Koa with @koa/router': koaApp,
  hono: honoApp,
};

// Each policy grants its one fixed origin to any caller, so the origin granted names the policy applied.
const CALLER = 'https://caller.test';

for (const [name, start] of Object.entries(FRAMEWORKS)) {
  t.test(`${name}: a GET route declared before a HEAD route answers HEAD, under its own policy`, async (t) => {
    const send = await start('GET first');
    if (name !== 'hono') {
      t.same(await send('HEAD', CALLER), { ran: 'GET', granted: undefined }, 'the framework runs the GET route for HEAD, under what both routes allow');
    } else {
      t.same(
        await send('HEAD', CALLER),
        { ran: 'GET', granted: READS.origin },
        "the framework runs the GET route for HEAD, and the GET route's policy goes out",
      );
    }
    t.same(await send('GET', CALLER), { ran: 'GET', granted: READS.origin });
  });

  t.test(`${name}: a HEAD route declared before a GET route`, async (t) => {
    const send = await start('HEAD first');
    if (name !== 'hono') {
      t.same(await send('HEAD', CALLER), { ran: 'HEAD', granted: undefined }, 'the HEAD route answers HEAD, under what both routes allow');
    } else if (name === 'hono') {
      t.same(await send('HEAD', CALLER), { ran: 'GET', granted: READS.origin }, 'hono answers HEAD with the GET route, whatever was declared for HEAD');
    } else {
      t.same(await send('HEAD', CALLER), { ran: 'HEAD', granted: HEADS.origin }, 'the HEAD route answers HEAD, under its policy');
    }
    t.same(await send('GET', CALLER), { ran: 'GET', granted: READS.origin });
  });
}

t.test('Koa: a route of every method declared before a HEAD route under other options: HEAD under what both allow', async (t) => {
  const app = new Koa();
  const router = new Router();
  const cors = createKoaCors(BASE, { logger: quiet });
  router.all('/things', cors.route(READS), (ctx) => {
    ctx.set('x-ran', 'all');
    ctx.body = 'all';
  });
  router.head('/things', cors.route(HEADS), (ctx) => {
    ctx.status = 200;
  });
  app.use(cors);
  app.use(router.routes());
  const send = await served(app.callback());
  t.same(await send('HEAD', CALLER), { ran: 'all', granted: undefined }, 'router.all() names HEAD too: both routes serve it');
});

t.test('a HEAD route that never answers HEAD still has its options checked, where cors.route() is called', async (t) => {
  const bad = { origin: 42 } as never;
  const expressCors = createExpressCors(BASE, { logger: quiet });
  t.throws(() => expressCors.route(bad), { code: 'CORS_INVALID_ORIGIN_POLICY' }, 'Express: where cors.route() is called');
  const honoCors = createHonoCors(new Hono(), BASE, { logger: quiet });
  t.throws(() => honoCors.route(bad), { code: 'CORS_INVALID_ORIGIN_POLICY' }, 'hono: where cors.route() is called');
});
