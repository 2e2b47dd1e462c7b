/** For frameworks that route requests themselves (Express, Koa): the route a request will run, found by the framework's own matcher in its own order, with that route's table. */
import type { CorsCore, TableRef } from '../core/cors-core.js';
import { RouteRegistrationError } from '../core/errors.js';
import type { CorsOptions } from '../core/options.js';
import type { PathTable } from '../core/path-table.js';
import { restrictedTable } from '../core/route-tree.js';
import { KEPT_PATHS, optionsTableOnUrl, type UrlPaths, urlPathsOf } from '../core/route-overlaps.js';

/** Marks the no-op middleware that `cors.route()` returns in Express, Koa and hono, with the route's options. */
export const ROUTE_OPTIONS = Symbol('@lib/cors route options');

/** A handler as the mirrors read it: perhaps a `cors.route()` marker. */
export type MaybeMarked<Req> = ((...args: never[]) => unknown) & { readonly [ROUTE_OPTIONS]?: CorsOptions<Req> };

/** `marker`, carrying a route's `options` for the mirror to find on the route. */
export function markRoute<F extends object, O>(marker: F, options: O): F & { readonly [ROUTE_OPTIONS]: O } {
  return Object.assign(marker, { [ROUTE_OPTIONS]: options });
}

/**
 * Refuses a `cors.route()` the framework runs as middleware, ahead of routes of other paths
 * (`app.use('/internal', cors.route(closed))`): it is no route's, so the routes it runs before
 * would be answered under other options than it gives, more open ones perhaps. `where` names it.
 */
export function refuseMarkerOutsideRoute(source: string, where: string, example: string): never {
  throw new RouteRegistrationError(
    'CORS_MARKER_OUTSIDE_ROUTE',
    `${source}.mirror()`,
    where,
    'runs cors.route() as middleware, outside any route: the routes it runs before would not get its options',
    `put cors.route() in each route it is for (${example}), or give the options to createCors() when they are for every route`,
  );
}

/**
 * An application's routes, read once: at its first request, or earlier through `mirror()`. The
 * core is sealed then: a route declared later could be given no policy.
 */
export class RoutesReadOnce<Routes> {
  /** The routes, once read. */
  current: Routes | undefined;
  readonly #core: CorsCore;
  readonly #read: (core: CorsCore, app: unknown) => Routes;

  constructor(core: CorsCore, read: (core: CorsCore, app: unknown) => Routes) {
    this.#core = core;
    this.#read = read;
  }

  read(app: unknown): Routes {
    const routes = this.#read(this.#core, app);
    this.#core.seal();
    this.current = routes;
    return routes;
  }
}

/** One route of the application, as its framework declared it, with its table. */
export interface FrameworkRoute {
  /** The methods it runs, in upper case (HEAD listed where a GET route serves it); `undefined` for a route of every method (`app.all()`). */
  readonly methods: ReadonlySet<string> | undefined;
  /** Its table, read once per request (reconfigure() replaces it). */
  readonly ref: TableRef;
  /**
   * Where the framework runs its path's routes on this URL for some of the path's methods alone
   * (an exclusive @koa/router leaving a method to its own middleware): those methods, the only
   * ones the URL is answered for on this path (restrictedTable()).
   */
  readonly only?: readonly string[];
}

/** The method sets of routes, one Set per distinct list: 100,000 `GET` routes share one. */
const METHOD_SETS = new Map<string, ReadonlySet<string>>();

/** The Set of `methods` (upper case), shared with every route of the same methods. */
export function methodSet(methods: readonly string[]): ReadonlySet<string> {
  const key = methods.join(',');
  let set = METHOD_SETS.get(key);
  if (set === undefined) {
    set = new Set(methods);
    METHOD_SETS.set(key, set);
  }
  return set;
}

/**
 * Every route whose path matches `pathname`, in the order the framework tries them; matched by
 * the framework's own code (its compiled patterns, case and trailing-slash settings, mounts).
 * `requestMethod`, the request's own, is for a matcher that takes one (@koa/router's match(),
 * whose result the router then reuses): the routes returned are all of the path's, whatever it is.
 * `host` is given where routes are bound to hosts (@koa/router's `host` option), else `undefined`.
 */
export type RouteWalk = (pathname: string, requestMethod: string, host: string | undefined) => readonly FrameworkRoute[];

/** One method of one route, as the route declares it on its path. */
export interface MethodDeclaration<Route> {
  readonly route: Route;
  readonly method: string;
  /** The route serves every method (`app.all()`), this one among them, rather than naming it. */
  readonly everyMethod: boolean;
}

/**
 * Registers the routes of one router (each with the key of its path there, in the framework's
 * order) and returns each route's table: the table of its path. The declarations of a path's
 * routes are weighed together first (`weigh`: policyDeclarations(), or exclusiveDeclarations()
 * for a router that runs one route alone), since one route can run another's method first (a
 * route of every method, a GET route for HEAD); those that stand give the path its policies,
 * method by method (`register`).
 */
export function registerRoutes<Entry extends { readonly route: unknown; readonly key: unknown }, Declaration extends MethodDeclaration<Entry['route']>>(
  routes: readonly Entry[],
  declarationsOf: (entry: Entry) => readonly Declaration[],
  register: (declaration: Declaration) => TableRef,
  check: (declaration: Declaration) => void,
  weigh: (declarations: readonly Declaration[]) => Declaration[] = policyDeclarations,
): Map<Entry['route'], TableRef> {
  const byPath = new Map<unknown, Declaration[]>();
  for (const entry of routes) {
    const declarations = declarationsOf(entry);
    const ofPath = byPath.get(entry.key);
    if (ofPath === undefined) byPath.set(entry.key, [...declarations]);
    else ofPath.push(...declarations);
  }
  const tables = new Map<Entry['route'], TableRef>();
  for (const declarations of byPath.values()) {
    // A path whose routes declare no method yet (`app.route('/a')` alone) serves nothing.
    if (declarations.length === 0) continue;
    const standing = new Set(weigh(declarations));
    for (const declaration of declarations) {
      if (standing.has(declaration)) tables.set(declaration.route, register(declaration));
      // Its route never runs the method, yet its options are checked as any route's.
      else check(declaration);
    }
    // A route that gives its path no method's policy still leads to the path's table.
    const pathTable = tables.get(declarations.find((declaration) => tables.has(declaration.route))!.route)!;
    for (const { route } of declarations) if (!tables.has(route)) tables.set(route, pathTable);
  }
  return tables;
}

/**
 * Which of a path's method declarations, in the order the framework tries its routes, give the
 * path its policy for their method. As everywhere in these entry points, the first route the
 * framework tries for a method is the one taken to answer it:
 * - A route of every method leaves a method to a route of its path declared before it that names
 *   it: `app.get('/a', cors.route(A))` then `app.all('/a', cors.route(B))` gives GET and HEAD to A
 *   and every other method to B.
 * - A GET route serves HEAD too (Express and @koa/router run it for HEAD), so a HEAD route of
 *   another route declared after it leaves HEAD to it: `app.get('/a', cors.route(A))` then
 *   `app.head('/a', cors.route(C))` gives HEAD to A, whose route answers it.
 * Every other declaration stands, and two of one method under different options are refused as
 * the engine refuses them: a route of every method declared first takes the method itself,
 * whether or not it has a cors.route(), so a named route after it under other options is a
 * conflict (whether the request reaches that route depends on next() calls, which cannot be known
 * before the request).
 */
export function policyDeclarations<D extends MethodDeclaration<unknown>>(declarations: readonly D[]): D[] {
  const servesFirst = (earlier: D, later: D) =>
    !earlier.everyMethod &&
    (later.everyMethod
      ? earlier.method === later.method || (later.method === 'HEAD' && earlier.method === 'GET')
      : later.method === 'HEAD' && earlier.method === 'GET' && earlier.route !== later.route);
  return declarations.filter((declaration, index) => {
    for (let before = 0; before < index; before++) if (servesFirst(declarations[before]!, declaration)) return false;
    return true;
  });
}

/**
 * policyDeclarations() for a router that runs one route alone for a request (@koa/router's
 * `exclusive` option): of a path's routes that serve a method (a GET route serves HEAD too), the
 * first or the last declared runs, and its declaration alone gives the path its policy for the
 * method. No next() decides which, so a route of every method and a named route never conflict.
 */
export function exclusiveDeclarations<D extends MethodDeclaration<unknown>>(declarations: readonly D[], runs: 'first' | 'last'): D[] {
  const serves = (declaration: D, method: string) => declaration.method === method || (method === 'HEAD' && declaration.method === 'GET');
  const inOrder = runs === 'first' ? declarations : [...declarations].reverse();
  return declarations.filter((declaration) => inOrder.find((other) => serves(other, declaration.method)) === declaration);
}

/** A path's walk: the routes that match it, and what its OPTIONS answers need. */
interface Walk {
  readonly routes: readonly FrameworkRoute[];
  /** Made at the first OPTIONS request, from the tables then; again after a reconfigure() replaced them (`madeFrom`). */
  url: UrlPaths | undefined;
  madeFrom: PathTable | undefined;
}

/** A framework's routes, asked the way the framework asks them. */
export class FrameworkRoutes {
  readonly #walk: RouteWalk;
  readonly #seen = new Map<string, Walk>();

  constructor(walk: RouteWalk) {
    this.#walk = walk;
  }

  /**
   * The table that decides `method` on `pathname` (docs/CONTRACT.md, rule E): that of the first
   * route that runs the method (its `methods` list HEAD where it serves it), as the framework would;
   * else, where routes match the path but none has the method, the first of them, whose path's
   * OPTIONS policy then decides. `undefined` where no route matches: the path is not covered.
   * `requestMethod` is the request's own method, where `method` is a preflight's requested one;
   * an OPTIONS request on a URL that routes of several paths match gets the URL's table
   * (optionsTableOnUrl()). `host`, where the framework matches hosts too, is part of what the walk
   * is kept under.
   */
  tableFor(pathname: string, method: string, requestMethod = method, host?: string): PathTable | undefined {
    const key = host === undefined ? pathname : `${host} ${pathname}`;
    let walk = this.#seen.get(key);
    if (walk === undefined) {
      walk = { routes: this.#walk(pathname, requestMethod, host), url: undefined, madeFrom: undefined };
      if (this.#seen.size >= KEPT_PATHS) this.#seen.clear();
      this.#seen.set(key, walk);
    }
    let decider = walk.routes.find((route) => route.methods === undefined || route.methods.has(method));
    decider ??= walk.routes[0];
    if (decider === undefined) return undefined;
    const table = tableOf(decider);
    if (requestMethod !== 'OPTIONS') return table;
    // reconfigure() replaces every table: the URL's paths are weighed again under the new policies.
    const current = walk.routes[0]!.ref.table;
    if (walk.madeFrom !== current) {
      walk.url = urlPathsOf(walk.routes.map((route) => [route.methods, tableOf(route)]));
      walk.madeFrom = current;
    }
    return optionsTableOnUrl(table, method, walk.url!);
  }
}

/** The table a route is answered from on the URL walked. */
function tableOf(route: FrameworkRoute): PathTable {
  return route.only === undefined ? route.ref.table : restrictedTable(route.ref.table, route.only);
}

/**
 * The key of a route's path in its router, for a router that compiles paths to RegExps
 * (@koa/router, Express 4): the first RegExp given with the same pattern and flags, which the
 * router matches alike (`/a/:x` and `/a/:y` are one path). Routes of one path share their tables,
 * and no key string is kept a route: `source` is the RegExp's own string, where String(regexp)
 * made one of about 110 bytes a route. One per router: the same pattern in another is another path.
 */
export function samePatterns(): (regexp: RegExp) => RegExp {
  const bySource = new Map<string, RegExp>();
  const byFlagsAndSource = new Map<string, RegExp>();
  return (regexp) => {
    const first = bySource.get(regexp.source);
    if (first === undefined) {
      bySource.set(regexp.source, regexp);
      return regexp;
    }
    if (first.flags === regexp.flags) return first;
    const key = `${regexp.flags}/${regexp.source}`;
    const other = byFlagsAndSource.get(key);
    if (other !== undefined) return other;
    byFlagsAndSource.set(key, regexp);
    return regexp;
  };
}
