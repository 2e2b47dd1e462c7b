/**
 * The application's own find-my-way router, asked for the engine's lookups instead of a second
 * tree of the same routes: at 100,000 routes a find-my-way tree holds about 2.3 KB a route, and a
 * copy of it would double the application's memory and start-up (bench --startup).
 */
import { buildPathTable, type PathTable } from './path-table.js';
import type { CorsPolicy } from './policy.js';
import type { MirrorableRouter } from './route-tree.js';

/** What a lookup reads of the router: find-my-way's own `find()` and its list of routes. */
export interface FindingRouter extends MirrorableRouter {
  readonly routes: readonly {
    readonly method: string;
    readonly path: string;
    readonly handler: unknown;
    readonly store?: unknown;
    readonly opts?: { readonly constraints?: Readonly<Record<string, unknown>> };
  }[];
  find(method: string, path: string): { readonly handler: unknown; readonly store: unknown } | null;
}

/**
 * Up to this many routes the engine copies a mirrored router into its own tree, compiled
 * (route-tree.ts): fewer instructions per request than the application's uncompiled router, for a
 * few megabytes. Past it, the tree would not be compiled anyway, and the copy is what costs.
 */
export const SHARED_ROUTER_ABOVE = 1000;

/** Tells two spellings of one route apart from two routes: find-my-way files `/a/:x` and `/a/:y` under one node. */
const PARAMETER_NAME = /:[^/:(.-]+/g;

/**
 * The covered paths of a router the application owns, each path's table found through the route
 * the router matches: by its handler, or, where the application gives several routes one handler,
 * by its store. `undefined` from `share()` when neither tells the routes apart, or when a route
 * has constraints (find-my-way matches those per request): the caller then copies the routes.
 */
export class SharedRouter {
  readonly #router: FindingRouter;
  /** The methods the router has routes of, GET first: a path is covered when any of them matches it. */
  readonly #methods: readonly string[];
  readonly #hasMethod: ReadonlySet<string>;
  readonly #tables: Map<unknown, PathTable>;
  readonly #byStore: boolean;

  private constructor(router: FindingRouter, methods: readonly string[], tables: Map<unknown, PathTable>, byStore: boolean) {
    this.#router = router;
    this.#methods = methods;
    this.#hasMethod = new Set(methods);
    this.#tables = tables;
    this.#byStore = byStore;
  }

  static share(router: FindingRouter, policy: CorsPolicy): SharedRouter | undefined {
    const routes = router.routes;
    // Each route's path, as one key for all its spellings, and the methods of each path.
    const keys: string[] = new Array(routes.length);
    const paths = new Map<string, { path: string; methods: string[]; table: PathTable | undefined }>();
    for (let index = 0; index < routes.length; index++) {
      const route = routes[index]!;
      const constraints = route.opts?.constraints;
      if (constraints !== undefined && Object.keys(constraints).length > 0) return undefined;
      const key = route.path.includes(':') ? route.path.replace(PARAMETER_NAME, ':') : route.path;
      keys[index] = key;
      const entry = paths.get(key);
      if (entry === undefined) paths.set(key, { path: route.path, methods: [route.method], table: undefined });
      else if (!entry.methods.includes(route.method)) entry.methods.push(route.method);
    }
    const tableOf = (index: number): PathTable => {
      const entry = paths.get(keys[index]!)!;
      entry.table ??= buildPathTable(entry.path, policy, entry.methods);
      return entry.table;
    };
    /** Each route's table by `by(route)`; `undefined` when two routes of different paths give one key. */
    const tablesBy = (by: (route: FindingRouter['routes'][number]) => unknown): Map<unknown, PathTable> | undefined => {
      const found = new Map<unknown, PathTable>();
      for (let index = 0; index < routes.length; index++) {
        const key = by(routes[index]!);
        const table = tableOf(index);
        if (key === undefined || key === null) return undefined;
        const known = found.get(key);
        if (known === undefined) found.set(key, table);
        else if (known !== table) return undefined;
      }
      return found;
    };
    const methods = [...new Set(['GET', ...routes.map((route) => route.method)])];
    const byHandler = tablesBy((route) => route.handler);
    if (byHandler !== undefined) return new SharedRouter(router, methods, byHandler, false);
    const byStore = tablesBy((route) => route.store);
    return byStore === undefined ? undefined : new SharedRouter(router, methods, byStore, true);
  }

  /** How many paths, for the tree's statistics. */
  get size(): number {
    return new Set(this.#tables.values()).size;
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
    return this.#tables.get(this.#byStore ? found.store : found.handler);
  }
}
