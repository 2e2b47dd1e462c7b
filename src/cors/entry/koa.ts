/**
 * `@lib/cors/koa`: one `app.use()` line before the routers of a Koa application with
 * `@koa/router`. @koa/router is used as documented and nothing of it is changed: its routers are
 * found in `app.middleware` (a router.routes() middleware carries its router), each asked with its
 * own public match() which of its layers a URL matches, and a request is answered under what every
 * one of them allows (rule F): the entry point never predicts which layer the router runs. A
 * `cors.route()` marker narrows the answer again when the router runs it.
 */
import { type IncomingHttpHeaders } from 'node:http';

import { controlsOf, CorsCore, type CoreSettings, type CorsControls } from '../core/cors-core.js';
import { requestKind, routingMethod } from '../core/decision.js';
import { CorsUsageError, RouteRegistrationError } from '../core/errors.js';
import type { CorsOptions } from '../core/options.js';
import { GLOBAL_METHODS, type PathTable } from '../core/path-table.js';
import { CandidateCache, MarkersRun, markRoute } from '../core/route-markers.js';
import { type KoaRouter, readRouters, sizeOf } from './koa-routes.js';
import { answerRequest, readNodeHeader } from './node.js';
import { varyKeepingEngine } from './node-writer.js';

export * from './common-exports.js';
import type { ExplainsRoutes } from '../diagnostics/explain.js';
import { explainAmong } from './explain-routes.js';

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
  readonly headerSent: boolean;
  readonly response: { get(field: string): string };
  set(field: string, value: string): void;
  respond?: boolean;
}

export type KoaMiddleware = (ctx: KoaContext, next: () => Promise<unknown>) => Promise<void>;

export interface KoaCors extends ExplainsRoutes, CorsControls<CorsOptions<KoaContext>>, KoaMiddleware {
  /**
   * A route's own options, merged over the middleware's: `router.post('/login', cors.route({
   * allowCredentials: true }), handler)`; given to `router.use(path, ...)`, the options of the
   * routes below that path that have none of their own.
   */
  route(options: CorsOptions<KoaContext>): KoaMiddleware;
  /** Reads the application's routers now, instead of at the first request; bad options then throw here. */
  mirror(app: unknown): KoaCors;
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
    const { routers, candidates, hostBound } = readRouters(core, run, app.middleware);
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
    const engineVary = ctx.res.getHeader('Vary');
    try {
      await next();
    } catch (error) {
      keepGrantOnError(ctx, error);
      throw error;
    }
    // Koa sends after its middleware: a handler's ctx.set('Vary', ...) gets the engine's fields back.
    if (engineVary !== undefined && !ctx.headerSent) {
      const own = ctx.response.get('Vary');
      if (own !== engineVary) ctx.set('Vary', varyKeepingEngine(own, engineVary));
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
  middleware.explain = async (request, options) => {
    if (read === undefined) throw new CorsUsageError('CORS_NO_ENGINE', `${core.source}.explain(): the routes are not read yet; call cors.mirror(app) first`);
    const path = (request.url ?? '/').split('?')[0]!;
    return explainAmong(run, request, read.candidates.of(read.hostBound ? `${String(request.headers.host ?? '')}\n${path}` : path), base, options);
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
    const headers: Record<string, unknown> = { ...kept, ...Object.fromEntries(own) };
    const ownVary = own.find(([name]) => name.toLowerCase() === 'vary');
    if (ownVary !== undefined && kept.vary !== undefined) {
      delete headers[ownVary[0]];
      headers.vary = varyKeepingEngine(ownVary[1], kept.vary);
    }
    (error as { headers?: Record<string, unknown> }).headers = headers;
  } catch {
    // Headers the error will not give or take (a getter): Koa answers it as it would without us.
  }
}
