/**
 * A route of every method (`app.all()`, `router.all()`) beside routes of its path that name a
 * method, in Express 5, Express 4, Koa with @koa/router and hono. Whether a request reaches the
 * named route depends on next() calls, which cannot be known before it: each method is answered
 * under what every route serving it allows (docs/CONTRACT.md, rule F; core/route-markers.ts).
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

import { corsHeadersOf, serve } from '../../helpers/http.js';

const quiet = { warn: () => {}, error: () => {} };
const BASE = { origin: 'https://base.test' };
const OPEN = { origin: '*' };
const APP = { origin: 'https://app.test' };

type Order = 'named first' | 'unmarked named first' | 'middleware first' | 'answering every method first' | 'both marked, every method first';
interface Seen {
  status: number;
  headers: Record<string, string>;
  body: string;
}
type Send = (method: string, headers?: Record<string, string>) => Promise<Seen>;
/** The application of `order` on `/things`, read by the CORS middleware at once (mirror()): a refusal throws here. */
type Start = (order: Order) => Promise<Send>;

async function served(listener: Parameters<typeof serve>[0]): Promise<Send> {
  const server = await serve(listener);
  t.teardown(server.close);
  return async (method, headers = {}) => {
    const answer = await server.send(method, '/things', headers);
    return { status: answer.status, headers: corsHeadersOf(answer), body: answer.body };
  };
}

/** `app`'s answers to requests of /things, asked of hono directly, as `served()` asks a server. */
function servedByHono(app: Hono): Send {
  return async (method, headers = {}) => {
    const response = await app.fetch(new Request('http://api.test/things', { method, headers }));
    return {
      status: response.status,
      headers: corsHeadersOf({ status: response.status, headers: Object.fromEntries(response.headers), body: '' }),
      body: await response.text(),
    };
  };
}

function expressApp(express: typeof express5): Start {
  return async (order) => {
    const app = express();
    const cors = createExpressCors(BASE, { logger: quiet });
    app.use(cors);
    const named = () => app.get('/things', cors.route(OPEN), (_req, res) => void res.send('ran GET'));
    if (order === 'named first' || order === 'unmarked named first') {
      if (order === 'named first') named();
      else app.get('/things', (_req, res) => void res.send('ran GET'));
      app.all('/things', cors.route(APP), (_req, res) => void res.send('ran all'));
    } else {
      if (order === 'middleware first') app.all('/things', (_req, _res, next) => next());
      else if (order === 'answering every method first') app.all('/things', (_req, res) => void res.send('ran all'));
      else app.all('/things', cors.route(APP), (_req, _res, next) => next());
      named();
    }
    cors.mirror(app);
    return served(app as never);
  };
}

const koaApp: Start = async (order) => {
  const app = new Koa();
  const router = new Router();
  const cors = createKoaCors(BASE, { logger: quiet });
  const named = () =>
    router.get('/things', cors.route(OPEN), (ctx) => {
      ctx.body = 'ran GET';
    });
  const all = (ctx: { body: unknown }) => {
    ctx.body = 'ran all';
  };
  if (order === 'named first' || order === 'unmarked named first') {
    if (order === 'named first') named();
    else
      router.get('/things', (ctx) => {
        ctx.body = 'ran GET';
      });
    router.all('/things', cors.route(APP), all);
  } else {
    if (order === 'middleware first') router.all('/things', (_ctx, next) => next());
    else if (order === 'answering every method first') router.all('/things', all);
    else router.all('/things', cors.route(APP), (_ctx, next) => next());
    named();
  }
  app.use(cors);
  app.use(router.routes()).use(router.allowedMethods());
  cors.mirror(app);
  return served(app.callback());
};

const honoApp: Start = async (order) => {
  const app = new Hono();
  const cors = createHonoCors(app, BASE, { logger: quiet });
  app.use(cors);
  const named = () => app.get('/things', cors.route(OPEN), (c) => c.text('ran GET'));
  if (order === 'named first' || order === 'unmarked named first') {
    if (order === 'named first') named();
    else app.get('/things', (c) => c.text('ran GET'));
    app.all('/things', cors.route(APP), (c) => c.text('ran all'));
  } else {
    // hono tells middleware by its taking `next`; a cors.route() before it is hono's first to run.
    if (order === 'middleware first') app.all('/things', async (_c, next) => next());
    else if (order === 'answering every method first') app.all('/things', (c) => c.text('ran all'));
    else app.all('/things', cors.route(APP), async (_c, next) => next());
    named();
  }
  cors.mirror();
  return servedByHono(app);
};

const FRAMEWORKS: Record<string, Start> = {
  'Express 5': expressApp(express5),
  'Express 4': expressApp(express4 as unknown as typeof express5),
  'Koa with @koa/router': koaApp,
  hono: honoApp,
};

const preflight = (origin: string, method: string) => ({ Origin: origin, 'Access-Control-Request-Method': method });

/**
 * Express's and Koa's entry points never predict which of the routes of a URL runs (rule F): a GET there is
 * answered under what every route serving GET allows. A route of every method with no
 * cors.route() whose handler takes `next` is middleware and decides nothing; one whose handler
 * cannot hand the request on answers under the middleware's options. For each order, the origin
 * a GET and a PUT grant (a fixed origin is sent whoever asks: the browser compares it).
 */
const EXPRESS_RULE_F: [Order, string | undefined, string | undefined][] = [
  // The open GET route and the app's route of every method both serve GET.
  ['named first', APP.origin, APP.origin],
  // The middleware's fixed origin and the app's: nothing both allow.
  ['unmarked named first', undefined, APP.origin],
  // A route of every method of one path that takes next may answer (a GraphQL handler): the
  // middleware's options, with the open route's for GET (a wildcard one passes on: express-what-runs-decides).
  ['middleware first', BASE.origin, BASE.origin],
  // It answers every method itself, under the middleware's options.
  ['answering every method first', BASE.origin, BASE.origin],
  ['both marked, every method first', APP.origin, APP.origin],
];
for (const name of ['Express 5', 'Express 4', 'Koa with @koa/router', 'hono']) {
  t.test(`${name}: a route of every method beside a named route: each method under what every route serving it allows`, async (t) => {
    for (const [order, get, put] of EXPRESS_RULE_F) {
      // hono tells middleware by its taking next, whatever its path: that route of every method decides
      // nothing, and with a marker it is a marker of every URL below, not a route of PUT: a PUT no route
      // answers runs it, under what it and the middleware's options allow, nothing.
      const [getHere, putHere, preflightHere] =
        name !== 'hono'
          ? [get, put, put]
          : order === 'middleware first'
            ? ['*', BASE.origin, '*']
            : order === 'both marked, every method first'
              ? [get, undefined, APP.origin]
              : [get, put, put];
      const send = await FRAMEWORKS[name]!(order);
      t.equal((await send('GET', { Origin: 'https://stranger.test' })).headers['access-control-allow-origin'], getHere, `${order}: GET`);
      t.equal((await send('HEAD', { Origin: 'https://stranger.test' })).headers['access-control-allow-origin'], getHere, `${order}: HEAD with it`);
      t.equal((await send('PUT', { Origin: 'https://stranger.test' })).headers['access-control-allow-origin'], putHere, `${order}: PUT`);
      const granted = (await send('OPTIONS', preflight(APP.origin, 'PUT'))).headers['access-control-allow-origin'];
      t.equal(granted, preflightHere, `${order}: a preflight for PUT`);
    }
  });
}

/**
 * A plain OPTIONS (rows 1 and 2) on the path of a route of every method runs that route, as the
 * framework does without the middleware: it is the application's own OPTIONS route. Express's
 * `route.all()` and hono's `app.all()` name no method, so the mirror declares OPTIONS among theirs.
 */
const ANSWERING_EVERY_METHOD: Record<string, () => Promise<Send>> = {
  'Express 5 route.all()': async () => {
    const app = express5();
    const cors = createExpressCors(BASE, { logger: quiet });
    app.use(cors);
    app.route('/things').all(cors.route(APP), (req, res) => void res.send(`ran all for ${req.method}`));
    return served(app as never);
  },
  'Express 4 route.all()': async () => {
    const app = (express4 as unknown as typeof express5)();
    const cors = createExpressCors(BASE, { logger: quiet });
    app.use(cors);
    app.route('/things').all(cors.route(APP), (req, res) => void res.send(`ran all for ${req.method}`));
    return served(app as never);
  },
  'Koa router.all()': async () => {
    const app = new Koa();
    const router = new Router();
    const cors = createKoaCors(BASE, { logger: quiet });
    router.all('/things', cors.route(APP), (ctx) => {
      ctx.body = `ran all for ${ctx.method}`;
    });
    app.use(cors).use(router.routes());
    return served(app.callback());
  },
  'hono app.all()': async () => {
    const app = new Hono();
    const cors = createHonoCors(app, BASE, { logger: quiet });
    app.use(cors);
    app.all('/things', cors.route(APP), (c) => c.text(`ran all for ${c.req.method}`));
    return servedByHono(app);
  },
};

for (const [name, start] of Object.entries(ANSWERING_EVERY_METHOD)) {
  t.test(`${name}: a plain OPTIONS runs the route of every method, under its policy; a preflight is the engine's`, async (t) => {
    const send = await start();
    const plain = await send('OPTIONS', { Origin: APP.origin });
    t.equal(plain.body, 'ran all for OPTIONS', 'the route answered, as the framework runs it without the middleware');
    t.equal(plain.headers['access-control-allow-origin'], APP.origin, "rule B already set: the route's own policy");
    t.equal((await send('OPTIONS')).body, 'ran all for OPTIONS', 'without Origin too (row 1)');
    const preflight = await send('OPTIONS', { Origin: APP.origin, 'Access-Control-Request-Method': 'PUT' });
    t.equal(preflight.status, 204);
    t.equal(preflight.body, '', 'the engine answers the preflight');
    t.equal(preflight.headers['access-control-allow-origin'], APP.origin);
  });
}
