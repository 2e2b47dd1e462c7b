import Router from 'find-my-way';

import { CorsOptionsError, describeValue } from './errors.js';
import { isToken } from './http-grammar.js';
import { sameOptions, type CorsOptions } from './options.js';
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

const MATCHING_FIELDS = ['ignoreTrailingSlash', 'ignoreDuplicateSlashes', 'caseSensitive', 'useSemicolonDelimiter', 'maxParamLength'] as const;

interface PathRecord {
  readonly methods: Set<string>;
  readonly policy: CorsPolicy;
  /** The merged options the policy was compiled from, to tell equal registrations from conflicting ones. */
  readonly options: CorsOptions;
  /** Who registered the path first, named when a later registration conflicts. */
  readonly source: string;
  /** The store of the path's node: filled in place when methods are added, frozen at seal. */
  readonly table: PathTable;
}

export type PathLookup = (url: string) => PathTable | undefined;

const NO_SEARCH_PARAMS = Object.freeze({});
const unusedHandler = (): void => {};

/**
 * The covered paths in a find-my-way tree whose stores are the per-path tables. Each path
 * goes into the tree as it is registered, so a path the tree refuses fails at start-up.
 */
export class RouteTree {
  readonly #records = new Map<string, PathRecord>();
  #matching: PathMatching;
  #router: Router.Instance<Router.HTTPVersion.V1> | undefined;

  constructor(matching: PathMatching = {}) {
    this.#matching = pickMatching(matching);
  }

  /** Matches paths as `matching` says; only possible before the first path is added. */
  adoptMatching(matching: PathMatching, source: string): void {
    const wanted = pickMatching(matching);
    if (this.#router !== undefined && MATCHING_FIELDS.some((field) => wanted[field] !== this.#matching[field])) {
      throw new CorsOptionsError(source, '(path matching)', describeMatching(wanted), `differs from the ${describeMatching(this.#matching)} the routes already registered use`, 'mirror the router before calling route(), or give createCors() the same settings');
    }
    this.#matching = wanted;
  }

  add(methods: readonly string[], path: string, options: CorsOptions, policy: CorsPolicy, source: string): void {
    for (const method of methods) {
      if (typeof method !== 'string' || !isToken(method)) {
        throw new CorsOptionsError(source, '(method)', method, 'is not an HTTP method', 'use a method name such as "GET"');
      }
    }
    const existing = this.#records.get(path);
    if (existing === undefined) {
      const record = { methods: new Set(methods), policy, options, source, table: buildPathTable(policy, methods) };
      try {
        // Every covered path gets its OPTIONS twin: the tree holds exactly those.
        this.#tree().on('OPTIONS', path, unusedHandler, record.table);
      } catch (error) {
        // find-my-way refuses bad syntax, and a second spelling of one route ('/a/:x' beside '/a/:y').
        throw new CorsOptionsError(source, '(path)', path, `is refused by the route tree (${(error as Error).message})`, 'start the path with "/", and register every method of a route under one spelling of its path');
      }
      this.#records.set(path, record);
      return;
    }
    if (existing.policy !== policy && !sameOptions(existing.options, options)) {
      throw new CorsOptionsError(
        source,
        '(route options)',
        path,
        `differ from those ${existing.source} gave the same path, and a browser caches one CORS answer per URL`,
        `give every route of ${describeValue(path)} the same CORS options, e.g. register them together: route(['GET', 'POST'], path, options)`,
      );
    }
    for (const method of methods) existing.methods.add(method);
    Object.assign(existing.table, buildPathTable(existing.policy, existing.methods));
  }

  /**
   * Freezes the tables and returns the lookup. With no route at all, every path is covered by
   * one table (the drop-in for a global CORS middleware).
   */
  seal(globalPolicy: CorsPolicy): PathLookup {
    const router = this.#router;
    if (router === undefined) {
      const table = Object.freeze(buildPathTable(globalPolicy, GLOBAL_METHODS));
      return () => table;
    }
    for (const record of this.#records.values()) Object.freeze(record.table);
    router.compile();
    // Hot path: one tree walk; the store is the table.
    return (url) => {
      const found = router.find('OPTIONS', url);
      return found === null ? undefined : (found.store as PathTable);
    };
  }

  #tree(): Router.Instance<Router.HTTPVersion.V1> {
    // The query string is never needed: a constant parser saves find() from parsing it.
    this.#router ??= Router({ ...this.#matching, querystringParser: () => NO_SEARCH_PARAMS });
    return this.#router;
  }
}

function pickMatching(matching: PathMatching): PathMatching {
  const picked: PathMatching = {};
  for (const field of MATCHING_FIELDS) {
    if (matching[field] !== undefined) (picked as Record<string, unknown>)[field] = matching[field];
  }
  return picked;
}

function describeMatching(matching: PathMatching): string {
  return `{ ${MATCHING_FIELDS.map((field) => `${field}: ${String(matching[field])}`).join(', ')} }`;
}
