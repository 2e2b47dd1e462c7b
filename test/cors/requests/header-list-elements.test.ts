/**
 * Empty elements of an Access-Control-Request-Headers list are ignored, as RFC 9110 section 5.6.1
 * tells a recipient to (issue 49, point 7; jub0bs/cors's tests send such lists). Browsers never
 * send them; proxies that split and merge header lines do, and an empty line beside another
 * joins into one. The names are reflected without the empty elements, in every entry point; a
 * list of commas alone names nothing and is reflected as nothing.
 */
import Router from '@koa/router';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import t, { type Test } from 'tap';

import { CorsModule } from '@lib/cors';
import { createCors as createExpressCors } from '@lib/cors/express';
import fastifyCors from '@lib/cors/fastify';
import { createCors as createFetchCors } from '@lib/cors/fetch';
import { createCors as createHonoCors } from '@lib/cors/hono';
import { createCors as createKoaCors } from '@lib/cors/koa';
import { createCors } from '@lib/cors/standalone';
import { controller, restRootModule, route } from '@lib/rest';

import { serveApplication } from '../../helpers/app.js';
import { serve } from '../../helpers/http.js';

const ORIGIN = 'https://app.test';

/** Sends a PUT preflight to /items with these Access-Control-Request-Headers lines; the Access-Control-Allow-Headers it gets. */
type Preflight = (lines: readonly string[]) => Promise<string | undefined>;

const preflightHeaders = (lines: readonly string[]) => ({
  Origin: ORIGIN,
  'Access-Control-Request-Method': 'PUT',
  'Access-Control-Request-Headers': [...lines],
});

async function overHttp(t: Test, listener: Parameters<typeof serve>[0]): Promise<Preflight> {
  const server = await serve(listener);
  t.teardown(server.close);
  return async (lines) => (await server.send('OPTIONS', '/items', preflightHeaders(lines))).headers['access-control-allow-headers'] as string | undefined;
}

function overFetch(handle: (request: Request) => Promise<Response>): Preflight {
  return async (lines) => {
    const headers = new Headers({ Origin: ORIGIN, 'Access-Control-Request-Method': 'PUT' });
    for (const line of lines) headers.append('Access-Control-Request-Headers', line);
    const response = await handle(new Request('http://api.test/items', { method: 'OPTIONS', headers }));
    await response.text();
    return response.headers.get('access-control-allow-headers') ?? undefined;
  };
}

const ENTRY_POINTS: Record<string, (t: Test) => Promise<Preflight>> = {
  standalone: (t) => {
    const cors = createCors().route('PUT', '/items');
    return overHttp(t, (req, res) => cors.handle(req, res, () => res.end('ran')));
  },
  'the fetch adapter': async () => {
    const cors = createFetchCors().route('PUT', '/items');
    return overFetch((request) => cors.handle(request, async () => new Response('ran')));
  },
  Express: (t) => {
    const app = express();
    app.use(createExpressCors());
    app.put('/items', (_req, res) => void res.send('ran'));
    return overHttp(t, app as never);
  },
  Koa: (t) => {
    const app = new Koa();
    const router = new Router();
    router.put('/items', (ctx) => {
      ctx.body = 'ran';
    });
    app.use(createKoaCors()).use(router.routes());
    return overHttp(t, app.callback());
  },
  hono: async () => {
    const app = new Hono();
    app.use(createHonoCors(app));
    app.put('/items', (c) => c.text('ran'));
    return overFetch(async (request) => app.fetch(request));
  },
  fastify: async (t) => {
    const app = Fastify();
    await app.register(fastifyCors);
    app.put('/items', async () => 'ran');
    await app.listen({ port: 0, host: '127.0.0.1' });
    t.teardown(() => app.close());
    const { port } = app.server.address() as { port: number };
    const { fetchAnswer } = await import('../../helpers/http.js');
    return async (lines) =>
      (await fetchAnswer(`http://127.0.0.1:${port}/items`, 'OPTIONS', preflightHeaders(lines))).headers['access-control-allow-headers'] as string | undefined;
  },
  CorsModule: async (t) => {
    @controller()
    class Items {
      @route('PUT', 'items')
      update() {
        return 'ran';
      }
    }
    @restRootModule({ imports: [CorsModule], controllers: [Items] })
    class App {}
    const server = await serveApplication(App);
    t.teardown(server.close);
    return async (lines) => (await server.send('OPTIONS', '/items', preflightHeaders(lines))).headers['access-control-allow-headers'] as string | undefined;
  },
};

const LISTS: [string, readonly string[], string | undefined][] = [
  ['two commas in a row', ['x-a,,x-b'], 'x-a,x-b'],
  ['a leading comma', [',x-a'], 'x-a'],
  ['a trailing comma', ['x-a,'], 'x-a'],
  ['a blank element', ['x-a, ,x-b'], 'x-a,x-b'],
  ['an empty line beside another', ['', 'x-a'], 'x-a'],
  ['commas only', [',,,'], undefined],
  ['an empty element beside a name that is no token', ['x-a,,x b'], undefined],
  ['65 names among empty elements', [`${Array.from({ length: 65 }, (_, i) => `x-${i}`).join(',,')}`], undefined],
];

for (const [name, start] of Object.entries(ENTRY_POINTS)) {
  t.test(`${name}: empty list elements are ignored`, async (t) => {
    const preflight = await start(t);
    for (const [what, lines, reflected] of LISTS) t.equal(await preflight(lines), reflected, what);
    t.equal(await preflight(['x-a, x-b']), 'x-a, x-b', 'a list as browsers send it is reflected as it is');
  });
}
