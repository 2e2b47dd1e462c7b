/**
 * The application's own find-my-way router, asked for the engine's lookups instead of a second
 * tree of the same routes: a copy of it would double the application's memory and start-up for
 * large route tables (bench --startup). Loaded by
 * cors-core.ts at the first router that large: most applications never have one.
 */
import { buildPathTable, type PathTable } from './path-table.js';
import type { CorsPolicy } from './policy.js';
import { findMyWayKey, type MirrorableRouter } from './route-tree.js';

/** What a lookup reads of the router: find-my-way's own `find()` and `findRoute()`, and its list of routes. */
export interface FindingRouter extends MirrorableRouter {
  readonly routes: readonly {
    readonly method: string;
    readonly path: string;
    readonly handler: unknown;
    readonly store?: unknown;
    readonly opts?: { readonly constraints?: Readonly<Record<string, unknown>> };
  }[];
  find(method: string, path: string): { readonly handler: unknown; readonly store: unknown } | null;
  findRoute(method: string, path: string): { readonly handler: unknown; readonly store: unknown } | null;
}

type FoundRoute = { readonly handler: unknown; readonly store: unknown };

/**
 * The covered paths of a router the application owns, each path's table found through the route
 * the router matches: by its handler, or, where the application gives several routes one handler,
 * by its store. `undefined` from `share()` when neither tells the routes apart, or when a route
 * has constraints (find-my-way matches those per request): the caller then copies the routes.
 *
 * A path's table is built at its first request, not at mirror(): at 100,000 routes, grouping every
 * path's methods and building every table cost about a third of a second of start-up (bench
 * --startup). Building one can no longer fail by then: the policy is compiled and checked at
 * mirror(), and the router accepted every path.
 */
export class SharedRouter {
  readonly #router: FindingRouter;
  /** The router's routes as mirror() found them; the indices below point into it. */
  readonly #routes: FindingRouter['routes'];
  readonly #policy: CorsPolicy;
  /** The methods the router has routes of, GET first: a path is covered when any of them matches it. */
  readonly #methods: readonly string[];
  readonly #hasMethod: ReadonlySet<string>;
  readonly #byStore: boolean;
  /** Each key's first route (where its path is found when its table is first needed), and its later ones. */
  readonly #firstRoute: ReadonlyMap<unknown, number>;
  readonly #laterRoutes: ReadonlyMap<unknown, readonly number[]>;
  /** The tables built so far, by key: every key of a path gets its one table. */
  readonly #tables = new Map<unknown, PathTable>();

  private constructor(router: FindingRouter, policy: CorsPolicy, methods: readonly string[], byStore: boolean, routesByKey: RoutesByKey) {
    this.#router = router;
    this.#routes = router.routes;
    this.#policy = policy;
    this.#methods = methods;
    this.#hasMethod = new Set(methods);
    this.#byStore = byStore;
    this.#firstRoute = routesByKey.first;
    this.#laterRoutes = routesByKey.later;
  }

  static share(router: FindingRouter, policy: CorsPolicy): SharedRouter | undefined {
    if (typeof router.findRoute !== 'function') return undefined;
    const routes = router.routes;
    // One pass over the routes, most often the only one: on a router of 100,000 routes, reading
    // each route the first time costs more than the work done with it.
    const methods = new Set(['GET']);
    const byHandler = new RoutesByKey();
    let handlersTellApart = true;
    for (let index = 0; index < routes.length; index++) {
      const route = routes[index]!;
      const constraints = route.opts?.constraints;
      if (constraints !== undefined && Object.keys(constraints).length > 0) return undefined;
      if (!methods.has(route.method)) methods.add(route.method);
      if (handlersTellApart) handlersTellApart = byHandler.add(routes, index, route.handler);
    }
    if (handlersTellApart) return new SharedRouter(router, policy, [...methods], false, byHandler);
    const byStore = new RoutesByKey();
    for (let index = 0; index < routes.length; index++) if (!byStore.add(routes, index, routes[index]!.store)) return undefined;
    return new SharedRouter(router, policy, [...methods], true, byStore);
  }

  /**
   * The table of `url`'s path: found by the route the router matches for `method` (the request's
   * own, usually declared), else for any method the router has; `undefined` off its routes.
   */
  lookup(url: string, method: string | undefined): PathTable | undefined {
    const query = url.indexOf('?');
    // The application's query-string parser is not asked: the query never decides a path.
    const path = query === -1 ? url : url.slice(0, query);
    const router = this.#router;
    // Only methods the router has: find-my-way's trees are a plain object, keyed by method.
    let found = method !== undefined && this.#hasMethod.has(method) ? router.find(method, path) : null;
    if (found === null) {
      for (const other of this.#methods) {
        if (other === method) continue;
        found = router.find(other, path);
        if (found !== null) break;
      }
      if (found === null) return undefined;
    }
    const key = this.#keyOf(found);
    return this.#tables.get(key) ?? this.#buildTable(key);
  }

  #keyOf(found: FoundRoute): unknown {
    return this.#byStore ? found.store : found.handler;
  }

  /**
   * The table of the path of `key`'s routes, built at its first request: the methods the router
   * has on that path (find-my-way's own notion of one path, as the copy's tree merges them), in the
   * order they were registered. `undefined` for a route added after mirror().
   */
  #buildTable(key: unknown): PathTable | undefined {
    const first = this.#firstRoute.get(key);
    if (first === undefined) return undefined;
    const path = this.#routes[first]!.path;
    const onPath: { index: number; method: string; key: unknown }[] = [];
    for (const method of this.#methods) {
      const route = this.#router.findRoute(method, path);
      if (route === null) continue;
      const routeKey = this.#keyOf(route);
      const index = this.#indexOf(routeKey, method);
      if (index !== undefined) onPath.push({ index, method, key: routeKey });
    }
    // The route found is on the path: were findRoute() to miss it, the path keeps that route's method.
    if (!onPath.some((route) => route.key === key)) onPath.push({ index: first, method: this.#routes[first]!.method, key });
    onPath.sort((a, b) => a.index - b.index);
    const table = buildPathTable(
      this.#routes[onPath[0]!.index]!.path,
      this.#policy,
      onPath.map((route) => route.method),
    );
    for (const route of onPath) this.#tables.set(route.key, table);
    return table;
  }

  /** The index of `key`'s route of `method`, among those mirror() found. */
  #indexOf(key: unknown, method: string): number | undefined {
    const first = this.#firstRoute.get(key);
    if (first === undefined || this.#routes[first]!.method === method) return first;
    return this.#laterRoutes.get(key)?.find((index) => this.#routes[index]!.method === method);
  }
}

/** The routes under each key (a handler or a store), by index into the router's routes. */
class RoutesByKey {
  /** Each key's first route. */
  readonly first = new Map<unknown, number>();
  /** The later routes of keys that several routes share (one handler for a path's methods). */
  readonly later = new Map<unknown, number[]>();

  /** Files route `index` under `key`; `false` when keys do not tell the paths apart: `key` missing, or given to a route of another path. */
  add(routes: FindingRouter['routes'], index: number, key: unknown): boolean {
    if (key === undefined || key === null) return false;
    const known = this.first.get(key);
    if (known === undefined) {
      this.first.set(key, index);
      return true;
    }
    if (findMyWayKey(routes[known]!.path) !== findMyWayKey(routes[index]!.path)) return false;
    const others = this.later.get(key);
    if (others === undefined) this.later.set(key, [index]);
    else others.push(index);
    return true;
  }
}
