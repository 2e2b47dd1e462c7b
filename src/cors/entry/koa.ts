/**
 * `@lib/cors/koa`: one `app.use()` line before the routers of a Koa application with
 * `@koa/router`. @koa/router is used as documented and nothing of it is changed: its routers are
 * found in `app.middleware` (a router.routes() middleware carries its router), each asked with its
 * own public match() which of its layers a URL matches, and a request is answered under what every
 * one of them allows (rule F): the entry point never predicts which layer the router runs. A
 * `cors.route()` marker narrows the answer again when the router runs it.
 */
import { type IncomingHttpHeaders, METHODS } from 'node:http';

import { controlsOf, CorsCore, type CoreSettings, type CorsControls, type TableRef } from '../core/cors-core.js';
import { requestKind, routingMethod } from '../core/decision.js';
import { RouteRegistrationError } from '../core/errors.js';
import type { CorsOptions } from '../core/options.js';
import { GLOBAL_METHODS, type PathTable } from '../core/path-table.js';
import { type Candidate, CandidateCache, MarkersRun, markRoute, type MaybeMarked, refuseMarkerOutsideRoute, ROUTE_OPTIONS } from '../core/route-markers.js';
import { answerRequest, readNodeHeader } from './node.js';

export * from './common-exports.js';

export type KoaCorsSettings = Omit<CoreSettings, 'matching'>;

/** What the entry point reads of a Koa context; an origin function is given the context itself. */
export interface KoaContext {
  readonly method: string;
  readonly url: string;
  readonly path: string;
  /** The path @koa/router matches instead of `path`, where a middleware before it rewrote it. */
  readonly newRouterPath?: string;
  readonly host: string;
  readonly headers: IncomingHttpHeaders;
  readonly req: import('node:http').IncomingMessage;
  readonly res: import('node:http').ServerResponse;
  readonly app: unknown;
  respond?: boolean;
}

export type KoaMiddleware = (ctx: KoaContext, next: () => Promise<unknown>) => Promise<void>;

export interface KoaCors extends CorsControls<CorsOptions<KoaContext>>, KoaMiddleware {
  /**
   * A route's own options, merged over the middleware's: `router.post('/login', cors.route({
   * allowCredentials: true }), handler)`; given to `router.use(path, ...)`, the options of the
   * routes below that path that have none of their own.
   */
  route(options: CorsOptions<KoaContext>): KoaMiddleware;
  /** Reads the application's routers now, instead of at the first request; bad options then throw here. */
  mirror(app: unknown): KoaCors;
}

/** A @koa/router layer: a route when it has methods (HEAD listed with GET), else the router's own middleware. */
interface KoaLayer {
  readonly path: string;
  readonly methods: readonly string[];
  readonly stack: readonly MaybeMarked<KoaContext>[];
}

interface KoaRouter {
  readonly stack: readonly KoaLayer[];
  /** The `host` option: the router runs only for requests to that host (its public matchHost()). */
  readonly host?: unknown;
  matchHost(host: string): boolean;
  /** Its public matcher: `path` holds every layer matching the path, in order. */
  match(path: string, method: string): { readonly path: readonly KoaLayer[] };
}

/** What a read of the application holds: its routers, how many layers they had, and each path's candidates. */
interface KoaRead {
  readonly app: { readonly middleware: readonly unknown[] };
  readonly size: number;
  readonly routers: readonly KoaRouter[];
  readonly candidates: CandidateCache;
  readonly hostBound: boolean;
}

/**
 * Validates `options` (throwing `CorsOptionsError` on a bad one) and returns the middleware, to
 * `app.use()` before the routers. An origin function is given the Koa context.
 */
export function createCors(options?: CorsOptions<KoaContext>, settings: KoaCorsSettings = {}): KoaCors {
  const core = new CorsCore(options, { ...settings, source: settings.source ?? 'createCors() of @lib/cors/koa' });
  const base = core.routeMatchedElsewhere({}, GLOBAL_METHODS, '*', undefined, 'createCors()');
  const run = new MarkersRun(core);
  let read: KoaRead | undefined;

  const readApp = (instance: unknown): KoaRead => {
    const app = instance as { middleware?: unknown } | null;
    if (!Array.isArray(app?.middleware)) {
      const fix = 'app.use() the middleware on the Koa application, before its routers';
      throw new RouteRegistrationError('CORS_NOT_A_ROUTER', `${core.source}.mirror()`, instance, 'is not a Koa application', fix);
    }
    const routers = routersOf(core, app.middleware);
    const layers = new Map<KoaLayer, Candidate | undefined>();
    for (const router of routers) for (const layer of router.stack) layers.set(layer, candidateOf(core, run, layer));
    // A router bound to a host runs only for requests to it: the host is then part of the key.
    const hostBound = routers.some((router) => Boolean(router.host));
    const candidates = new CandidateCache((key, visit) => {
      const at = hostBound ? key.indexOf('\n') : -1;
      const host = key.slice(0, Math.max(at, 0));
      const path = key.slice(at + 1);
      for (const router of routers) {
        if (hostBound && !router.matchHost(host)) continue;
        // A marker this router runs first (router.use('/internal', cors.route(o))) gives its options to its routes after it.
        let underMarker = false;
        for (const layer of router.match(path, 'GET').path) {
          const candidate = layers.get(layer);
          if (candidate === undefined) continue;
          visit(underMarker && candidate.kind === 'route' ? { ...candidate, underMarker } : candidate);
          // A marker on a path gives its options to the routes below it; one with none (router.use(m))
          // only narrows: @koa/router merges nested routers' layers into one stack, whose origin it cannot tell.
          if (candidate.kind === 'marker' && layer.path.startsWith('/') && layer.path !== '/') underMarker = true;
        }
      }
    });
    read = { app: app as KoaRead['app'], size: sizeOf(app.middleware, routers), routers, candidates, hostBound };
    return read;
  };

  const middleware = async function koaCors(ctx: KoaContext, next: () => Promise<unknown>): Promise<void> {
    // Used twice on the request's way, the first use answers.
    if (run.answered(ctx.req)) {
      await next();
      return;
    }
    let seen = read ?? readApp(ctx.app);
    // Routers used, or routes declared, since the last read: read again.
    if (sizeOf(seen.app.middleware, seen.routers) !== seen.size) seen = readApp(seen.app);
    const method = routingMethod(ctx.method, ctx, readNodeHeader);
    const kind = requestKind(ctx.method, ctx, readNodeHeader);
    // The path the routers will match: @koa/router takes a rewritten one (ctx.newRouterPath) over ctx.path.
    const path = ctx.newRouterPath || ctx.path;
    const table = run.answer(ctx.req, kind, method, seen.candidates.of(seen.hostBound ? `${ctx.host}\n${path}` : path), base);
    if (table === undefined || !(await write(core, table, ctx))) return;
    try {
      await next();
    } catch (error) {
      keepGrantOnError(ctx, error);
      throw error;
    }
  } as KoaCors;
  middleware.route = (routeOptions) => {
    core.checkRoute(GLOBAL_METHODS, '(cors.route())', routeOptions, 'cors.route()');
    const marker = async (ctx: KoaContext, next: () => Promise<unknown>) => {
      const narrowed = run.narrow(marker, routeOptions, ctx.req, ctx.res);
      if (narrowed !== undefined) await write(core, narrowed, ctx);
      await next();
    };
    return markRoute(marker, routeOptions);
  };
  Object.assign(middleware, controlsOf<CorsOptions<KoaContext>>(core));
  middleware.mirror = (app) => {
    readApp(app);
    return middleware;
  };
  return middleware;
}

/** Writes the answer of `table`: whether the application answers next (else Koa must not answer again). */
async function write(core: CorsCore, table: PathTable, ctx: KoaContext): Promise<boolean> {
  const answered = answerRequest(core, table, ctx, ctx.res);
  const goOn = answered === true || answered === false ? answered : await answered;
  if (!goOn) ctx.respond = false;
  return goOn;
}

/**
 * Koa's error answer removes every header, then sets `error.headers`: the grant goes there, so a
 * page can read the error too (rows 3 and 5).
 */
function keepGrantOnError(ctx: KoaContext, error: unknown): void {
  if (error === null || typeof error !== 'object') return;
  const kept: Record<string, unknown> = {};
  for (const name of ctx.res.getHeaderNames()) if (name.startsWith('access-control-') || name === 'vary') kept[name] = ctx.res.getHeader(name);
  try {
    // An error object may be thrown again by other requests: its own headers keep no earlier request's grant.
    const own = Object.entries((error as { headers?: Record<string, unknown> }).headers ?? {}).filter(
      ([name]) => !name.toLowerCase().startsWith('access-control-'),
    );
    (error as { headers?: Record<string, unknown> }).headers = { ...kept, ...Object.fromEntries(own) };
  } catch {
    // Headers the error will not give or take (a getter): Koa answers it as it would without us.
  }
}

/** The routers of the application's middleware, in the order Koa runs them. */
function routersOf(core: CorsCore, stack: readonly unknown[]): KoaRouter[] {
  const routers: KoaRouter[] = [];
  for (const middleware of stack) {
    const router = routerOf(middleware);
    if (router !== undefined) {
      if (!routers.includes(router)) routers.push(router);
    } else if ((middleware as { name?: string }).name === 'mount' || (middleware as { name?: string }).name === 'mountedApp') {
      const fix = 'use a nested @koa/router router (router.use("/prefix", inner.routes())) instead, or give the mounted application its own middleware';
      throw new RouteRegistrationError(
        'CORS_MOUNT_UNSEEN',
        `${core.source}.mirror()`,
        'a mounted application',
        'is mounted with koa-mount, whose routes cannot be read from outside it',
        fix,
      );
    } else if ((middleware as MaybeMarked<KoaContext>)[ROUTE_OPTIONS] !== undefined) {
      // With no path, it would stand for the middleware's options: those belong in createCors().
      refuseMarkerOutsideRoute(core.source, 'app.use()', "router.get('/internal/report', cors.route(options), handler)");
    }
  }
  return routers;
}

/** The router behind a router.routes() middleware, which carries it as `.router`. */
function routerOf(middleware: unknown): KoaRouter | undefined {
  const router = (middleware as { router?: KoaRouter } | null)?.router;
  return router !== undefined && Array.isArray(router.stack) && typeof router.match === 'function' ? router : undefined;
}

/** How much there is to read: the application's middleware and the routers' layers. */
function sizeOf(stack: readonly unknown[], routers: readonly KoaRouter[]): number {
  let size = stack.length;
  for (const router of routers) size += router.stack.length;
  return size;
}

/**
 * A layer as a candidate: a route with its methods, each with its markers' tables; the router's
 * own middleware a marker is given to (`router.use('/internal', cors.route(o))`); `undefined`
 * for other middleware, which decides nothing.
 */
function candidateOf(core: CorsCore, run: MarkersRun, layer: KoaLayer): Candidate | undefined {
  if (layer.methods.length > 0 && layer.stack.some((handler) => routerOf(handler) !== undefined)) {
    // The router runs it for the route's requests, yet its routes are no layers of a router read.
    const fix = "mount the router with router.use() (router.use('/api', inner.routes())) instead";
    throw new RouteRegistrationError(
      'CORS_MOUNT_UNSEEN',
      `${core.source}.mirror()`,
      layer.path,
      "is a route whose handler is a router's routes(), whose routes cannot be read from there",
      fix,
    );
  }
  const markers = layer.stack.filter((handler) => handler[ROUTE_OPTIONS] !== undefined);
  const register = (methods: readonly string[]) =>
    markers.map((marker) => {
      const ref = core.routeMatchedElsewhere({}, methods, layer.path || '/', marker[ROUTE_OPTIONS], koaRouteLabel);
      run.know(marker, ref);
      return ref;
    });
  if (layer.methods.length === 0) {
    const [ref] = register(METHODS);
    return ref === undefined ? undefined : { kind: 'marker', ref };
  }
  const methods = new Map<string, readonly TableRef[] | undefined>();
  const refs = markers.length === 0 ? undefined : register(layer.methods.filter((method) => method !== 'HEAD' || !layer.methods.includes('GET')));
  for (const method of layer.methods) methods.set(method, refs);
  const every = METHODS.every((method) => layer.methods.includes(method));
  // router.all() over a wildcard running middleware that takes next (authentication) decides
  // nothing; one of a single path (a GraphQL handler) answers.
  const last = layer.stack.at(-1);
  const overPaths = /\*|\(\.\*\)/.test(layer.path);
  return { kind: 'route', methods, passesOn: every && overPaths && refs === undefined && last !== undefined && last.length >= 2, underMarker: false };
}

const koaRouteLabel = (methods: readonly string[], path: string): string => `Koa route ${methods.length > 8 ? 'of every method' : methods.join(',')} ${path}`;
