/** The host's route table: find-my-way with the compiled route as each store, and what 404s and 405s need. */
import Router from 'find-my-way';

import type { HttpMethod } from './http-methods.js';
import type { CompiledRoute, RouteDefinition } from './routes.js';

type V1 = Router.HTTPVersion.V1;

/** What each route keeps as its find-my-way `store`: its compiled handler, and what duplicates and 405s need. */
export interface RouteEntry {
  readonly run: CompiledRoute;
  readonly definition: RouteDefinition;
  /** Registration rank, the order of `Allow` (a GET route answers HEAD too, at its rank). */
  readonly rank: number;
}

/**
 * find()'s answer in this table, a narrowing of find-my-way's own type (so the compiler checks the
 * one cast below against it): every store is a RouteEntry, and the query parser is the identity,
 * so `searchParams` is the raw query string, without its `?`.
 */
export type RouteMatch = Omit<Router.FindResult<V1>, 'store'> & { readonly store: RouteEntry; readonly searchParams: string };

/** Routes never reach find-my-way's handler: the store carries the compiled route. */
const NO_HANDLER = (): void => {};

/** find-my-way, typed as it is used here: every route's store is its RouteEntry. */
export class RouteTable {
  // The query string is handed on unparsed: RequestContext parses it only if a handler reads it.
  readonly #router = Router({ querystringParser: (query) => query });
  #routes = 0;

  add(method: HttpMethod, path: string, entry: RouteEntry): void {
    this.#router.on(method, path, NO_HANDLER, entry);
    this.#routes++;
  }

  /** The entry registered for `method` on `path` (matched as a pattern, not as a URL). */
  entryAt(method: HttpMethod, path: string): RouteEntry | undefined {
    return this.#router.findRoute(method, path)?.store;
  }

  /** Compiles the lookups once every route is added. */
  compile(): void {
    // Compiling takes time per route and overflows the stack near 100,000 routes: past a
    // thousand, the tree is walked uncompiled, as find-my-way does without compile().
    if (this.#routes <= 1000) this.#router.compile();
  }

  /** find(), and for HEAD the GET route where no HEAD route matches: the route the router runs. */
  match(method: string, url: string): RouteMatch | null {
    return this.find(method, url) ?? (method === 'HEAD' ? this.find('GET', url) : null);
  }

  /**
   * The route `url` matches under `method`: find-my-way's own answer, nothing allocated on top.
   * Any method string may be asked; one without routes finds nothing.
   */
  find(method: string | undefined, url: string): RouteMatch | null {
    return this.#router.find(method as HttpMethod, url) as RouteMatch | null;
  }
}
