/**
 * Which route fastify runs for an `OPTIONS` request's path, asked of fastify's own router: the
 * fastify plugin (fastify.ts) keeps each covered route's table in the route's config, and fastify
 * delivers `OPTIONS` on a path without an `OPTIONS` route of the application's to the plugin's
 * `OPTIONS *` route, so the path's own route has to be found. Finding it in fastify's router
 * matches as fastify will, and keeps no second tree of the routes (about 2.5 KB a route). Decides
 * nothing: it only finds.
 */
import type { IncomingMessage } from 'node:http';

import type FindMyWay from 'find-my-way';

import type { TableRef } from '../core/cors-core.js';
import type { PathTable } from '../core/path-table.js';
import { SharedUrls } from '../core/route-overlaps.js';
import type { PathMatching } from '../core/path-matching.js';

/**
 * What the plugin decided for a route, kept in the route's config for its onRequest hook: one key,
 * since fastify copies each route's config with its url and method, and a copy with more keys
 * than that gets a property array of its own (about 60 bytes a route, GET and HEAD each).
 */
export const ROUTE = Symbol('@lib/cors/fastify route');
export const LEFT_OUT = 'left out';
export const CATCH_ALL = 'catch-all';
/** A covered route's entry is the engine's reference to its table (reconfigure() replaces the table). */
export type RouteEntry = TableRef | typeof LEFT_OUT | typeof CATCH_ALL;

/** What the plugin reads of fastify's router: find-my-way's find(), whose result's store is fastify's context of the route. */
interface FastifyRouter {
  find(method: string, path: string, derivedConstraints?: unknown): { readonly store: unknown } | null;
  readonly constrainer?: { deriveSyncConstraints?(req: IncomingMessage, ctx: undefined): unknown };
}

/** The part of find-my-way's class that FastifyRoutes.of() wraps for a moment. */
interface RouterPrototype {
  find: (...args: unknown[]) => unknown;
}

/** A loaded find-my-way: its factory, and the prototype of the routers it makes. */
interface LoadedFindMyWay {
  readonly createRouter: typeof FindMyWay;
  readonly prototype: RouterPrototype;
}

/** A loaded find-my-way's main module, by its path in require.cache. */
const FIND_MY_WAY_MAIN = /[\\/]find-my-way[\\/]index\.js$/;

/** Constraints fastify derives from headers a preflight carries too (the Host): any other is matched by path alone. */
const PREFLIGHT_CONSTRAINTS = new Set(['host']);

/** What fastify's router found for a method: no route of the application's (none, or only the plugin's `OPTIONS *`). */
const NO_ROUTE = Symbol('no route');

const unusedHandler = (): void => {};

/** The covered routes of one registration of the plugin, as fastify's router finds them. */
export class FastifyRoutes {
  readonly #router: FastifyRouter;
  /** The find-my-way fastify's router was made by: the by-path routes match as fastify's own do, and no other copy is loaded. */
  readonly #createRouter: typeof FindMyWay;
  readonly #matching: PathMatching;
  /** The methods of the covered routes, in the order first declared: the other routes of a path are looked for through them. */
  readonly #methods: string[] = [];
  /**
   * The covered routes with a constraint no preflight carries (a version, a custom one read from a
   * header), by path alone: fastify's router would pass over them for a preflight, and run them
   * for the actual request. Made at the first such route.
   */
  #byPathAlone: FindMyWay.Instance<FindMyWay.HTTPVersion.V1> | undefined;
  /**
   * The `prefix/` twins of prefixed plugins' `'/'` routes, each with the entry of the `prefix`
   * route whose config it carries (`base`) and its own (`twin`). Made at the first.
   */
  #twins: FindMyWay.Instance<FindMyWay.HTTPVersion.V1> | undefined;
  /** The entries that twins carry: only a route found with one of these can be a twin. */
  readonly #twinBases = new Set<TableRef>();
  /** The covered routes' paths, as fastify's router files them. */
  readonly #urls: string[] = [];
  readonly #sharedUrls: SharedUrls;

  private constructor(router: FastifyRouter, createRouter: typeof FindMyWay, matching: PathMatching) {
    this.#router = router;
    this.#createRouter = createRouter;
    this.#matching = matching;
    this.#sharedUrls = new SharedUrls(() => this.#urls, matching);
  }

  /**
   * The routes of `fastify`, found through its own router (a find-my-way instance). fastify reaches
   * it only through findRoute(), which keeps the matched route to itself; so for one findRoute()
   * call, find() of the find-my-way fastify's not-found router is made by, and of every other
   * find-my-way loaded (an application may hold several copies, and fastify uses its own), is
   * wrapped to see which router it runs on, and put back. `undefined` where none is fastify's:
   * the plugin then mirrors the routes into the engine's own tree.
   */
  static of(fastify: { findRoute(options: { method: string; url: string }): unknown }, matching: PathMatching): FastifyRoutes | undefined {
    const wrapped: { prototype: RouterPrototype; find: RouterPrototype['find'] }[] = [];
    // The router fastify's findRoute() ran on, and the find-my-way that made it.
    let seen: { router: FastifyRouter; madeBy: LoadedFindMyWay } | undefined;
    try {
      for (const loaded of findMyWaysOf(fastify)) {
        const { prototype } = loaded;
        const find = prototype.find;
        try {
          prototype.find = function findShowingRouter(this: FastifyRouter, ...args: unknown[]) {
            seen ??= { router: this, madeBy: loaded };
            return find.apply(this, args);
          };
        } catch {
          // A prototype that cannot be changed (frozen) is none that fastify's router could be seen through.
          continue;
        }
        wrapped.push({ prototype, find });
      }
      fastify.findRoute({ method: 'OPTIONS', url: '/' });
    } catch {
      seen = undefined;
    } finally {
      for (const { prototype, find } of wrapped) prototype.find = find;
    }
    return typeof seen?.router.find === 'function' ? new FastifyRoutes(seen.router, seen.madeBy.createRouter, matching) : undefined;
  }

  /** Takes a covered route's methods into account, and files it by path if fastify's router would pass over it for a preflight. */
  add(methods: readonly string[], url: string, constraints: Readonly<Record<string, unknown>> | undefined, ref: TableRef): void {
    for (const method of methods) if (!this.#methods.includes(method)) this.#methods.push(method);
    this.#urls.push(url);
    if (constraints === undefined || Object.keys(constraints).every((name) => PREFLIGHT_CONSTRAINTS.has(name))) return;
    // The same path and method under other constraints is the same table (the engine refuses two policies for it).
    this.#byPathAlone = this.#file(this.#byPathAlone, methods, url, ref);
  }

  /**
   * The `prefix/` twin of a prefixed plugin's `'/'` route, which fastify serves with the `prefix`
   * route's config, so its entry (`base`): filed under its own path (`twin`, that route's methods
   * alone), and told apart from the `prefix` route by a router of the twins, matching as fastify's.
   */
  addTwin(methods: readonly string[], url: string, base: TableRef, twin: TableRef): void {
    this.#urls.push(url);
    this.#twinBases.add(base);
    // fastify serves HEAD beside a GET route, the twin's too.
    const served = methods.includes('GET') && !methods.includes('HEAD') ? [...methods, 'HEAD'] : methods;
    this.#twins = this.#file(this.#twins, served, url, { base, twin });
  }

  /**
   * `url` filed for each of `methods` (once: a method already filed there keeps its store) in one
   * of the plugin's own routers, made at its first route, matching as fastify's: fastify accepted
   * the path, with its own allowUnsafeRegex; the query string is never needed.
   */
  #file(
    router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1> | undefined,
    methods: readonly string[],
    url: string,
    store: unknown,
  ): FindMyWay.Instance<FindMyWay.HTTPVersion.V1> {
    const filed = router ?? this.#createRouter({ ...this.#matching, allowUnsafeRegex: true, querystringParser: () => ({}) });
    for (const method of methods) if (!filed.hasRoute(method as FindMyWay.HTTPMethod, url)) filed.on(method as FindMyWay.HTTPMethod, url, unusedHandler, store);
    return filed;
  }

  /**
   * The table of `url`'s path: that of the route fastify runs for `method` (rule E decides a
   * preflight by the policy of the method it names), or none where that route is left out. Where
   * the path has no route for `method` (or none is given), that of another covered route of the
   * path: the path's methods share their tables. With `raw`, routes constrained by host (or by any
   * constraint fastify derives from the request) are told apart as fastify tells them. Asked for
   * OPTIONS requests (and explain()), so on a URL that routes of several paths match it is the
   * URL's table (optionsTableOnUrl()); `method` is then a preflight's requested one, else none.
   */
  tableOf(url: string, method: string | undefined, raw: IncomingMessage | undefined): PathTable | undefined {
    const query = url.indexOf('?');
    // fastify's router would parse the query string, which nothing here reads.
    const path = query === -1 ? url : url.slice(0, query);
    const derived = raw === undefined ? undefined : this.#router.constrainer?.deriveSyncConstraints?.(raw, undefined);
    const table = this.#tableOf(path, method, derived);
    if (table === undefined) return undefined;
    // Asks fastify's router for each method's route on paths that can share a URL; kept by path
    // where fastify derives no constraint from the request.
    const tableOfMethod = (other: string) => this.#tableOfMethod(other, path, derived);
    return this.#sharedUrls.tableOn(table, method ?? 'OPTIONS', path, this.#methods, tableOfMethod, derived === undefined);
  }

  #tableOf(path: string, method: string | undefined, derived: unknown): PathTable | undefined {
    if (method !== undefined) {
      const byPath = this.#byPathAlone?.find(method as FindMyWay.HTTPMethod, path);
      if (byPath !== null && byPath !== undefined) return (byPath.store as TableRef).table;
      const entry = this.#entryFor(method, path, derived);
      if (entry !== NO_ROUTE) return typeof entry === 'object' ? entry.table : undefined;
    }
    for (const other of this.#methods) {
      if (other === method) continue;
      const entry = this.#entryFor(other, path, derived);
      if (typeof entry === 'object') return entry.table;
    }
    if (this.#byPathAlone === undefined) return undefined;
    for (const other of this.#methods) {
      // The requested method's route by path was looked for first, above.
      if (other === method) continue;
      const byPath = this.#byPathAlone.find(other as FindMyWay.HTTPMethod, path);
      if (byPath !== null) return (byPath.store as TableRef).table;
    }
    return undefined;
  }

  /** The table of the covered route of `method` on `path` that fastify runs (or that a preflight reaches by path alone). */
  #tableOfMethod(method: string, path: string, derived: unknown): PathTable | undefined {
    const byPath = this.#byPathAlone?.find(method as FindMyWay.HTTPMethod, path);
    const entry = byPath === null || byPath === undefined ? this.#entryFor(method, path, derived) : (byPath.store as TableRef);
    return typeof entry === 'object' ? entry.table : undefined;
  }

  /** The entry of the route fastify runs for `method` on `path` (undefined: a route of no registration of the plugin), or NO_ROUTE. */
  #entryFor(method: string, path: string, derived: unknown): RouteEntry | undefined | typeof NO_ROUTE {
    const store = this.#router.find(method, path, derived)?.store as { readonly config?: Readonly<Record<symbol, unknown>> } | null | undefined;
    // A URL find-my-way cannot read is answered with a route of no store (fastify's 400).
    if (store === null || store === undefined) return NO_ROUTE;
    const entry = store.config?.[ROUTE] as RouteEntry | undefined;
    if (entry === CATCH_ALL) return NO_ROUTE;
    return typeof entry === 'object' && this.#twinBases.has(entry) ? this.#twinOr(entry, method, path) : entry;
  }

  /** The twin's entry where the route fastify found with `entry` is its `prefix/` twin, else `entry`. */
  #twinOr(entry: TableRef, method: string, path: string): TableRef {
    const twin = this.#twins!.find(method as FindMyWay.HTTPMethod, path)?.store as { base: TableRef; twin: TableRef } | undefined;
    return twin?.base === entry ? twin.twin : entry;
  }
}

/**
 * The find-my-way modules that may have made fastify's router, each once: first the one its
 * not-found router was made by, kept on the instance under fastify's `fastify.404` symbol (fastify
 * makes both routers with the find-my-way it requires, so this finds it even where fastify is
 * bundled into one file with it, as server bundles for serverless platforms are), then every one
 * loaded as a module.
 */
function findMyWaysOf(fastify: object): LoadedFindMyWay[] {
  const found: LoadedFindMyWay[] = [];
  const notFound = notFoundRouterOf(fastify);
  const prototype = notFound === undefined ? undefined : (Object.getPrototypeOf(notFound) as Partial<RouterPrototype> | null);
  const createRouter = prototype?.constructor;
  if (typeof prototype?.find === 'function' && typeof createRouter === 'function') {
    found.push({ createRouter: createRouter as typeof FindMyWay, prototype: prototype as RouterPrototype });
  }
  for (const loaded of loadedFindMyWays()) if (!found.some((other) => other.prototype === loaded.prototype)) found.push(loaded);
  return found;
}

/** fastify's not-found router, on `fastify` or the instance it was made from (a plugin's is a child). */
function notFoundRouterOf(fastify: object): object | undefined {
  for (let instance: object | null = fastify; instance !== null; instance = Object.getPrototypeOf(instance)) {
    for (const key of Object.getOwnPropertySymbols(instance)) {
      if (key.description !== 'fastify.404') continue;
      const router = (instance as Record<symbol, { readonly router?: unknown } | undefined>)[key]?.router;
      return typeof router === 'object' && router !== null ? router : undefined;
    }
  }
  return undefined;
}

/** The find-my-way modules loaded in this process, each once. */
function loadedFindMyWays(): LoadedFindMyWay[] {
  const found: LoadedFindMyWay[] = [];
  for (const [path, loaded] of Object.entries(require.cache)) {
    if (!FIND_MY_WAY_MAIN.test(path)) continue;
    const createRouter = loaded?.exports as (typeof FindMyWay & { prototype?: Partial<RouterPrototype> }) | undefined;
    const prototype = createRouter?.prototype;
    if (typeof createRouter !== 'function' || typeof prototype?.find !== 'function') continue;
    if (!found.some((other) => other.prototype === prototype)) found.push({ createRouter, prototype: prototype as RouterPrototype });
  }
  return found;
}
