/**
 * `@lib/cors/express`: one `app.use()` line before the routes of an Express 4 or 5 application.
 * Express is used as documented and nothing of it is changed: its route list is read (the
 * router's stack, with the patterns Express compiled), never written, and a request is answered
 * under what every route its URL and method match allows (rule F): the entry point never
 * predicts which of them Express runs. A `cors.route()` marker narrows the answer again when
 * Express runs it.
 */
import { type IncomingMessage, METHODS, type ServerResponse } from 'node:http';

import { controlsOf, CorsCore, type CoreSettings, type CorsControls, type TableRef } from '../core/cors-core.js';
import { requestKind, routingMethod } from '../core/decision.js';
import { RouteRegistrationError } from '../core/errors.js';
import { faultReporter } from '../core/line-limit.js';
import type { CorsOptions } from '../core/options.js';
import { GLOBAL_METHODS } from '../core/path-table.js';
import { type Candidate, CandidateCache, MarkersRun, markRoute, type MaybeMarked, ROUTE_OPTIONS } from '../core/route-markers.js';
import { type Next, readNodeHeader, respond } from './node.js';

export * from './common-exports.js';
export { setCorsCookie, type CookieOptions } from './credentials.js';

export type ExpressCorsSettings = Omit<CoreSettings, 'matching'>;

/** What is read of an Express application: its router (Express 5 `app.router`, Express 4 `app._router`). */
interface ExpressApp {
  readonly _router?: ExpressRouter;
  readonly router?: ExpressRouter;
  /** Set where the application is mounted in another (`parent.use(mountpath, app)`), as Express documents. */
  readonly parent?: ExpressApp;
  readonly mountpath?: unknown;
}

interface ExpressRouter {
  readonly stack: readonly ExpressLayer[];
  route(...args: unknown[]): unknown;
}

interface ExpressLayer {
  readonly handle: MaybeMarked<IncomingMessage> & { readonly stack?: unknown; readonly route?: unknown };
  readonly name: string;
  readonly route?: ExpressRoute;
  /** Express 5: the compiled patterns, pure functions of a path. */
  readonly matchers?: readonly ((path: string) => false | { readonly path: string })[];
  readonly slash?: boolean;
  /** Express 4: the compiled pattern. */
  readonly regexp?: RegExp & { fast_slash?: boolean; fast_star?: boolean };
  /** The method of a route's own layer (lower case); `undefined` for route.all(). */
  readonly method?: string;
}

interface ExpressRoute {
  readonly path: unknown;
  readonly methods: Record<string, boolean | undefined>;
  readonly stack: readonly ExpressLayer[];
}

export type ExpressMiddleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

/** The middleware, with the calls that go with it. */
export interface ExpressCors extends CorsControls<CorsOptions<IncomingMessage>>, ExpressMiddleware {
  /**
   * A route's own options, merged field by field over the middleware's, the Express way:
   * `app.post('/login', cors.route({ allowCredentials: true }), handler)`; mounted with `app.use()`,
   * the options of the routes below its path that have none of their own.
   */
  route(options: CorsOptions<IncomingMessage>): ExpressMiddleware;
  /** Reads the application's routes now, instead of at the first request; bad route options then throw here, at start-up. */
  mirror(app: unknown): ExpressCors;
}

/** One node of the application's stack as read: a route, a router mounted at a prefix, or a marker used as middleware. */
type Node =
  | { readonly kind: 'route'; readonly matches: (path: string) => boolean; readonly methods: MethodTables; readonly passesOn: boolean }
  | { readonly kind: 'mount'; readonly rest: (path: string) => string | undefined; readonly nodes: readonly Node[] }
  | { readonly kind: 'marker'; readonly rest: (path: string) => string | undefined; readonly ref: TableRef };

/** A route's methods (upper case), each with the tables of its markers, or `undefined` where it has none (the middleware's options). */
type MethodTables = ReadonlyMap<string, readonly TableRef[] | undefined>;

/** Every method node parses: what a route of every method (`app.all()`) serves. */
const EVERY_METHOD: readonly string[] = METHODS;

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
    const routers: ExpressRouter[] = [];
    const nodes = readStack(core, run, router, '', routers);
    const candidates = new CandidateCache((path, visit) => walk(nodes, path, visit, false));
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

/** The nodes of a router's stack, each marker's table made; `prefix` names routes in errors. */
function readStack(core: CorsCore, run: MarkersRun, router: ExpressRouter, prefix: string, routers: ExpressRouter[]): Node[] {
  routers.push(router);
  const nodes: Node[] = [];
  for (const layer of router.stack) {
    const route = layer.route;
    if (route !== undefined) {
      const path = prefix + String(route.path);
      if (route.stack.some((inner) => isRouter(inner.handle))) {
        // Express runs it for the route's requests, yet its routes cannot be read as a mount's.
        const fix = "mount the router with app.use() (app.use('/api', router)) instead";
        throw new RouteRegistrationError(
          'CORS_MOUNT_UNSEEN',
          `${core.source}.mirror()`,
          path,
          "is a route whose handler is a router, whose routes cannot be read from a route's handlers",
          fix,
        );
      }
      const methods = methodTables(core, run, route, path);
      nodes.push({ kind: 'route', matches: matcherOf(layer), methods, passesOn: passesOn(route, methods) });
    } else if (isRouter(layer.handle)) {
      nodes.push({
        kind: 'mount',
        rest: restOf(layer),
        nodes: readStack(core, run, layer.handle as unknown as ExpressRouter, prefix + mountName(layer), routers),
      });
    } else if (layer.name === 'mounted_app') {
      const fix = 'mount an express.Router() there instead, or give the mounted application its own @lib/cors/express middleware';
      throw new RouteRegistrationError(
        'CORS_MOUNT_UNSEEN',
        `${core.source}.mirror()`,
        prefix + mountName(layer),
        'mounts an Express application, whose routes cannot be read from outside it',
        fix,
      );
    } else if (layer.handle[ROUTE_OPTIONS] !== undefined) {
      const at = prefix + mountName(layer);
      nodes.push({ kind: 'marker', rest: restOf(layer), ref: registerMarker(core, run, layer.handle, [...EVERY_METHOD], at === '' ? '/' : at) });
    }
  }
  return nodes;
}

/** Each method of `route` with the tables of the markers Express runs for it (route.all()'s included). */
/**
 * A route of every method over a wildcard, with no marker, whose last handler takes `next`
 * (`app.all('/api/*', authenticate)`): middleware in all but name, which decides nothing. Any other
 * (`(req, res) => ...`, or one path) answers under the middleware's options.
 */
function passesOn(route: ExpressRoute, methods: MethodTables): boolean {
  const last = route.stack.at(-1)?.handle;
  // Only over a wildcard (`/api/*`): an app.all() of one path that takes next (a GraphQL or proxy handler) answers.
  const overPaths = typeof route.path === 'string' && /\*|\(\.\*\)/.test(route.path);
  return overPaths && servesEveryMethod(route) && [...methods.values()].every((refs) => refs === undefined) && last !== undefined && last.length >= 3;
}

/** route.all() says `_all`; app.all() names every method node parses. */
function servesEveryMethod(route: ExpressRoute): boolean {
  return route.methods._all === true || EVERY_METHOD.every((method) => route.methods[method.toLowerCase()] === true);
}

function methodTables(core: CorsCore, run: MarkersRun, route: ExpressRoute, path: string): MethodTables {
  const every = servesEveryMethod(route);
  const methods = every ? EVERY_METHOD : Object.keys(route.methods).map((method) => method.toUpperCase());
  const byMethod = new Map<string, TableRef[] | undefined>();
  for (const method of methods) {
    const markers = route.stack.filter(
      (layer) => (layer.method === undefined || layer.method.toUpperCase() === method) && layer.handle[ROUTE_OPTIONS] !== undefined,
    );
    byMethod.set(
      method,
      markers.length === 0 ? undefined : markers.map((layer) => registerMarker(core, run, layer.handle, every ? [...EVERY_METHOD] : [method], path)),
    );
  }
  return byMethod;
}

/** A marker's table on one route, for its methods there; the markers run keep one of them. */
function registerMarker(core: CorsCore, run: MarkersRun, marker: MaybeMarked<IncomingMessage>, methods: string[], path: string): TableRef {
  const ref = core.routeMatchedElsewhere({}, methods, path, marker[ROUTE_OPTIONS], expressRouteLabel);
  run.know(marker, ref);
  return ref;
}

const expressRouteLabel = (methods: readonly string[], path: string): string =>
  `Express route ${methods.length > 8 ? 'of every method' : methods.join(',')} ${path}`;

/**
 * Tells `visit` of every route and marker whose pattern matches `path`, in stack order: a route
 * matched whole, a mount or marker matched as a prefix (and its nodes then with the rest of the
 * path, as Express strips it). Express's own compiled patterns decide; none is run for its effects.
 */
function walk(nodes: readonly Node[], path: string, visit: (candidate: Candidate) => void, marked: boolean): void {
  // A marker mounted in this router gives its options to the routes after it here and below, not to another router's.
  let underMarker = marked;
  for (const node of nodes) {
    if (node.kind === 'route') {
      if (node.matches(path)) visit({ kind: 'route', methods: node.methods, passesOn: node.passesOn, underMarker });
    } else {
      const rest = node.rest(path);
      if (rest === undefined) continue;
      if (node.kind === 'marker') {
        visit({ kind: 'marker', ref: node.ref });
        underMarker = true;
      } else walk(node.nodes, rest, visit, underMarker);
    }
  }
}

/** Whether a layer's route pattern matches the whole of `path`. */
function matcherOf(layer: ExpressLayer): (path: string) => boolean {
  const matchers = layer.matchers;
  // A pattern whose parameters cannot be decoded (`%ZZ`) throws: taken as a match, so that it narrows.
  if (matchers !== undefined) return (path) => matchers.some((match) => matchesOrThrows(match, path));
  const regexp = layer.regexp!;
  // A copy: a user's RegExp path may carry lastIndex state, which the router's own must keep.
  const own = new RegExp(regexp.source, regexp.flags.replace(/[gy]/g, ''));
  return (path) => regexp.fast_star === true || own.test(path);
}

/** What follows a mount's prefix in `path`, as Express strips it; `undefined` where the prefix does not match. */
function restOf(layer: ExpressLayer): (path: string) => string | undefined {
  const express4 = layer.matchers === undefined;
  const prefixOf = (path: string): string | undefined => {
    if (layer.slash === true || layer.regexp?.fast_slash === true) return '';
    if (!express4) {
      for (const match of layer.matchers!) {
        let found: false | { readonly path: string };
        try {
          found = match(path);
        } catch {
          // Express answers such a path with an error: no route of this mount runs.
          return undefined;
        }
        if (found !== false) return found.path;
      }
      return undefined;
    }
    return new RegExp(layer.regexp!.source, layer.regexp!.flags.replace(/[gy]/g, '')).exec(path)?.[0];
  };
  return (path) => {
    const prefix = prefixOf(path);
    // An unanchored RegExp may match further in: Express enters a mount only where it begins the path.
    if (prefix === undefined || !path.startsWith(prefix)) return undefined;
    const next = path[prefix.length];
    // Express goes into a mount only at a segment's end (Express 4 at a '.' too).
    if (next !== undefined && next !== '/' && !(express4 && next === '.')) return undefined;
    const rest = path.slice(prefix.length);
    return rest.startsWith('/') ? rest : `/${rest}`;
  };
}

/** Whether `match` matches `path`, or throws trying (a parameter it cannot decode). */
function matchesOrThrows(match: (path: string) => unknown, path: string): boolean {
  try {
    return match(path) !== false;
  } catch {
    return true;
  }
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
    const fix = 'use the middleware once, at the top of the application (app.use(cors)), or mounted at a plain path';
    const problem = pattern ? 'is a pattern the middleware is mounted at' : 'holds the middleware twice';
    throw new RouteRegistrationError(
      'CORS_MOUNT_UNSEEN',
      `${core.source}.mirror()`,
      mounts.map((at) => at || '/').join(', '),
      `${problem}: which URL the application routes cannot be told`,
      fix,
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

/** The mount paths of the layers that hold `middleware` (app.use('/api', cors): '/api'; '' at the top), in stack order. */
function mountsOf(router: ExpressRouter, middleware: unknown, prefix: string, found: string[] = []): string[] {
  for (const layer of router.stack) {
    if (layer.route !== undefined) continue;
    if (layer.handle === middleware) found.push(prefix + mountName(layer));
    else if (isRouter(layer.handle)) mountsOf(layer.handle as unknown as ExpressRouter, middleware, prefix + mountName(layer), found);
  }
  return found;
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

/** A router (express.Router(), an application's): a stack and route(); a connect application (Vite's) has no route(), and is middleware. */
function isRouter(handle: unknown): boolean {
  const router = handle as (Partial<ExpressRouter> & (() => void)) | null;
  return typeof router === 'function' && Array.isArray(router.stack) && typeof router.route === 'function';
}

/** A mount's path: Express 5 keeps it; from Express 4's RegExp, a plain prefix is read back. */
function mountName(layer: ExpressLayer & { readonly rawPath?: unknown }): string {
  if (typeof layer.rawPath === 'string') return layer.rawPath === '/' ? '' : layer.rawPath;
  const source = layer.regexp?.source ?? '';
  if (source === '^\\/?(?=\\/|$)') return '';
  const plain = /^\^((?:\\\/(?:[\w-]|\\\.)+)+)\\\/\?\(\?=\\\/\|\$\)$/.exec(source);
  return plain === null ? `<${source}>` : plain[1]!.replace(/\\(.)/g, '$1');
}
