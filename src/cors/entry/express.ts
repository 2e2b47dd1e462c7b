/**
 * `@lib/cors/express`: one `app.use()` line before the routes of an Express 4 or 5 application.
 * The routes' policies are read from the application itself, and each request gets the policy of
 * the route Express will run for it, found by Express's own matcher.
 */
import { type IncomingMessage, METHODS, type ServerResponse } from 'node:http';

import { controlsOf, CorsCore, oneMethodList, type CoreSettings, type CorsControls, type TableRef } from '../core/cors-core.js';
import { routingMethod } from '../core/decision.js';
import { RouteRegistrationError } from '../core/errors.js';
import { faultReporter } from '../core/line-limit.js';
import type { CorsOptions } from '../core/options.js';
import {
  type FrameworkRoute,
  FrameworkRoutes,
  type MaybeMarked,
  markRoute,
  type MethodDeclaration,
  methodSet,
  registerRoutes,
  ROUTE_OPTIONS,
  RoutesReadOnce,
  refuseMarkerOutsideRoute,
  samePatterns,
} from './framework-routes.js';
import { type Next, readNodeHeader, respond } from './node.js';

export * from './common-exports.js';
export { setCorsCookie, type CookieOptions } from './credentials.js';

export type ExpressCorsSettings = Omit<CoreSettings, 'matching'>;

/** What the mirror reads of an Express application: its router, under its version's name. */
interface ExpressApp {
  readonly _router?: ExpressRouter;
  readonly router?: ExpressRouter;
  /** Set where the application is mounted in another (`parent.use(mountpath, app)`). */
  readonly parent?: ExpressApp;
  readonly mountpath?: unknown;
}

/** An Express router (app's or `express.Router()`): a function with a stack of layers. */
interface ExpressRouter {
  readonly stack: ExpressLayer[];
  route(...args: unknown[]): unknown;
  use(...args: unknown[]): unknown;
}

interface ExpressLayer {
  readonly handle: MaybeMarked<IncomingMessage> & { readonly stack?: unknown };
  readonly name: string;
  readonly route?: ExpressRoute;
  /** Express 4: a boolean, the matched part then in `path` and the parameters in `params`; Express 5: the match or `false`. */
  match(path: string): LayerMatch;
  path?: string | undefined;
  params?: unknown;
  /** Express 5 keeps the declared path; Express 4 only its compiled RegExp. */
  readonly rawPath?: unknown;
  readonly regexp?: RegExp;
  /** A route's own layers carry their method (lower case). */
  readonly method?: string;
}

type LayerMatch = boolean | { readonly path: string };

interface ExpressRoute {
  readonly path: unknown;
  readonly methods: Record<string, boolean | undefined>;
  readonly stack: ExpressLayer[];
}

export type ExpressMiddleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

/** The middleware, with the calls that go with it. */
export interface ExpressCors extends CorsControls<CorsOptions<IncomingMessage>>, ExpressMiddleware {
  /**
   * A route's own options, merged field by field over the middleware's, the Express way:
   * `app.post('/login', cors.route({ allowCredentials: true }), handler)`. Runs as a no-op.
   */
  route(options: CorsOptions<IncomingMessage>): ExpressMiddleware;
  /**
   * Reads the application's routes now, instead of at the first request; errors in them (bad
   * route options, a mounted application) then throw here, at start-up.
   */
  mirror(app: unknown): ExpressCors;
}

/**
 * Validates `options` (throwing `CorsOptionsError` on a bad one) and returns the middleware, to
 * `app.use()` before the routes. Paths that no route of the application matches are not covered:
 * the request goes on untouched. An origin function is given the IncomingMessage.
 */
export function createCors(options?: CorsOptions<IncomingMessage>, settings: ExpressCorsSettings = {}): ExpressCors {
  const core = new CorsCore(options, { ...settings, source: settings.source ?? 'createCors() of @lib/cors/express' });
  const routesOnce = new RoutesReadOnce(core, (_core, app) => mirrorExpress(core, app, middleware));

  const middleware = function expressCors(req: IncomingMessage, res: ServerResponse, next: Next): void {
    const served = (req as { app?: ExpressApp }).app;
    const { app, ownMount, routes, walked } = routesOnce.current ?? routesOnce.read(served);
    if (served !== undefined && served !== app && holdsMiddleware(served, middleware)) {
      // Another application that uses it: its routes are not the ones read, so it is covered by
      // nothing, never by the other application's. (An application called as a plain function,
      // not mounted, leaves its own req.app behind: one without this middleware is no other user.)
      faultReporter(core.logger)(`${core.source}: one middleware serves two Express applications; give each its own createCors()`);
      return next();
    }
    // Used at the top of its application, the middleware sees req.url as the application routes it,
    // however that application is mounted and whatever rewrote it before.
    const url = ownMount === '' ? (req.url ?? '/') : urlInApplication(req, app, ownMount);
    if (url === null) {
      faultReporter(core.logger)(
        `${core.source}: the middleware is mounted at a pattern, in an application mounted at one: which URL the application routes cannot be told; it covers nothing`,
      );
      return next();
    }
    const pathname = url === undefined ? undefined : routedPath(url);
    if (pathname === undefined) return next();
    const method = routingMethod(req.method, req, readNodeHeader);
    const table = routes.tableFor(pathname, method, req.method);
    // When this request walked the routes, the router takes the walk's matches as it goes on.
    const matches = walked.take();
    const goOn = matches === undefined ? next : (error?: unknown) => nextTakingMatches(matches, next, error);
    if (table === undefined) return goOn();
    respond(core, table, req, res, goOn);
  } as ExpressCors;
  middleware.route = (routeOptions) => markRoute((_req: IncomingMessage, _res: ServerResponse, next: Next) => next(), routeOptions);
  Object.assign(middleware, controlsOf<CorsOptions<IncomingMessage>>(core));
  middleware.mirror = (app) => {
    routesOnce.read(app);
    return middleware;
  };
  return middleware;
}

/**
 * The characters for which parseurl, which Express reads a request's path with, hands the whole
 * URL to node's legacy url.parse() instead of cutting it at `?`: that cuts a fragment off and
 * escapes other characters, so the path Express routes by is not the URL's text before `?`.
 */
const READ_BY_URL_PARSE = /[\t\n\f\r #\u00a0\ufeff]/;

/**
 * The path Express routes `url` by, where parseurl reads it as its text before `?`; else
 * `undefined`: the URL is not covered. No browser sends such a URL (it keeps a fragment to itself
 * and percent-encodes the rest, and sends no absolute URL but to a proxy), and a policy found by
 * another reading than Express's could be another route's.
 */
function routedPath(url: string): string | undefined {
  if (url.charCodeAt(0) !== 0x2f || READ_BY_URL_PARSE.test(url)) return undefined;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** The routes of an application, and the matches of the walk a request last ran, for its router to take. */
interface ExpressRoutes {
  /**
   * The application read, and where the middleware is mounted in it (mountOfMiddleware()): ''
   * used at its top (app.use(cors)), where req.url is what the application routes.
   */
  readonly app: ExpressApp;
  readonly ownMount: string | undefined;
  readonly routes: FrameworkRoutes;
  readonly walked: WalkedMatches;
}

/** Every route of `app`, its tables built, and the walk that finds a path's routes as Express does. */
function mirrorExpress(core: CorsCore, instance: unknown, self: ExpressMiddleware): ExpressRoutes {
  const app = instance as ExpressApp | null | undefined;
  const router = app?._router ?? app?.router;
  if (router === undefined || !Array.isArray(router.stack)) {
    const fix = 'app.use() the middleware on the Express application, before its routes';
    throw new RouteRegistrationError('CORS_NOT_A_ROUTER', `${core.source}.mirror()`, instance, 'is not an Express application with routes', fix);
  }
  const ownMount = mountOfMiddleware(router, self);
  // Mounted at a pattern inside an application itself mounted at one: refused while that is known.
  if (ownMount === undefined && mountBase(app!) === undefined) {
    throw new RouteRegistrationError(
      'CORS_MOUNT_UNSEEN',
      `${core.source}.mirror()`,
      app!.mountpath,
      'is a pattern an application is mounted at, whose middleware is itself mounted at one: which URL the application routes cannot be told',
      'use the middleware at the top of that application (app.use(cors)), or mount it at a plain path',
    );
  }
  const entries = new Map<ExpressRoute, FrameworkRoute>();
  const routers: ExpressRouter[] = [];
  collect(core, router, '', entries, routers);
  for (const seen of routers) {
    refuseLateRoutes(core, seen);
    const first = seen.stack[0];
    if (first !== undefined) takeWalkedMatchesIn(Object.getPrototypeOf(first) as ExpressLayer);
  }
  const express4 = router.stack.length > 0 && typeof (router.stack[0] as { handle_request?: unknown }).handle_request === 'function';
  const walked = new WalkedMatches();
  const routes = new FrameworkRoutes((pathname) => {
    const found: FrameworkRoute[] = [];
    const matches: StackMatches[] = [];
    walk({ entries, found, matches, express4, core, self }, router.stack, pathname);
    walked.keep(matches);
    return found;
  });
  return { app: app!, ownMount, routes, walked };
}

/**
 * The mount paths from the top of the application to the middleware, as text
 * (app.use('/v1', router) then router.use('/api', cors): '/v1/api'); '' at the top;
 * `undefined` where one is a pattern, whose text each request matches differently.
 */
function mountOfMiddleware(router: ExpressRouter, self: unknown, prefix = ''): string | undefined {
  for (const layer of router.stack) {
    if (layer.route !== undefined) continue;
    const at = mountName(layer);
    const plain = !at.startsWith('<') && !/[:*?+()[\]{}]/.test(at);
    if (layer.handle === self) return plain ? prefix + at : undefined;
    const inner = layer.handle as unknown as Partial<ExpressRouter>;
    if (plain && isRouter(inner)) {
      const found = mountOfMiddleware(inner, self, prefix + at);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * The URL the application routes, for the middleware mounted inside it at `ownMount`: the whole
 * URL less the application's own mount path, which is req.baseUrl less the middleware's mounts
 * (so an application mounted twice, or by a router, is told right). Where the middleware's mount
 * is a pattern, the application's mount paths through its parents (app.use() sets them) serve;
 * `null` where those are patterns too.
 */
function urlInApplication(req: IncomingMessage, app: ExpressApp, ownMount: string | undefined): string | null | undefined {
  let base: string | undefined;
  if (ownMount !== undefined) {
    const baseUrl = (req as { baseUrl?: string }).baseUrl ?? '';
    if (!baseUrl.toLowerCase().endsWith(ownMount.toLowerCase())) return null;
    base = baseUrl.slice(0, baseUrl.length - ownMount.length);
  } else base = mountBase(app);
  return base === undefined ? null : withinMount(wholeUrl(req), base);
}

/** The path an application is mounted at through its parents; `undefined` where one is a pattern. */
function mountBase(app: ExpressApp): string | undefined {
  let base = '';
  for (let mounted = app; mounted.parent !== undefined; mounted = mounted.parent) {
    const at = mounted.mountpath;
    if (typeof at !== 'string' || /[:*?+()[\]{}]/.test(at)) return undefined;
    base = (at.endsWith('/') ? at.slice(0, -1) : at) + base;
  }
  return base;
}

/** Applications known to use `middleware` somewhere in their routers, or not to. */
const holders = new WeakMap<object, boolean>();

/** Whether `app` uses `middleware`: looked up once an application. */
function holdsMiddleware(app: ExpressApp, middleware: unknown): boolean {
  let holds = holders.get(app);
  if (holds === undefined) {
    const within = (router: ExpressRouter): boolean =>
      router.stack.some(
        (layer) =>
          layer.handle === middleware ||
          (layer.route === undefined && isRouter(layer.handle as Partial<ExpressRouter>) && within(layer.handle as unknown as ExpressRouter)),
      );
    const router = app._router ?? app.router;
    holds = router !== undefined && isRouter(router as Partial<ExpressRouter>) && within(router);
    holders.set(app, holds);
  }
  return holds;
}

/**
 * `url` as the application mounted at `base` routes it: what follows the mount path, which Express
 * matched without regard to case; `undefined` where it does not begin the URL (no route of that
 * application can run then).
 */
function withinMount(url: string, base: string): string | undefined {
  if (base === '') return url;
  if (url.slice(0, base.length).toLowerCase() !== base.toLowerCase()) return undefined;
  const rest = url.slice(base.length);
  if (rest === '' || rest[0] === '?') return `/${rest}`;
  return rest[0] === '/' ? rest : undefined;
}

/** Registers the routes of `router` (mounted at `prefix`, for names in errors), depth first, in Express's order. */
function collect(core: CorsCore, router: ExpressRouter, prefix: string, entries: Map<ExpressRoute, FrameworkRoute>, routers: ExpressRouter[]): void {
  routers.push(router);
  const pathOf = samePaths();
  const routes: PathRoute[] = [];
  for (const layer of router.stack) {
    const route = layer.route;
    if (route !== undefined) {
      const path = prefix + pathName(route.path);
      if (route.stack.some((inner) => isRouter(inner.handle as unknown as Partial<ExpressRouter>))) {
        // Express runs it for the route's requests, yet it is no mount: its routes go unread.
        throw new RouteRegistrationError(
          'CORS_MOUNT_UNSEEN',
          `${core.source}.mirror()`,
          path,
          "is a route whose handler is a router, whose routes cannot be read from a route's handlers",
          "mount the router with app.use() (app.use('/api', router)) instead",
        );
      }
      routes.push({ route, key: pathOf(layer), path });
      continue;
    }
    const inner = layer.handle as unknown as Partial<ExpressRouter>;
    if (isRouter(inner)) {
      collect(core, inner as ExpressRouter, prefix + mountName(layer), entries, routers);
    } else if (layer.name === 'mounted_app') {
      throw new RouteRegistrationError(
        'CORS_MOUNT_UNSEEN',
        `${core.source}.mirror()`,
        prefix + mountName(layer),
        'mounts an Express application, whose routes cannot be read from outside it',
        'mount an express.Router() there instead, or give the mounted application its own @lib/cors/express middleware',
      );
    } else if (layer.handle[ROUTE_OPTIONS] !== undefined) {
      const mountedAt = prefix + mountName(layer);
      refuseMarkerOutsideRoute(core.source, `app.use('${mountedAt === '' ? '/' : mountedAt}')`, "app.get('/internal/report', cors.route(options), handler)");
    }
  }
  const tables = registerRoutes(
    routes,
    declarationsOf,
    (declaration) => register(core, declaration),
    ({ method, path, options }) => core.checkRoute(oneMethodList(method), path, options, expressRouteLabel),
  );
  for (const { route } of routes) {
    // A route declared with no method yet (`app.route('/a')` alone) serves nothing: it has no table, and the walk passes over it.
    const table = tables.get(route);
    if (table !== undefined) entries.set(route, frameworkRoute(route, table));
  }
}

/**
 * The URL Express routes the request by from the application's top. Mounted (app.use('/api', cors),
 * or inside a mounted router), the middleware sees req.url with the mount path cut off, and a `/`
 * put first where none was left (`/api` is `/` there). req.originalUrl is the URL as it came, so
 * it serves only where it agrees: a middleware before this one may have rewritten req.url.
 */
function wholeUrl(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const mounted = (req as { baseUrl?: string }).baseUrl;
  // An absolute URL (a proxy's request line) is kept whole: it is not covered (routedPath()).
  if (mounted === undefined || mounted === '' || url.charCodeAt(0) !== 0x2f) return url;
  const original = (req as { originalUrl?: string }).originalUrl ?? '/';
  const joined = mounted + url;
  return joined === original || mounted + url.slice(1) === original ? original : joined;
}

/**
 * An Express router (express.Router(), or the app's own), whose routes are read. Other middleware
 * with a `stack` is not: a connect application (Vite's `vite.middlewares`) keeps `{ route, handle }`
 * records there, and is middleware like any other.
 */
function isRouter(handle: Partial<ExpressRouter>): handle is ExpressRouter {
  return Array.isArray(handle.stack) && typeof handle.route === 'function';
}

/** A route of a router, with its path's key and its path as errors name it. */
interface PathRoute {
  readonly route: ExpressRoute;
  readonly key: object;
  readonly path: string;
}

/** One method of a route, with the options of the route's cors.route() marker for it, if any. */
interface ExpressDeclaration extends MethodDeclaration<ExpressRoute>, PathRoute {
  readonly options: CorsOptions<IncomingMessage> | undefined;
}

/** The methods a route serves, upper case; none (`undefined`) for a route of every method. */
function methodsOf(route: ExpressRoute): string[] | undefined {
  if (route.methods._all === true) return undefined;
  return Object.keys(route.methods)
    .filter((method) => route.methods[method] === true)
    .map((method) => method.toUpperCase());
}

/**
 * A route of every method: `route.all()` (router.all()), or `app.all()`, which Express declares
 * as a route naming each method node:http knows.
 */
function servesEveryMethod(route: ExpressRoute): boolean {
  if (route.methods._all === true) return true;
  return METHODS.every((method) => route.methods[method.toLowerCase()] === true);
}

/**
 * A route's methods, each with its cors.route() marker's options. route.all() serves every method
 * node:http parses, as app.all() declares them (a plain OPTIONS among them, which it then answers).
 */
function declarationsOf(pathRoute: PathRoute): ExpressDeclaration[] {
  const route = pathRoute.route;
  const named = methodsOf(route);
  const everyMethod = named === undefined || servesEveryMethod(route);
  return (named ?? METHODS).map((method) => {
    // A route with no HEAD handler of its own runs HEAD as GET (Route.dispatch()), GET's markers with it.
    const runs = method === 'HEAD' && route.methods.head !== true ? 'GET' : method;
    const marker = route.stack.find(
      (layer) => layer.handle[ROUTE_OPTIONS] !== undefined && (layer.method === undefined || layer.method === '_all' || layer.method.toUpperCase() === runs),
    );
    const options = marker?.handle[ROUTE_OPTIONS] as CorsOptions<IncomingMessage> | undefined;
    return { ...pathRoute, method, options, everyMethod };
  });
}

/** Gives the declaration's path its method's policy: the table the route leads to. */
function register(core: CorsCore, { key, method, path, options }: ExpressDeclaration): TableRef {
  return core.routeMatchedElsewhere(key, oneMethodList(method), path, options, expressRouteLabel);
}

function frameworkRoute(route: ExpressRoute, ref: TableRef): FrameworkRoute {
  const methods = methodsOf(route);
  if (methods === undefined) return { methods: undefined, ref };
  // Express runs a route of GET for HEAD, where the route names no HEAD itself.
  return { methods: methodSet(methods.includes('GET') && !methods.includes('HEAD') ? [...methods, 'HEAD'] : methods), ref };
}

/**
 * The key of a route's path in its router (PathKey): the first route layer of the router with the
 * same path, which Express matches alike, as a router's layers share its case and strict settings.
 * Express 4 compiles every path to a RegExp, compared by pattern and flags; Express 5 keeps the
 * path as declared: a string, a RegExp or a list of them. No key string is kept a route.
 */
function samePaths(): (layer: ExpressLayer) => object {
  const sameRegExp = samePatterns();
  const byPath = new Map<string, ExpressLayer>();
  const byList = new Map<string, ExpressLayer>();
  return (layer) => {
    const path = layer.regexp ?? layer.rawPath;
    if (path instanceof RegExp) return sameRegExp(path);
    if (typeof path === 'string') return firstWith(byPath, path, layer);
    if (Array.isArray(path)) return firstWith(byList, spelledList(path), layer);
    // A path of no form Express has: shared with no other route.
    return layer;
  };
}

function firstWith(layers: Map<string, ExpressLayer>, path: string, layer: ExpressLayer): ExpressLayer {
  const first = layers.get(path);
  if (first !== undefined) return first;
  layers.set(path, layer);
  return layer;
}

/** A list of paths (strings and RegExps) in a string that only the same list spells alike. */
function spelledList(paths: readonly unknown[]): string {
  return JSON.stringify(paths, (_key, value: unknown) => (value instanceof RegExp ? { pattern: value.source, flags: value.flags } : value));
}

/** How an Express route is named in errors, made only when one is thrown. */
const expressRouteLabel = (methods: readonly string[], path: string): string => `Express route ${methods.join(',')} ${path}`;

/** What a walk reads and writes as it goes down the stacks. */
interface Walk {
  readonly entries: Map<ExpressRoute, FrameworkRoute>;
  /** The routes matching the path, in Express's order. */
  readonly found: FrameworkRoute[];
  /** Each stack's matches, for the router to take. */
  readonly matches: StackMatches[];
  readonly express4: boolean;
  readonly core: CorsCore;
  /** The middleware's own function, whose layer the router goes on from. */
  readonly self: ExpressMiddleware;
}

/**
 * Appends the routes matching `path` under `stack`, in order, matched as Express's router
 * matches them (router/index.js: each layer's own match(), a mount's prefix cut off at a path
 * separator), and keeps what each layer's match() returned. Returns `false` where Express would
 * stop routing: a path it cannot decode.
 */
function walk(state: Walk, stack: readonly ExpressLayer[], path: string): boolean {
  const matches = new StackMatches(stack, path, state.express4);
  state.matches.push(matches);
  for (let index = 0; index < stack.length; index++) {
    const layer = stack[index]!;
    let match: LayerMatch;
    try {
      match = layer.match(path);
    } catch {
      // Express then skips every later route and answers with an error: no policy applies.
      return false;
    }
    matches.add(index, layer, match);
    if (match === false) continue;
    const route = layer.route;
    if (route !== undefined) {
      const entry = state.entries.get(route);
      if (entry === undefined && methodsOf(route)?.length === 0) continue;
      if (entry === undefined) {
        // A route added in a way the late-route check does not see: covered by nothing, never by
        // another route's policy.
        faultReporter(state.core.logger)(`${state.core.source}: a route matching ${path} was added after the routes were read; it gets no CORS headers`);
        return false;
      }
      state.found.push(entry);
      continue;
    }
    if (layer.handle === state.self) {
      // The router goes on from the next layer once the middleware calls next().
      matches.resumeAfter(index);
      continue;
    }
    const inner = layer.handle as unknown as Partial<ExpressRouter>;
    if (!isRouter(inner)) continue;
    const matched = (match === true ? layer.path : match.path) ?? '';
    // Express enters a router only where what its mount path matched begins the path (an
    // unanchored RegExp mount can match further in) and ends at a segment's end.
    if (!path.startsWith(matched)) continue;
    const next = path[matched.length];
    if (next !== undefined && next !== '/' && !(state.express4 && next === '.')) continue;
    const rest = path.slice(matched.length);
    if (!walk(state, inner.stack, rest.startsWith('/') ? rest : `/${rest}`)) return false;
  }
  return true;
}

/**
 * What one walk's match() calls returned on one stack and path. The router runs the same
 * layers' match() on the same path once the middleware calls next(): at 100,000 routes a pass over
 * their patterns costs seconds on a first request, and a second pass compiles each pattern again,
 * to machine code (V8 compiles a RegExp at its first run and again at its second). So the router
 * takes these results instead, each once and in order, from the layer it goes on from: the one
 * after the middleware's own in the middleware's stack, the first in a router entered later. A
 * router hands back to its parent in a later tick (setImmediate), so the stacks holding the
 * middleware's router (app.use('/api', router) with the middleware inside) match as they always do.
 */
class StackMatches {
  readonly stack: readonly ExpressLayer[];
  readonly path: string;
  readonly #express4: boolean;
  /** The layer whose match() the router is expected to run next. */
  #next = 0;
  /** How many layers, from the first, the walk ran match() on. */
  #walked = 0;
  /** The stack's length at the walk: a layer added or removed since moves the others, whose matches then no longer line up. */
  readonly #length: number;
  /** The indices of the layers that matched, ascending, the layers, and what their match() returned (Express 4: the path and params it left on the layer). */
  readonly #matchedAt: number[] = [];
  readonly #matchedLayers: ExpressLayer[] = [];
  readonly #results: unknown[] = [];
  readonly #params: unknown[] = [];
  #taken = 0;

  constructor(stack: readonly ExpressLayer[], path: string, express4: boolean) {
    this.stack = stack;
    this.path = path;
    this.#express4 = express4;
    this.#length = stack.length;
  }

  /** The router goes on after the layer at `index`, the last walked so far: the layers up to it ran already. */
  resumeAfter(index: number): void {
    this.#next = index + 1;
    this.#taken = this.#matchedAt.length;
  }

  add(index: number, layer: ExpressLayer, match: LayerMatch): void {
    this.#walked = index + 1;
    if (match === false) return;
    this.#matchedAt.push(index);
    this.#matchedLayers.push(layer);
    if (this.#express4) {
      this.#results.push(layer.path!);
      this.#params.push(layer.params);
    } else {
      this.#results.push(match);
    }
  }

  /**
   * Whether `layer`'s match() of `path` is the one this stack hands over next: the layer the walk
   * saw there, in a stack no layer has since been added to or removed from (an async origin
   * function lets other code run between the walk and next()).
   */
  expects(layer: ExpressLayer, path: string): boolean {
    const index = this.#next;
    if (index >= this.#walked || this.stack[index] !== layer || path !== this.path || this.stack.length !== this.#length) return false;
    return this.#matchedAt[this.#taken] !== index || this.#matchedLayers[this.#taken] === layer;
  }

  /** What `layer`'s match() returned in the walk, as match() returns it, once. */
  take(layer: ExpressLayer): LayerMatch {
    const index = this.#next++;
    const matched = this.#matchedAt[this.#taken] === index;
    if (!this.#express4) return matched ? (this.#results[this.#taken++] as LayerMatch) : false;
    // Express 4's router reads the match from the layer itself.
    layer.path = matched ? (this.#results[this.#taken] as string) : undefined;
    layer.params = matched ? this.#params[this.#taken++] : undefined;
    return matched;
  }
}

/** The matches of the walk a request ran, kept from the walk to the request's next(). */
class WalkedMatches {
  #last: readonly StackMatches[] | undefined;

  keep(matches: readonly StackMatches[]): void {
    this.#last = matches;
  }

  /** The matches of the walk just run, if one ran since the last take(). */
  take(): readonly StackMatches[] | undefined {
    const last = this.#last;
    this.#last = undefined;
    return last;
  }
}

/**
 * The matches the router may take: only while the request that walked calls next(), synchronously
 * (the router's loop over its layers), so no other request and no later path gets them.
 */
let handedOver: readonly StackMatches[] | undefined;

function nextTakingMatches(matches: readonly StackMatches[], next: Next, error: unknown): void {
  const outer = handedOver;
  handedOver = matches;
  try {
    next(error);
  } finally {
    handedOver = outer;
  }
}

const LAYER_CLASSES_TAKING = new WeakSet<object>();

/**
 * Makes the match() of Express's Layer class (`prototype`) return the walk's result where one is
 * handed over for that layer and path, else match as it always does. Once per class: Express 4
 * and 5 each have their own.
 */
function takeWalkedMatchesIn(prototype: ExpressLayer): void {
  if (LAYER_CLASSES_TAKING.has(prototype)) return;
  LAYER_CLASSES_TAKING.add(prototype);
  const match = prototype.match;
  (prototype as { match: ExpressLayer['match'] }).match = function matchOrTakeWalked(this: ExpressLayer, path: string): LayerMatch {
    const handed = handedOver;
    if (handed !== undefined) {
      for (const matches of handed) if (matches.expects(this, path)) return matches.take(this);
    }
    return match.call(this, path);
  };
}

/** After the mirror, a route declared on `router` throws where it is declared: it would have no policy. */
function refuseLateRoutes(core: CorsCore, router: ExpressRouter): void {
  const late = (what: string): never => {
    throw new RouteRegistrationError(
      'CORS_ROUTES_SEALED',
      `${core.source}: ${what}`,
      'the Express application',
      'comes after the first request (or mirror()) read its routes',
      'declare every route before the server starts serving',
    );
  };
  const use = router.use;
  Object.assign(router, {
    route: (path: unknown) => late(`a route ${String(path)}`),
    use(...args: unknown[]) {
      if (args.flat(Number.POSITIVE_INFINITY).some((arg) => typeof arg === 'function' && isRouter(arg as Partial<ExpressRouter>))) late('a router mounted');
      return use.apply(this, args);
    },
  });
}

function pathName(path: unknown): string {
  return typeof path === 'string' ? path : String(path);
}

/** A mount's path for names in errors: Express 5 keeps it; from Express 4's RegExp, a plain prefix is read back. */
function mountName(layer: ExpressLayer): string {
  if (typeof layer.rawPath === 'string') return layer.rawPath === '/' ? '' : layer.rawPath;
  const source = layer.regexp?.source ?? '';
  if (source === '^\\/?(?=\\/|$)') return '';
  const plain = /^\^((?:\\\/[\w.-]+)+)\\\/\?\(\?=\\\/\|\$\)$/.exec(source);
  return plain === null ? `<${source}>` : plain[1]!.replaceAll('\\/', '/');
}
