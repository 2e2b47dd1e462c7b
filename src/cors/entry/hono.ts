/**
 * `@lib/cors/hono`: a hono middleware, `app.use(createCors(app, options))`, that reads the
 * routes from the app and gives each request the policy of the route hono will run for it, found
 * by hono's own router with the app's own path rules (`strict`, `getPath`).
 */
import type { Answer } from '../core/answer.js';
import { controlsOf, CorsCore, type CoreSettings, type CorsControls, type TableRef } from '../core/cors-core.js';
import { routingMethod } from '../core/decision.js';
import { RouteRegistrationError } from '../core/errors.js';
import type { CorsOptions } from '../core/options.js';
import { GLOBAL_METHODS, type PathTable } from '../core/path-table.js';
import { SharedUrls } from '../core/route-overlaps.js';
import { answerFetchRequest, emptyAnswer, readFetchHeader, withAnswer } from './fetch-writer.js';
import {
  type MaybeMarked,
  markRoute,
  refuseMarkerOutsideRoute,
  type MethodDeclaration,
  registerRoutes,
  ROUTE_OPTIONS,
  RoutesReadOnce,
} from './framework-routes.js';

export * from './common-exports.js';

export type HonoCorsSettings = Omit<CoreSettings, 'matching'>;

/** What the middleware reads of hono's Context (hono's own type fits it). */
export interface HonoContext {
  readonly req: {
    readonly raw: Request;
    readonly path: string;
    readonly method: string;
    /** The routes hono matched for this request, in its order (hono 4; deprecated there for `hono/route`, which reads the same). */
    readonly matchedRoutes?: readonly RouterRoute[];
  };
  res: Response;
}

export type HonoMiddleware = (c: HonoContext, next: () => Promise<void>) => Promise<Response | undefined>;

export interface HonoCors extends CorsControls<CorsOptions<Request>>, HonoMiddleware {
  /** A route's own options, merged over the middleware's: `app.post('/login', cors.route({ allowCredentials: true }), handler)`. */
  route(options: CorsOptions<Request>): HonoMiddleware;
  /**
   * Reads the app's routes now, instead of at the first request: call it once every route is
   * declared, so that a bad route option throws at start-up.
   */
  mirror(): HonoCors;
}

/** A route as hono records it (`app.routes`), and as its router hands it back. */
interface RouterRoute {
  readonly path: string;
  readonly method: string;
  readonly handler: MaybeMarked<Request> & { readonly __COMPOSED_HANDLER?: unknown };
}

interface HonoApp {
  readonly routes: RouterRoute[];
  readonly router: { match(method: string, path: string): [[[unknown, RouterRoute], unknown][], ...unknown[]] };
}

/**
 * Validates `options` (throwing `CorsOptionsError` on a bad one) and returns the middleware for
 * `app`. The routes are read at the first request: declare them all before serving. Paths no
 * route matches are not covered. An origin function is given the `Request`.
 */
export function createCors(app: unknown, options?: CorsOptions<Request>, settings: HonoCorsSettings = {}): HonoCors {
  const core = new CorsCore(options, { ...settings, source: settings.source ?? 'createCors() of @lib/cors/hono' });
  const honoApp = app as Partial<HonoApp> | null;
  if (honoApp === null || typeof honoApp !== 'object' || !Array.isArray(honoApp.routes) || typeof honoApp.router?.match !== 'function') {
    throw new RouteRegistrationError('CORS_NOT_A_ROUTER', core.source, app, 'is not a hono app', 'pass the app: app.use(createCors(app, options))');
  }
  const routesOnce = new RoutesReadOnce(core, () => mirrorHono(core, honoApp as HonoApp));

  const middleware = async function honoCors(c: HonoContext, next: () => Promise<void>): Promise<Response | undefined> {
    const routes = routesOnce.current ?? routesOnce.read(honoApp);
    const request = c.req.raw;
    const method = routingMethod(c.req.method, request, readFetchHeader);
    // Outside a preflight, hono has already matched the route it will run: asking its router
    // again would run the app's route pattern a second time, which V8 then compiles to machine
    // code (at 10,000 routes, seconds and megabytes on the first request hono alone does not pay).
    const table = routes.tableFor(c.req.path, method, c.req.method, method === c.req.method ? c.req.matchedRoutes : undefined);
    if (table === undefined) {
      await next();
      return undefined;
    }
    const answered = answerFetchRequest(core, table, request);
    const answer: Answer = answered instanceof Promise ? await answered : answered;
    if (answer.status !== undefined) return emptyAnswer(answer);
    await next();
    // hono has caught the application's errors into c.res by now: they carry the grant too.
    const response = withAnswer(c.res, answer);
    if (response !== c.res) c.res = response;
    return undefined;
  } as HonoCors;
  // Two parameters: hono takes the marker for a middleware, not for the route's handler.
  middleware.route = (routeOptions) => markRoute((_c: HonoContext, next: () => Promise<void>) => next().then(() => undefined), routeOptions);
  Object.assign(middleware, controlsOf<CorsOptions<Request>>(core));
  middleware.mirror = () => {
    routesOnce.read(honoApp);
    return middleware;
  };
  return middleware;
}

/** The routes of a hono app, asked through hono's own router. */
class HonoRoutes {
  readonly #app: HonoApp;
  /** Each route's table, read once per request (reconfigure() replaces it). */
  readonly #tables: Map<RouterRoute, TableRef>;
  readonly #methods: readonly string[];
  readonly #declared: ReadonlySet<string>;
  readonly #sharedUrls = new SharedUrls(() => [...this.#tables.keys()].map((route) => route.path), 'loose');

  constructor(app: HonoApp, tables: Map<RouterRoute, TableRef>, methods: readonly string[]) {
    this.#app = app;
    this.#tables = tables;
    this.#methods = methods;
    this.#declared = new Set(methods);
  }

  /**
   * The table of the route hono runs for `method` on `path` (HEAD: GET's, as hono runs it); where
   * routes match the path but none has the method, the first of them (rule E: its path's OPTIONS
   * policy decides). `undefined`: no route matches. `matched`: the routes hono matched for this
   * very method and path, read first; where none of them is a route of ours (a route of another
   * method only, or an app mounted in another), hono's router is asked. An OPTIONS request
   * (`requestMethod`) on a URL that routes of several paths match gets the URL's table.
   */
  tableFor(path: string, method: string, requestMethod: string, matched: readonly RouterRoute[] | undefined): PathTable | undefined {
    const table = this.#tableFor(path, method, matched);
    if (table === undefined || requestMethod !== 'OPTIONS') return table;
    // Asks hono's router for each method's route on paths that can share a URL, once a path.
    return this.#sharedUrls.tableOn(table, method, path, this.#methods, (other) => this.#first(other, path));
  }

  #tableFor(path: string, method: string, matched: readonly RouterRoute[] | undefined): PathTable | undefined {
    if (matched !== undefined) {
      for (const route of matched) {
        const ref = this.#tables.get(route);
        if (ref !== undefined) return ref.table;
      }
    }
    const own = this.#first(method === 'HEAD' ? 'GET' : method, path);
    if (own !== undefined) return own;
    for (const other of this.#methods) {
      const table = this.#first(other, path);
      if (table !== undefined) return table;
    }
    return undefined;
  }

  #first(method: string, path: string): PathTable | undefined {
    // A preflight's requested method is the client's to choose, and hono's TrieRouter reads it as
    // a key of a plain object: `__proto__` would write into Object.prototype. A method no route
    // declares runs only hono's routes of every method (`ALL`), so hono's router is asked for those.
    const routed = this.#declared.has(method) ? method : 'ALL';
    for (const [[, route]] of this.#app.router.match(routed, path)[0]) {
      const ref = this.#tables.get(route);
      if (ref !== undefined) return ref.table;
    }
    return undefined;
  }
}

/** Every route of `app` (its handlers, not its middleware) with its table. */
function mirrorHono(core: CorsCore, app: HonoApp): HonoRoutes {
  const markers = markersOf(app.routes);
  // Each handler with its place among the routes, which tells the markers hono runs before it; a
  // sub-app's handler that hono wrapped (its own onError) is told from middleware by what it wraps.
  // A HEAD route never runs: hono answers HEAD with the GET route's answer, body dropped.
  const isRoute = routeEntries(app.routes);
  const handlers = app.routes.flatMap((route, index) => (route.method === 'HEAD' || !isRoute(index) ? [] : [{ route, key: route.path, index }]));
  const everyMethod = everyMethodOf(handlers);
  const methods = new Set<string>();
  const tables = registerRoutes(
    handlers,
    ({ route, index }) => {
      // hono runs HEAD as GET, its GET markers with it.
      const declarations = declarationsOf(route, everyMethod, (method) => markers.of(method === 'HEAD' ? 'GET' : method, route.path, index));
      for (const { method } of declarations) methods.add(method);
      return declarations;
    },
    (declaration) => register(core, declaration),
    ({ route, method, options }) => core.checkRoute([method], route.path, options, `hono route ${method} ${route.path}`),
  );
  // A HEAD route decides nothing, yet its options are checked as any route's.
  app.routes.forEach((route, index) => {
    if (route.method === 'HEAD' && isRoute(index)) {
      core.checkRoute(['HEAD'], route.path, markers.of('HEAD', route.path, index), `hono route HEAD ${route.path}`);
    }
  });
  const outside = markers.outside(app.routes.flatMap((route, index) => (isRoute(index) ? [{ route, index }] : [])));
  if (outside !== undefined) {
    const declared = outside.method === 'ALL' ? 'app.use() or app.all()' : `app.${outside.method.toLowerCase()}()`;
    refuseMarkerOutsideRoute(core.source, `${declared} on ${outside.path}`, "app.get('/internal/report', cors.route(options), handler)");
  }
  // After this, a route declared on the app throws where it is declared: it would have no policy.
  Object.assign(app.router, {
    add: (method: string, path: string) => {
      throw new RouteRegistrationError(
        'CORS_ROUTES_SEALED',
        `${core.source}: a route ${method} ${path}`,
        'the hono app',
        'comes after the first request read the routes',
        'declare every route before the app serves',
      );
    },
  });
  return new HonoRoutes(app, tables, [...methods]);
}

/** One method of a route, with the options of the cors.route() marker that hono runs first for it, if any. */
interface HonoDeclaration extends MethodDeclaration<RouterRoute> {
  readonly options: CorsOptions<Request> | undefined;
}

/**
 * The methods an app.all() route is declared with: hono runs it for any method, and a method that
 * no route names is decided as one its path does not declare, never listed in a preflight. So the
 * default list, OPTIONS (it answers a plain OPTIONS itself), and each method another route names,
 * which would else be decided by that route where hono runs this one first.
 */
function everyMethodOf(handlers: readonly { route: RouterRoute }[]): string[] {
  const methods = new Set([...GLOBAL_METHODS, 'OPTIONS']);
  for (const { route } of handlers) if (route.method !== 'ALL') methods.add(route.method);
  return [...methods];
}

/** A route's methods (app.all(): `everyMethod`), each with the options of its marker for that method. */
function declarationsOf(
  route: RouterRoute,
  everyMethod: readonly string[],
  optionsOf: (method: string) => CorsOptions<Request> | undefined,
): HonoDeclaration[] {
  const ofEvery = route.method === 'ALL';
  return (ofEvery ? everyMethod : [route.method]).map((method) => ({ route, method, options: optionsOf(method), everyMethod: ofEvery }));
}

function register(core: CorsCore, { route, method, options }: HonoDeclaration): TableRef {
  return core.routeMatchedElsewhere(route.path, [method], route.path, options, `hono route ${method} ${route.path}`);
}

/** A `cors.route()` among hono's entries: where it is declared, and for what. */
interface Marker {
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly options: CorsOptions<Request>;
  /** For a marker on `prefix/*` (`app.use('/api/*', cors.route(x))`, `/*` without a path): the prefix. */
  readonly prefix: string | undefined;
}

/**
 * The `cors.route()` markers of `routes`, and for each route the one hono runs first before its
 * handler (`index`, its place among `routes`; one declared after a handler never runs before it):
 * the first declared on the route's own path for its method or for every method (`app.all()`), or
 * on a `prefix/*` path that holds every URL of the route's (`app.use('/api/*', cors.route(x))`
 * before `app.get('/api/users', h)`), which hono runs before it on each of them. A marker on a path
 * that shares only some URLs with a route's decides none of its URLs. Found in one pass over the
 * routes, and a look at the prefix markers of a route's first segment: searching every route for
 * each took 1.4 s at 10,000 routes.
 */
function markersOf(routes: readonly RouterRoute[]): {
  of(method: string, path: string, index: number): CorsOptions<Request> | undefined;
  outside(handlers: readonly { readonly route: RouterRoute; readonly index: number }[]): Marker | undefined;
} {
  const first = new Map<string, Marker>();
  const markers: Marker[] = [];
  // Prefix markers by their prefix's first segment, which a path they hold begins with too ('' for
  // `/*`, which holds every path): a route is compared with those of its own first segment only.
  const onPrefixes = new Map<string, Marker[]>();
  const prefixed = (segment: string): readonly Marker[] => onPrefixes.get(segment) ?? [];
  routes.forEach((route, index) => {
    const options = targetOf(route.handler)[ROUTE_OPTIONS];
    if (options === undefined) return;
    const marker: Marker = { index, method: route.method, path: route.path, options, prefix: wildcardPrefix(route.path) };
    markers.push(marker);
    if (marker.prefix !== undefined) {
      const segment = marker.prefix === '' ? '' : firstSegment(marker.prefix);
      const some = onPrefixes.get(segment);
      if (some === undefined) onPrefixes.set(segment, [marker]);
      else some.push(marker);
    }
    const key = `${route.method} ${route.path}`;
    if (!first.has(key)) first.set(key, marker);
  });
  const covers = (marker: Marker, method: string, path: string, index: number): boolean =>
    marker.index < index &&
    (marker.method === 'ALL' || marker.method === method) &&
    (marker.prefix === '' || path === marker.prefix || path.startsWith(`${marker.prefix}/`));
  return {
    /** The options of the first marker hono runs for `method` on `path` before the handler at `index`. */
    of(method, path, index) {
      let found: Marker | undefined;
      const consider = (marker: Marker | undefined) => {
        if (marker !== undefined && marker.index < index && (found === undefined || marker.index < found.index)) found = marker;
      };
      consider(first.get(`${method} ${path}`));
      if (method !== 'ALL') consider(first.get(`ALL ${path}`));
      for (const segment of ['', firstSegment(path)]) for (const marker of prefixed(segment)) if (covers(marker, method, path, index)) consider(marker);
      return found?.options;
    },
    /**
     * A marker that decides no handler: on a path no handler of its method has, and holding no
     * handler declared after it (`app.use('/internal/:id', cors.route(x))` beside
     * `app.get('/internal/:name', h)`): hono runs it before routes whose options it can never be.
     */
    outside(handlers) {
      const paths = new Set(handlers.map(({ route }) => route.path));
      const keys = new Set(handlers.map(({ route }) => `${route.method} ${route.path}`));
      const bySegment = new Map<string, (typeof handlers)[number][]>();
      for (const handler of handlers) {
        const segment = firstSegment(handler.route.path);
        const some = bySegment.get(segment);
        if (some === undefined) bySegment.set(segment, [handler]);
        else some.push(handler);
      }
      const placed = (marker: Marker) =>
        (marker.method === 'ALL' ? paths.has(marker.path) : keys.has(`${marker.method} ${marker.path}`) || keys.has(`ALL ${marker.path}`)) ||
        (marker.prefix !== undefined &&
          (marker.prefix === '' ? handlers : (bySegment.get(firstSegment(marker.prefix)) ?? [])).some(({ route, index }) =>
            covers(marker, route.method === 'ALL' ? marker.method : route.method, route.path, index),
          ));
      return markers.find((marker) => !placed(marker));
    },
  };
}

/** A path's first segment as written (`/api/x`: `api`). */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
}

/**
 * The prefix of a `prefix/*` path (`/api/*`: `/api`; `/*`: ''), which hono matches with every URL
 * below it and the prefix itself. A route whose path begins with the same text, parameters and
 * all (`/t/:tenant/items` below `/t/:tenant/*`), has all its URLs there; an optional part makes
 * that no longer so.
 */
function wildcardPrefix(path: string): string | undefined {
  if (!path.endsWith('/*')) return undefined;
  const prefix = path.slice(0, -2);
  return prefix.includes('?') ? undefined : prefix;
}

/**
 * Which of hono's entries are routes: its handlers, not its middleware (hono's own rule, below),
 * and a handler that takes `next` declared right after a cors.route() of its method and path, in
 * one registration (`app.get('/static/*', cors.route(options), serveStatic())`): the marker says
 * that handler is the route its options are for.
 */
function routeEntries(routes: readonly RouterRoute[]): (index: number) => boolean {
  return (index) => {
    const route = routes[index]!;
    const handler = targetOf(route.handler);
    if (handler[ROUTE_OPTIONS] !== undefined) return false;
    if (!isMiddleware(handler)) return true;
    // Of one method: app.use() and app.all() store every method alike (ALL), and there the
    // handler after a marker is middleware of every URL below it (auth, a logger), no route.
    const before = routes[index - 1];
    return (
      route.method !== 'ALL' &&
      before !== undefined &&
      before.method === route.method &&
      before.path === route.path &&
      targetOf(before.handler)[ROUTE_OPTIONS] !== undefined
    );
  };
}

/** hono's own rule (hono/utils/handler): a handler that takes `next` is a middleware. */
function isMiddleware(handler: RouterRoute['handler']): boolean {
  return handler.length > 1;
}

/** A sub-app's handler that hono wrapped (app.route() with its own error handler) is read through the wrapper. */
function targetOf(handler: RouterRoute['handler']): RouterRoute['handler'] {
  const inner = handler.__COMPOSED_HANDLER;
  return typeof inner === 'function' ? targetOf(inner as RouterRoute['handler']) : handler;
}
