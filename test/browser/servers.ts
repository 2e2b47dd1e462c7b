/**
 * One table of routes and policies, served two ways: by the standalone middleware in front of a
 * find-my-way application, and by the host with CorsModule. Both record what reached them.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import KoaRouter from '@koa/router';
import express from 'express';
import Router from 'find-my-way';
import { Hono } from 'hono';
import Koa from 'koa';
import { inject } from '@lib/core';
import { CorsModule, CorsOptions, CorsService, createCors, setCorsCookie } from '@lib/cors';
import { createCors as createExpressCors } from '@lib/cors/express';
import { createCors as createHonoCors } from '@lib/cors/hono';
import { createCors as createKoaCors } from '@lib/cors/koa';
import { controller, RequestContext, RestApplication, restRootModule, route } from '@lib/rest';

export interface Seen {
  method: string;
  path: string;
  origin: string | undefined;
  cookie: string | undefined;
}

export interface ApiServer {
  readonly url: string;
  /** Every request that reached the server, in order; tests empty it between checks. */
  readonly seen: Seen[];
  close(): Promise<void>;
}

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  setCookie(name: string, value: string): void;
}

interface RouteSpec {
  methods: string[];
  path: string;
  options: CorsOptions;
  /**
   * The handler sets cookies. The host's controller then takes CorsService, which grants
   * credentials on the path (docs/CONTRACT.md, rule D); the standalone route says
   * allowCredentials itself, as the README tells standalone users to.
   */
  setsCookies?: boolean;
  handle(exchange: Exchange): void;
}

const quiet = { warn: () => {}, error: () => {} };

function reply(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain');
  res.end(body);
}

/** `a`: the cross-site page origin (http://localhost:P1); `b`: the same-site one (http://127.0.0.1:P1). */
export function routeTable(a: string, b: string): RouteSpec[] {
  const ok = ({ res }: Exchange) => reply(res, 200, 'ok');
  return [
    {
      methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'],
      path: '/a-only',
      options: { origin: [a], exposedHeaders: ['X-Exposed', 'Set-Cookie'] },
      setsCookies: true,
      handle: ({ res, setCookie }) => {
        setCookie('invisible', '1');
        reply(res, 200, 'a-only', { 'X-Exposed': 'yes', 'X-Hidden': 'yes' });
      },
    },
    { methods: ['GET'], path: '/a-only-get', options: { origin: [a] }, handle: ok },
    { methods: ['GET'], path: '/b-only', options: { origin: [b] }, handle: ok },
    { methods: ['GET'], path: '/public', options: { origin: '*' }, handle: ok },
    { methods: ['GET'], path: '/headers-listed', options: { origin: [a], allowedHeaders: ['X-Foo'] }, handle: ok },
    { methods: ['GET'], path: '/auth-star', options: { origin: '*', allowedHeaders: '*' }, handle: ok },
    { methods: ['GET'], path: '/auth-listed', options: { origin: [a], allowedHeaders: ['Authorization'] }, handle: ok },
    { methods: ['POST'], path: '/json', options: { origin: [a] }, handle: ok },
    { methods: ['POST'], path: '/text', options: { origin: [a] }, handle: ok },
    { methods: ['PUT'], path: '/cached', options: { origin: [a], maxAge: 60 }, handle: ok },
    { methods: ['PUT'], path: '/uncached', options: { origin: [a], maxAge: 0 }, handle: ok },
    { methods: ['PUT'], path: '/default-cache', options: { origin: [a] }, handle: ok },
    {
      methods: ['POST'],
      path: '/login',
      options: { origin: [b] },
      setsCookies: true,
      handle: ({ res, setCookie }) => {
        setCookie('session', 'abc123');
        reply(res, 200, 'logged in');
      },
    },
    { methods: ['GET'], path: '/me', options: { origin: [b], allowCredentials: true }, handle: ({ req, res }) => reply(res, 200, req.headers.cookie ?? '') },
    { methods: ['GET'], path: '/things/:id', options: { origin: [a] }, handle: ({ res }) => reply(res, 404, 'no such thing') },
    {
      methods: ['GET'],
      path: '/boom',
      options: { origin: [a] },
      handle: () => {
        throw new Error('handler failure');
      },
    },
    { methods: ['GET'], path: '/null-listed', options: { origin: ['null', a] }, handle: ok },
    // Rule E: one URL, reads open to every origin, deletes only from b, with credentials.
    { methods: ['GET'], path: '/posts', options: { origin: '*', maxAge: 60 }, handle: ({ res }) => reply(res, 200, 'posts') },
    { methods: ['DELETE'], path: '/posts', options: { origin: [b], allowCredentials: true, maxAge: 60 }, handle: ({ res }) => reply(res, 200, 'deleted') },
    {
      // The README's login: a JSON body (so a preflight) and credentials: 'include'.
      methods: ['POST'],
      path: '/json-login',
      options: { origin: [b], maxAge: 0 },
      setsCookies: true,
      handle: ({ res, setCookie }) => {
        setCookie('session', 'json123');
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.end(JSON.stringify({ loggedIn: true }));
      },
    },
  ];
}

export async function startStandalone(a: string, b: string): Promise<ApiServer> {
  const cors = createCors({}, { logger: quiet });
  const router = Router();
  for (const spec of routeTable(a, b)) {
    cors.route(spec.methods, spec.path, spec.setsCookies ? { allowCredentials: true, ...spec.options } : spec.options);
    router.on(spec.methods as 'GET'[], spec.path, (req, res) =>
      spec.handle({ req, res, setCookie: (name, value) => setCorsCookie(req, res, name, value, {}, quiet) }),
    );
  }
  const app = (req: IncomingMessage, res: ServerResponse) => {
    const found = router.find(req.method as 'GET', req.url ?? '/');
    if (found === null) {
      const allowed = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].filter((method) => router.find(method as 'GET', req.url ?? '/') !== null);
      return allowed.length === 0 ? reply(res, 404, 'Not Found') : reply(res, 405, 'Method Not Allowed', { Allow: allowed.join(', ') });
    }
    try {
      found.handler(req, res, found.params, found.store, found.searchParams);
    } catch {
      reply(res, 500, 'Internal Server Error');
    }
  };
  return listen(createServer((req, res) => cors.handle(req, res, () => app(req, res))));
}

export async function startModule(a: string, b: string): Promise<ApiServer> {
  const controllers = routeTable(a, b).map((spec, index) => {
    class RouteController {
      readonly ctx: RequestContext;
      readonly cors: CorsService | undefined;
      // Parameters as injected below: RequestContext, then CorsService when the route sets cookies.
      constructor(...injected: [RequestContext, CorsService?]) {
        [this.ctx, this.cors] = injected;
      }
      handle() {
        spec.handle({ req: this.ctx.rawReq, res: this.ctx.rawRes, setCookie: (name, value) => this.cors!.setCookie(name, value) });
      }
    }
    Object.defineProperty(RouteController, 'name', { value: `Route${index}Controller` });
    inject(RequestContext)(RouteController, undefined, 0);
    // Only a controller that sets cookies takes CorsService, as in an application.
    if (spec.setsCookies) inject(CorsService)(RouteController, undefined, 1);
    const descriptor = Object.getOwnPropertyDescriptor(RouteController.prototype, 'handle')!;
    for (const method of spec.methods) route(method, spec.path)(RouteController.prototype, 'handle', descriptor);
    controller({ providersPerRou: [{ token: CorsOptions, useValue: spec.options }] })(RouteController);
    return RouteController;
  });
  class BrowserApp {}
  restRootModule({ imports: [CorsModule], controllers })(BrowserApp);
  const app = await RestApplication.create(BrowserApp, { logger: quiet });
  return listen(app.server);
}

/** A route's options as the standalone server gives them: credentials where the handler sets cookies. */
const ownOptions = (spec: RouteSpec): CorsOptions => (spec.setsCookies ? { allowCredentials: true, ...spec.options } : spec.options);

/** Express (5) routes the table; `@lib/cors/express` reads the routes from the app. */
export async function startExpress(a: string, b: string): Promise<ApiServer> {
  const app = express();
  const cors = createExpressCors({}, { logger: quiet });
  app.use(cors);
  for (const spec of routeTable(a, b)) {
    for (const method of spec.methods) {
      app[method.toLowerCase() as 'get'](spec.path, cors.route(ownOptions(spec)), (req, res) =>
        spec.handle({ req, res, setCookie: (name, value) => setCorsCookie(req, res, name, value, {}, quiet) }),
      );
    }
  }
  app.use(methodNotAllowed(routeTable(a, b)));
  app.use((_error: unknown, _req: IncomingMessage, res: ServerResponse, _next: unknown) => reply(res, 500, 'Internal Server Error'));
  return listen(createServer(app));
}

/** Koa with @koa/router routes the table; `@lib/cors/koa` reads the routes from the app. */
export async function startKoa(a: string, b: string): Promise<ApiServer> {
  const app = new Koa();
  app.silent = true;
  const cors = createKoaCors({}, { logger: quiet });
  const router = new KoaRouter();
  for (const spec of routeTable(a, b)) {
    router.register(spec.path, spec.methods, [
      cors.route(ownOptions(spec) as never) as never,
      (ctx: Koa.Context) => {
        // The table's handlers write the raw response themselves.
        ctx.respond = false;
        ctx.res.statusCode = 200;
        spec.handle({ req: ctx.req, res: ctx.res, setCookie: (name, value) => setCorsCookie(ctx.req, ctx.res, name, value, {}, quiet) });
      },
    ]);
  }
  app.use(cors);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return listen(createServer(app.callback()));
}

/** hono routes the table, served from node:http; `@lib/cors/hono` reads the routes from the app. */
export async function startHono(a: string, b: string): Promise<ApiServer> {
  const app = new Hono();
  const cors = createHonoCors(app, {}, { logger: quiet });
  app.use(cors);
  for (const spec of routeTable(a, b)) {
    app.on(spec.methods, spec.path, cors.route(ownOptions(spec) as never), (c) => {
      // The table's handlers are node-style: they write to a stand-in, turned into a Response.
      const req = { method: c.req.method, url: c.req.path, headers: Object.fromEntries(c.req.raw.headers) } as unknown as IncomingMessage;
      const res = new CollectedResponse();
      spec.handle({ req, res: res as unknown as ServerResponse, setCookie: (name, value) => setCorsCookie(req, res as never, name, value, {}, quiet) });
      return res.toResponse();
    });
  }
  app.notFound((c) => {
    const allowed = methodsOn(routeTable(a, b), c.req.path);
    if (allowed.length === 0) return c.text('Not Found', 404);
    return c.text('Method Not Allowed', 405, { Allow: allowed.join(', ') });
  });
  app.onError(() => new Response('Internal Server Error', { status: 500 }));
  return listen(
    createServer(async (req, res) => {
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const chunks: Buffer[] = [];
      if (hasBody) for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const response = await app.fetch(
        new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: hasBody ? Buffer.concat(chunks) : undefined }),
      );
      res.statusCode = response.status;
      for (const [name, value] of response.headers) if (name !== 'set-cookie') res.setHeader(name, value);
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 0) res.setHeader('Set-Cookie', cookies);
      res.end(Buffer.from(await response.arrayBuffer()));
    }),
  );
}

/** What a node-style handler writes, kept to be sent as a Response. */
class CollectedResponse {
  statusCode = 200;
  readonly #headers = new Map<string, string | string[]>();
  #body = '';
  setHeader(name: string, value: string | string[]): this {
    this.#headers.set(name.toLowerCase(), value);
    return this;
  }
  getHeader(name: string): string | string[] | undefined {
    return this.#headers.get(name.toLowerCase());
  }
  end(body = ''): void {
    this.#body = body;
  }
  toResponse(): Response {
    const headers = new Headers();
    for (const [name, value] of this.#headers) for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    return new Response(this.#body, { status: this.statusCode, headers });
  }
}

/** The methods the table serves on `path`: after the routes, a path it has with another method is a 405 (as the standalone server answers). */
function methodsOn(specs: RouteSpec[], path: string): string[] {
  const router = Router();
  for (const spec of specs) router.on(spec.methods as 'GET'[], spec.path, () => {});
  return ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].filter((method) => router.find(method as 'GET', path) !== null);
}

function methodNotAllowed(specs: RouteSpec[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const allowed = methodsOn(specs, req.url ?? '/');
    if (allowed.length === 0) reply(res, 404, 'Not Found');
    else reply(res, 405, 'Method Not Allowed', { Allow: allowed.join(', ') });
  };
}

/** Serves `server` on a free port of 127.0.0.1, recording every request in `seen` before anything answers it. */
export async function listen(server: Server): Promise<ApiServer> {
  const seen: Seen[] = [];
  // First listener: records every request before anything answers it.
  server.prependListener('request', (req: IncomingMessage) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '', origin: req.headers.origin, cookie: req.headers.cookie });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
