/** The covered paths in a find-my-way tree whose stores are the path tables; registration checks, and the sealed lookup. */
import Router from 'find-my-way';

import { describeValue, RouteRegistrationError } from './errors.js';
import { isHttpToken } from './http-grammar.js';
import { sameOptions, type AnyCorsOptions } from './options.js';
import { buildPathTable, GLOBAL_METHODS, type PathTable } from './path-table.js';
import type { CorsPolicy } from './policy.js';

/** How paths are matched; the same names and defaults as find-my-way's own options. */
export interface PathMatching {
  ignoreTrailingSlash?: boolean;
  ignoreDuplicateSlashes?: boolean;
  caseSensitive?: boolean;
  useSemicolonDelimiter?: boolean;
  maxParamLength?: number;
}

/** find-my-way's defaults, filled in so that settings compare equal however they were given. */
const DEFAULT_MATCHING: Required<PathMatching> = {
  ignoreTrailingSlash: false,
  ignoreDuplicateSlashes: false,
  caseSensitive: true,
  useSemicolonDelimiter: false,
  maxParamLength: 100,
};
const MATCHING_FIELDS = Object.keys(DEFAULT_MATCHING) as (keyof PathMatching)[];

interface PathRecord {
  readonly methods: Set<string>;
  readonly policy: CorsPolicy;
  /** The merged options the policy was compiled from, to tell equal registrations from conflicting ones. */
  readonly options: AnyCorsOptions;
  /** Who registered the path first, named when a later registration conflicts. */
  readonly source: string;
}

export type PathLookup = (url: string) => PathTable | undefined;

/**
 * The part of a find-my-way router that `mirror()` reads. find-my-way's own typings omit
 * `routes`, so a router instance is accepted as it is and checked at run time.
 */
export interface MirrorableRouter extends PathMatching {
  readonly routes: readonly { readonly method: string; readonly path: string }[];
}

export type FindMyWayRouter = Router.Instance<Router.HTTPVersion.V1> | Router.Instance<Router.HTTPVersion.V2> | MirrorableRouter;

const NO_SEARCH_PARAMS = Object.freeze({});

/**
 * Up to this many paths, find-my-way's compiled lookup is worth its start-up cost (measured: 1 s
 * for 10,000 paths, a stack overflow at 100,000; bench --startup).
 */
export const COMPILED_LOOKUP_LIMIT = 1000;

/**
 * Whether code may be generated from strings here and now. Asked at seal time, on the first
 * request: Cloudflare's workerd allows it while a worker loads and forbids it while it serves.
 */
function canGenerateCode(): boolean {
  try {
    return new Function('return true')() === true;
  } catch {
    return false;
  }
}
/**
 * Every covered path is one entry of the tree, filed under GET whatever its methods: find-my-way
 * reaches its GET tree through a field of its own, other methods through a dictionary lookup.
 */
const TREE_METHOD = 'GET';
const unusedHandler = (): void => {};

/**
 * The covered paths in a find-my-way tree whose stores are the per-path tables. Each path
 * goes into the tree as it is registered, so a path the tree refuses fails at start-up.
 */
export class RouteTree {
  /** By the table that is the store of the path's node (filled in place as methods are added, frozen at seal). */
  readonly #records = new Map<PathTable, PathRecord>();
  #matching: Required<PathMatching>;
  #router: Router.Instance<Router.HTTPVersion.V1> | undefined;

  constructor(matching: PathMatching = {}) {
    this.#matching = pickMatching(matching);
  }

  /** Matches paths as `matching` says; only possible before the first path is added. */
  adoptMatching(matching: PathMatching, source: string): void {
    const wanted = pickMatching(matching);
    if (this.#router !== undefined && MATCHING_FIELDS.some((field) => wanted[field] !== this.#matching[field])) {
      throw new RouteRegistrationError(
        'CORS_MATCHING_CONFLICT',
        source,
        'the mirrored router',
        `matches paths with ${describeMatching(wanted)}, which differs from the ${describeMatching(this.#matching)} the routes already registered use`,
        'mirror the router before calling route(), or give createCors() the same settings',
      );
    }
    this.#matching = wanted;
  }

  /** Covers `path` for `methods`; returns the path's table (one object per path, completed in place as methods are added). */
  add(methods: readonly string[], path: string, options: AnyCorsOptions, policy: CorsPolicy, source: string): PathTable {
    if (methods.length === 0)
      throw new RouteRegistrationError(
        'CORS_ROUTE_INVALID_METHOD',
        source,
        path,
        'is given no method',
        'give one method or an array of them, e.g. ["GET", "POST"]',
      );
    for (const method of methods) {
      if (typeof method !== 'string' || !isHttpToken(method)) {
        throw new RouteRegistrationError(
          'CORS_ROUTE_INVALID_METHOD',
          source,
          path,
          `is given ${describeValue(method)}, which is not an HTTP method`,
          'use a method name such as "GET"',
        );
      }
      if (method !== method.toUpperCase()) {
        throw new RouteRegistrationError(
          'CORS_ROUTE_INVALID_METHOD',
          source,
          path,
          `is given the method ${JSON.stringify(method)}, not in upper case, and browsers compare methods case-sensitively`,
          `write ${JSON.stringify(method.toUpperCase())}`,
        );
      }
    }
    const found = this.#find(path);
    if (found === undefined) {
      const record: PathRecord = { methods: new Set(methods), policy, options, source };
      const created = buildPathTable(path, policy, methods);
      try {
        this.#tree().on(TREE_METHOD, path, unusedHandler, created);
      } catch (error) {
        throw new RouteRegistrationError(
          'CORS_ROUTE_INVALID_PATH',
          source,
          path,
          `is refused by the route tree (${(error as Error).message})`,
          'write it in find-my-way syntax, starting with "/", e.g. "/users/:id"',
        );
      }
      this.#records.set(created, record);
      return created;
    }
    const [table, existing] = found;
    if (existing.policy !== policy && !sameOptions(existing.options, options)) {
      const repeated = methods.filter((method) => existing.methods.has(method));
      const [is, it] = repeated.length === 1 ? ['is', 'it'] : ['are', 'them'];
      throw new RouteRegistrationError(
        'CORS_ROUTE_CONFLICT',
        source,
        path,
        `has other CORS options than ${existing.source} gave it, and a browser caches one CORS answer per URL`,
        repeated.length > 0
          ? `${repeated.join(', ')} ${is} already covered there: register ${it} once, with the options you mean`
          : `give every route of ${path} the same CORS options, e.g. register them together: route(['GET', 'POST'], ${JSON.stringify(path)}, options)`,
      );
    }
    for (const method of methods) existing.methods.add(method);
    Object.assign(table, buildPathTable(table.route, existing.policy, existing.methods));
    return table;
  }

  /** An already registered path, under any spelling of it ('/a/:x' and '/a/:y' are one route). */
  #find(path: string): [PathTable, PathRecord] | undefined {
    if (this.#router === undefined || typeof path !== 'string') return undefined;
    // findRoute() takes the path as on() stored it, after on()'s own clean-ups.
    let stored = path;
    if (this.#matching.ignoreDuplicateSlashes) stored = stored.replace(/\/\/+/g, '/');
    if (this.#matching.ignoreTrailingSlash && stored.length > 1 && stored.endsWith('/')) stored = stored.slice(0, -1);
    const table = this.#router.findRoute(TREE_METHOD, stored)?.store as PathTable | undefined;
    if (table === undefined) return undefined;
    const record = this.#records.get(table);
    return record === undefined ? undefined : [table, record];
  }

  /**
   * Freezes the tables and returns the lookup. With no route at all, every path is covered by
   * one table (the drop-in for a global CORS middleware).
   */
  seal(globalPolicy: CorsPolicy): PathLookup {
    const router = this.#router;
    if (router === undefined) {
      // Methods then come from allowedMethods, unless that is '*' or left out.
      const methods = globalPolicy.allowedMethods === undefined || globalPolicy.allowedMethods.includes('*') ? GLOBAL_METHODS : globalPolicy.allowedMethods;
      const table = Object.freeze(buildPathTable('*', globalPolicy, methods));
      return () => table;
    }
    for (const table of this.#records.keys()) Object.freeze(table);
    // Compiled lookups are generated code (new Function), which Cloudflare's workerd forbids while
    // serving, and compiling costs about 0.1 ms a path (and overflows the stack near 100,000):
    // past COMPILED_LOOKUP_LIMIT paths, or where code cannot be generated, the tree is walked as
    // find-my-way walks it uncompiled.
    if (this.#records.size <= COMPILED_LOOKUP_LIMIT && canGenerateCode()) router.compile();
    // Hot path: one tree walk; the store is the table.
    return (url) => {
      const found = router.find(TREE_METHOD, url);
      return found === null ? undefined : (found.store as PathTable);
    };
  }

  #tree(): Router.Instance<Router.HTTPVersion.V1> {
    // The query string is never needed: a constant parser saves find() from parsing it.
    this.#router ??= Router({ ...this.#matching, querystringParser: () => NO_SEARCH_PARAMS });
    return this.#router;
  }
}

function pickMatching(matching: PathMatching): Required<PathMatching> {
  const picked: Record<string, unknown> = { ...DEFAULT_MATCHING };
  for (const field of MATCHING_FIELDS) {
    if (matching[field] !== undefined) picked[field] = matching[field];
  }
  return picked as Required<PathMatching>;
}

function describeMatching(matching: PathMatching): string {
  return `{ ${MATCHING_FIELDS.map((field) => `${field}: ${String(matching[field])}`).join(', ')} }`;
}
