/**
 * `@lib/cors/express`: one `app.use()` line before the routes of an Express 4 or 5 application.
 * Express is used as documented and nothing of it is changed: its route list is read, never
 * written (express-routes.ts), and a request is answered
 * under what every route its URL and method match allows (rule F): the entry point never
 * predicts which of them Express runs. A `cors.route()` marker narrows the answer again when
 * Express runs it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { controlsOf, CorsCore, type CoreSettings, type CorsControls } from '../core/cors-core.js';
import { requestKind, routingMethod } from '../core/decision.js';
import { CorsUsageError, RouteRegistrationError } from '../core/errors.js';
import { faultReporter } from '../core/line-limit.js';
import type { CorsOptions } from '../core/options.js';
import { GLOBAL_METHODS } from '../core/path-table.js';
import { type CandidateCache, MarkersRun, markRoute, refuseUnseenMount } from '../core/route-markers.js';
import { type ExpressApp, type ExpressRouter, mountsOf, readRoutes } from './express-routes.js';
import { type Next, readNodeHeader, respond } from './node.js';

export * from './common-exports.js';
import type { ExplainsRoutes } from '../diagnostics/explain.js';
import { explainAmong } from './explain-routes.js';
export { setCorsCookie, type CookieOptions } from './credentials.js';

export type ExpressCorsSettings = Omit<CoreSettings, 'matching'>;

export type ExpressMiddleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

/** The middleware, with the calls that go with it. */
export interface ExpressCors extends ExplainsRoutes, CorsControls<CorsOptions<IncomingMessage>>, ExpressMiddleware {
  /**
   * A route's own options, merged field by field over the middleware's, the Express way:
   * `app.post('/login', cors.route({ allowCredentials: true }), handler)`; mounted with `app.use()`,
   * the options of the routes below its path that have none of their own.
   */
  route(options: CorsOptions<IncomingMessage>): ExpressMiddleware;
  /** Reads the application's routes now, instead of at the first request; bad route options then throw here, at start-up. */
  mirror(app: unknown): ExpressCors;
}

/**
 * Validates `options` (throwing `CorsOptionsError` on a bad one) and returns the middleware, to
 * `app.use()` before the routes. An origin function is given the IncomingMessage.
 */
export function createCors(options?: CorsOptions<IncomingMessage>, settings: ExpressCorsSettings = {}): ExpressCors {
  const core = new CorsCore(options, { ...settings, source: settings.source ?? 'createCors() of @lib/cors/express' });
  const base = core.routeMatchedElsewhere({}, GLOBAL_METHODS, '*', undefined, 'createCors()');
  const run = new MarkersRun(core);
  let read: { app: ExpressApp; routers: readonly ExpressRouter[]; size: number; candidates: CandidateCache; mount: string | undefined } | undefined;

  const readApp = (instance: unknown) => {
    const app = instance as ExpressApp | null | undefined;
    const router = app?._router ?? app?.router;
    if (router === undefined || !Array.isArray(router.stack)) {
      const fix = 'app.use() the middleware on the Express application, before its routes';
      throw new RouteRegistrationError('CORS_NOT_A_ROUTER', `${core.source}.mirror()`, instance, 'is not an Express application with routes', fix);
    }
    const { routers, candidates } = readRoutes(core, run, router);
    read = { app: app!, routers, size: sizeOf(routers), candidates, mount: ownMount(core, router, middleware) };
    return read;
  };

  const middleware = function expressCors(req: IncomingMessage, res: ServerResponse, next: Next): void {
    const served = (req as { app?: ExpressApp }).app;
    // Used twice on the request's way (app.use(cors), then router.use(cors)), the first use answers.
    if (run.answered(req)) return next();
    let seen = read;
    // Read at the first request, and again where routers or routes were added since.
    if (seen === undefined) seen = readApp(served);
    else if (sizeOf(seen.routers) !== seen.size) seen = readApp(seen.app);
    // An application called as a plain function leaves its req.app behind: one that does not use
    // this middleware is no second user of it.
    if (served !== undefined && served !== seen.app && holdsMiddleware(served, middleware)) {
      faultReporter(core.logger)(`${core.source}: one middleware serves two Express applications; give each its own createCors()`);
      return next();
    }
    const url = urlInApplication(req, seen.app, seen.mount);
    const pathname = url === undefined ? undefined : routedPath(url);
    if (pathname === undefined) return next();
    const method = routingMethod(req.method, req, readNodeHeader);
    const candidates = seen.candidates.of(pathname);
    const table = run.answer(req, requestKind(req.method, req, readNodeHeader), method, candidates, base);
    if (table === undefined) return next();
    respond(core, table, req, res, next);
  } as ExpressCors;
  middleware.route = (routeOptions) => {
    // Checked now, as the route is declared; its table is made when the routes are read.
    core.checkRoute(GLOBAL_METHODS, '(cors.route())', routeOptions, 'cors.route()');
    const marker = (req: IncomingMessage, res: ServerResponse, next: Next) => {
      const narrowed = run.narrow(marker, routeOptions, req, res);
      if (narrowed === undefined) next();
      else respond(core, narrowed, req, res, next);
    };
    return markRoute(marker, routeOptions);
  };
  Object.assign(middleware, controlsOf<CorsOptions<IncomingMessage>>(core));
  middleware.mirror = (app) => {
    readApp(app);
    return middleware;
  };
  middleware.explain = async (request, options) => {
    if (read === undefined) throw new CorsUsageError('CORS_NO_ENGINE', `${core.source}.explain(): the routes are not read yet; call cors.mirror(app) first`);
    return explainAmong(run, request, read.candidates.of(routedPath(request.url ?? '/') ?? '/'), base, options);
  };
  return middleware;
}

/**
 * The characters for which parseurl, which Express reads a request's path with, hands the whole
 * URL to node's legacy url.parse() instead of cutting it at `?`: the path Express routes by is then
 * not the URL's text before `?`.
 */
const READ_BY_URL_PARSE = /[\t\n\f\r #\u00a0\ufeff]/;

/**
 * The path Express routes `url` by, where parseurl reads it as its text before `?`; else
 * `undefined`, and the request is not answered: no browser sends such a URL (it keeps a fragment
 * to itself and percent-encodes the rest), and routes matched on another reading than Express's
 * could be other routes.
 */
function routedPath(url: string): string | undefined {
  if (url.charCodeAt(0) !== 0x2f || READ_BY_URL_PARSE.test(url)) return undefined;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * Where the middleware is mounted in the application (app.use('/api', cors): '/api'; '' at its
 * top), read once; `undefined` where it is not found in the routers (called from a function).
 * Mounted at a pattern, or used at two places, which URL the application routes cannot be told.
 */
function ownMount(core: CorsCore, router: ExpressRouter, middleware: unknown): string | undefined {
  const mounts = mountsOf(router, middleware, '');
  const [mount] = mounts;
  const pattern = mount !== undefined && (mount.startsWith('<') || /[:*?+()[\]{}]/.test(mount));
  if (mounts.length > 1 || pattern) {
    const problem = pattern ? 'is a pattern the middleware is mounted at' : 'holds the middleware twice';
    refuseUnseenMount(
      core.source,
      mounts.map((at) => at || '/').join(', '),
      `${problem}: which URL the application routes cannot be told`,
      'use the middleware once, at the top of the application (app.use(cors)), or mounted at a plain path',
    );
  }
  return mount?.endsWith('/') ? mount.slice(0, -1) : mount;
}

/**
 * The URL the application routes, for the middleware mounted in it at `mount`: `mount` and
 * `req.url` (less the `/` Express puts in a stripped `req.url` where the URL ended at the mount
 * path); where it is used from a function, the whole URL less the path the application itself is
 * mounted at (`app.mountpath` through `app.parent`, as Express documents them); `undefined` where
 * that is a pattern.
 */
function urlInApplication(req: IncomingMessage, app: ExpressApp, mount: string | undefined): string | undefined {
  const url = req.url ?? '/';
  if (mount !== undefined) {
    if (mount === '' || url.charCodeAt(0) !== 0x2f) return mount + url;
    const original = (req as { originalUrl?: string }).originalUrl ?? '';
    const endsAtMount = (url === '/' || url.startsWith('/?')) && original.split('?')[0] === (req as { baseUrl?: string }).baseUrl;
    return mount + (endsAtMount ? url.slice(1) : url);
  }
  let base = '';
  for (let mounted = app; mounted.parent !== undefined; mounted = mounted.parent) {
    const at = mounted.mountpath;
    if (typeof at !== 'string' || /[:*?+()[\]{}]/.test(at)) return undefined;
    base = (at.endsWith('/') ? at.slice(0, -1) : at) + base;
  }
  const whole = wholeUrl(req);
  if (base === '') return whole;
  if (whole.slice(0, base.length).toLowerCase() !== base.toLowerCase()) return undefined;
  const rest = whole.slice(base.length);
  return rest === '' || rest[0] === '?' ? `/${rest}` : rest[0] === '/' ? rest : undefined;
}

/**
 * The URL as the application's top router saw it: `req.baseUrl` and `req.url`, but for the `/`
 * Express puts in a stripped `req.url` (`/api` under a mount at `/api` reads `/`), where the
 * original URL shows it was not there (strict routing tells `/api` from `/api/`).
 */
function wholeUrl(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const mounted = (req as { baseUrl?: string }).baseUrl;
  if (mounted === undefined || mounted === '' || url.charCodeAt(0) !== 0x2f) return url;
  const original = (req as { originalUrl?: string }).originalUrl ?? '/';
  const joined = mounted + url;
  return joined === original || mounted + url.slice(1) === original ? original : joined;
}

/**
 * How much there is to read: the layers of every router read (a route or router added to any of
 * them changes it). Counted per request over the routers only, never the routes: a handful of
 * additions, not one per route.
 */
function sizeOf(routers: readonly ExpressRouter[]): number {
  let size = 0;
  for (const router of routers) size += router.stack.length;
  return size;
}

/** Applications known to use a middleware somewhere in their routers, or not to. */
const holders = new WeakMap<object, boolean>();

function holdsMiddleware(app: ExpressApp, middleware: unknown): boolean {
  let holds = holders.get(app);
  if (holds === undefined) {
    const router = app._router ?? app.router;
    holds = router !== undefined && Array.isArray(router.stack) && mountsOf(router, middleware, '').length > 0;
    holders.set(app, holds);
  }
  return holds;
}
