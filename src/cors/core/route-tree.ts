/** The covered paths in a find-my-way tree whose stores are the path tables; registration checks, and the sealed lookup. */
import type Router from 'find-my-way';

import { describeValue, labelText, RouteRegistrationError, type RouteLabel } from './errors.js';
import { isHttpToken } from './http-grammar.js';
import { sameOptions, type AnyCorsOptions } from './options.js';
import { buildPathTable, GLOBAL_METHODS, type PathTable } from './path-table.js';
import type { PathMatching } from './path-matching.js';
import type { CorsPolicy } from './policy.js';
import { SharedUrls } from './route-overlaps.js';

/** find-my-way's defaults, filled in so that settings compare equal however they were given. */
const DEFAULT_MATCHING: Required<PathMatching> = {
  ignoreTrailingSlash: false,
  ignoreDuplicateSlashes: false,
  caseSensitive: true,
  useSemicolonDelimiter: false,
  maxParamLength: 100,
};
const MATCHING_FIELDS = Object.keys(DEFAULT_MATCHING) as (keyof PathMatching)[];

/** One method's registration on a path. */
interface MethodRecord {
  readonly policy: CorsPolicy;
  /** The merged options the policy was compiled from, to tell equal registrations from conflicting ones. */
  readonly options: AnyCorsOptions;
  /** Who registered it (with the methods and path it registered), named when a later registration conflicts. */
  readonly source: RouteLabel;
  readonly registeredMethods: readonly string[];
  readonly registeredPath: string;
}

interface PathRecord {
  /** The path's store in the tree: the table of its first policy (one object, completed in place). */
  readonly store: PathTable;
  /** The declared methods, in registration order, each with its policy. */
  readonly methods: Map<string, MethodRecord>;
  /** One table per policy of the path, each completed in place as methods are added (the fastify plugin keeps them). */
  readonly tables: Map<CorsPolicy, PathTable>;
}

export type PathLookup = (url: string, method?: string) => PathTable | undefined;

/**
 * The part of a find-my-way router that `mirror()` reads. find-my-way's own typings omit
 * `routes`, so a router instance is accepted as it is and checked at run time.
 */
export interface MirrorableRouter extends PathMatching {
  readonly routes: readonly { readonly method: string; readonly path: string }[];
}

export type FindMyWayRouter = Router.Instance<Router.HTTPVersion.V1> | Router.Instance<Router.HTTPVersion.V2> | MirrorableRouter;

const NO_SEARCH_PARAMS = Object.freeze({});

/** A parameter's name in a path; with an escaped colon (`::`, part of a static segment), the second form keeps it. */
const PARAMETER_NAME = /:[^/:(.-]+/g;
const ESCAPED_COLON_OR_PARAMETER_NAME = /::|:[^/:(.-]+/g;

/**
 * A path as find-my-way files it, so that two spellings of one route are one key: `/a/:x` and
 * `/a/:y` share a node. (A replacement string, not a function, where no colon is escaped: half
 * the time, at every route a framework registers.)
 */
export const findMyWayKey = (path: string): string => {
  if (!path.includes(':')) return path;
  if (!path.includes('::')) return path.replace(PARAMETER_NAME, ':');
  return path.replace(ESCAPED_COLON_OR_PARAMETER_NAME, (found) => (found === '::' ? found : ':'));
};

/**
 * findMyWayKey() for a router matching as `matching` says: the spellings it files under one node
 * (case, a trailing slash, doubled slashes) are one key too.
 */
export function findMyWayKeyFor(matching: PathMatching): (path: string) => string {
  const { caseSensitive, ignoreTrailingSlash, ignoreDuplicateSlashes } = pickMatching(matching);
  if (caseSensitive && !ignoreTrailingSlash && !ignoreDuplicateSlashes) return findMyWayKey;
  return (path) => {
    let key = findMyWayKey(path);
    if (ignoreDuplicateSlashes) key = key.replace(/\/\/+/g, '/');
    if (ignoreTrailingSlash && key.length > 1 && key.endsWith('/')) key = key.slice(0, -1);
    // find-my-way lower-cases the whole path, a parameter's pattern too.
    return caseSensitive ? key : key.toLowerCase();
  };
}

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
  /** The records of addMatchedElsewhere(), by key. */
  readonly #elsewhere = new Map<string | object, PathRecord>();
  #matching: Required<PathMatching>;
  #router: Router.Instance<Router.HTTPVersion.V1> | undefined;

  constructor(matching: PathMatching = {}) {
    this.#matching = pickMatching(matching);
  }

  /** No path added yet: sealed so, it covers every path. */
  get isEmpty(): boolean {
    return this.#router === undefined;
  }

  /** How paths are matched, all settings filled in. */
  get matching(): PathMatching {
    return this.#matching;
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
  add(methods: readonly string[], path: string, options: AnyCorsOptions, policy: CorsPolicy, source: RouteLabel): PathTable {
    checkMethods(methods, path, source);

    let record = this.#find(path);
    if (record === undefined) {
      const store = buildPathTable(path, policy, methods);
      try {
        this.#tree().on(TREE_METHOD, path, unusedHandler, store);
      } catch (error) {
        throw new RouteRegistrationError(
          'CORS_ROUTE_INVALID_PATH',
          labelText(source, methods, path),
          path,
          `is refused by the route tree (${(error as Error).message})`,
          'write it in find-my-way syntax, starting with "/", e.g. "/users/:id"',
        );
      }
      record = { store, methods: new Map(), tables: new Map([[policy, store]]) };
      this.#records.set(store, record);
    }
    return this.#addMethods(record, methods, path, options, policy, source);
  }

  /**
   * Covers a route that a framework matches itself (the framework entry points, entry/markers.ts): its tables are
   * built as add() builds them, under `key` (one key per path as the framework spells it: a
   * string, or an object compared by identity), and are not put in the tree, whose lookup never
   * reaches them.
   */
  addMatchedElsewhere(
    key: string | object,
    methods: readonly string[],
    path: string,
    options: AnyCorsOptions,
    policy: CorsPolicy,
    source: RouteLabel,
  ): PathTable {
    checkMethods(methods, path, source);
    let record = this.#elsewhere.get(key);
    if (record === undefined) {
      const store = buildPathTable(path, policy, methods);
      record = { store, methods: new Map(), tables: new Map([[policy, store]]) };
      this.#elsewhere.set(key, record);
      this.#records.set(store, record);
    }
    return this.#addMethods(record, methods, path, options, policy, source);
  }

  #addMethods(record: PathRecord, methods: readonly string[], path: string, options: AnyCorsOptions, policy: CorsPolicy, source: RouteLabel): PathTable {
    let own = policy;
    for (const method of methods) {
      const existing = record.methods.get(method);
      if (existing === undefined) continue;
      if (existing.policy === policy || sameOptions(existing.options, options)) {
        own = existing.policy;
        continue;
      }
      // Per path and method, one policy: a second one would have to be resolved by a guess.
      throw new RouteRegistrationError(
        'CORS_ROUTE_CONFLICT',
        labelText(source, methods, path),
        path,
        `gives ${method} other CORS options than ${labelText(existing.source, existing.registeredMethods, existing.registeredPath)} gave it`,
        `declare ${method} ${path} once, with the options you mean; other methods of ${path} may have options of their own`,
      );
    }
    const fresh = record.methods.size === 0;
    for (const method of methods) {
      if (!record.methods.has(method)) record.methods.set(method, { policy: own, options, source, registeredMethods: methods, registeredPath: path });
    }
    // A new path's table was built from these very methods under this one policy: complete already.
    if (!fresh || record.methods.size !== methods.length) completeTables(record);
    return record.tables.get(own)!;
  }

  /** An already registered path, under any spelling of it ('/a/:x' and '/a/:y' are one route). */
  #find(path: string): PathRecord | undefined {
    if (this.#router === undefined || typeof path !== 'string') return undefined;
    // findRoute() takes the path as on() stored it, after on()'s own clean-ups.
    let stored = path;
    if (this.#matching.ignoreDuplicateSlashes) stored = stored.replace(/\/\/+/g, '/');
    if (this.#matching.ignoreTrailingSlash && stored.length > 1 && stored.endsWith('/')) stored = stored.slice(0, -1);
    const table = this.#router.findRoute(TREE_METHOD, stored)?.store as PathTable | undefined;
    return table === undefined ? undefined : this.#records.get(table);
  }

  /**
   * Freezes the tables and returns the lookup. With no route at all, every path is covered by
   * one table (the drop-in for a global CORS middleware).
   */
  seal(globalPolicy: CorsPolicy): PathLookup {
    const sharedUrls = this.#router === undefined ? undefined : this.#sharedUrls();
    for (const record of this.#records.values()) for (const table of record.tables.values()) Object.freeze(table);
    // What registration needed (each path's methods and options, to merge and to find conflicts)
    // is dropped: the tables hold all a request reads, and a reconfigure() builds a tree anew.
    const paths = this.#records.size;
    this.#records.clear();
    this.#elsewhere.clear();
    const router = this.#router;
    if (router === undefined) {
      // Methods then come from allowedMethods, unless that is '*' or left out.
      const methods = globalPolicy.allowedMethods === undefined || globalPolicy.allowedMethods.includes('*') ? GLOBAL_METHODS : globalPolicy.allowedMethods;
      const table = Object.freeze(buildPathTable('*', globalPolicy, methods));
      return () => table;
    }
    // Compiled lookups are generated code (new Function), which Cloudflare's workerd forbids while
    // serving, and compiling takes time per path (and overflows the stack near 100,000 paths):
    // past COMPILED_LOOKUP_LIMIT paths, or where code cannot be generated, the tree is walked as
    // find-my-way walks it uncompiled.
    if (paths <= COMPILED_LOOKUP_LIMIT && canGenerateCode()) router.compile();
    // Hot path: one tree walk; the store is the table.
    if (sharedUrls === undefined) {
      return (url) => {
        const found = router.find(TREE_METHOD, url);
        return found === null ? undefined : (found.store as PathTable);
      };
    }
    const { shared, trees } = sharedUrls;
    const methods = [...trees.keys()];
    const tableOfMethod = (method: string, url: string) => trees.get(method)?.find(TREE_METHOD, url)?.store as PathTable | undefined;
    return (url, method) => {
      const found = router.find(TREE_METHOD, url);
      if (found === null) return undefined;
      const table = found.store as PathTable;
      if (!table.sharesUrl || method === undefined) return table;
      // A path that shares URLs with others: the request's method may run another path's route
      // here, found in that method's tree, and the URL's routes decide what it is answered from.
      const decider = method === 'OPTIONS' ? table : (tableOfMethod(method, url) ?? table);
      return shared.tableOn(decider, method, url, methods, (other) => tableOfMethod(other, url));
    };
  }

  /**
   * Where covered paths under different policies can match one URL (core/route-overlaps.ts):
   * marks their tables, and files each such path in one tree per method it serves, where a request
   * of that method on such a path is looked up again. `undefined` where no URL can.
   */
  #sharedUrls(): { shared: SharedUrls; trees: Map<string, Router.Instance<Router.HTTPVersion.V1>> } | undefined {
    const matchedElsewhere = new Set(this.#elsewhere.values());
    const records = [...this.#records.values()].filter((record) => !matchedElsewhere.has(record));
    // Under one policy every path gets the same grant for every method: most applications, and no
    // path is compared.
    const policies = new Set<CorsPolicy>();
    for (const record of records) for (const policy of record.tables.keys()) policies.add(policy);
    if (policies.size < 2) return undefined;
    const shared = new SharedUrls(() => records.map((record) => record.store.route), this.#matching);
    if (shared.sharing.size === 0) return undefined;
    const trees = new Map<string, Router.Instance<Router.HTTPVersion.V1>>();
    for (const record of records) {
      const path = record.store.route;
      if (!shared.sharing.has(path)) continue;
      for (const table of record.tables.values()) Object.assign(table, { sharesUrl: true });
      const methods = new Set(record.methods.keys());
      if (methods.has('GET')) methods.add('HEAD');
      for (const method of methods) {
        let tree = trees.get(method);
        if (tree === undefined) {
          tree = this.#newRouter();
          trees.set(method, tree);
        }
        tree.on(TREE_METHOD, path, unusedHandler, record.store);
      }
    }
    return { shared, trees };
  }

  #tree(): Router.Instance<Router.HTTPVersion.V1> {
    this.#router ??= this.#newRouter();
    return this.#router;
  }

  #newRouter(): Router.Instance<Router.HTTPVersion.V1> {
    // find-my-way is loaded with the first tree, not with the engine: the fastify plugin finds its
    // routes in fastify's own router, and where that is another copy it need not load this one.
    const createRouter = require('find-my-way') as typeof Router;
    // The query string is never needed: a constant parser saves find() from parsing it.
    return createRouter({ ...this.#matching, querystringParser: () => NO_SEARCH_PARAMS });
  }
}

/** Refuses a registration without methods, or with one that is no method name in upper case. */
function checkMethods(methods: readonly string[], path: string, label: RouteLabel): void {
  if (methods.length === 0)
    throw new RouteRegistrationError(
      'CORS_ROUTE_INVALID_METHOD',
      labelText(label, methods, path),
      path,
      'is given no method',
      'give one method or an array of them, e.g. ["GET", "POST"]',
    );
  for (const method of methods) {
    if (typeof method !== 'string' || !isHttpToken(method)) {
      throw new RouteRegistrationError(
        'CORS_ROUTE_INVALID_METHOD',
        labelText(label, methods, path),
        path,
        `is given ${describeValue(method)}, which is not an HTTP method`,
        'use a method name such as "GET"',
      );
    }
    if (method !== method.toUpperCase()) {
      throw new RouteRegistrationError(
        'CORS_ROUTE_INVALID_METHOD',
        labelText(label, methods, path),
        path,
        `is given the method ${JSON.stringify(method)}, not in upper case, and browsers compare methods case-sensitively`,
        `write ${JSON.stringify(method.toUpperCase())}`,
      );
    }
  }
}

/** (Re)builds every table of a path from its declared methods, in place (writePathTables()). */
function completeTables(record: PathRecord): void {
  writePathTables(
    record.store.route,
    [...record.methods.keys()],
    (method) => record.methods.get(method)?.policy,
    (policy) => tableOf(record, policy),
  );
}

/**
 * Writes the tables of a path that declares `declared`, each method under `policyOf(method)`: one
 * per policy (`into`: the object it is written into), each listing only the methods it decides,
 * and all sharing `byMethod`, through which the decision picks the request's own (OPTIONS, rows 1
 * and 2, and methods the path does not declare go to the OPTIONS policy). With one policy the one
 * table is that of a path without per-method policies.
 */
function writePathTables(
  route: string,
  declared: readonly string[],
  policyOf: (method: string) => CorsPolicy | undefined,
  into: (policy: CorsPolicy) => PathTable,
): void {
  // OPTIONS follows its own declaration, else GET's policy, else the first method's.
  const optionsPolicy = policyOf('OPTIONS') ?? policyOf('GET') ?? policyOf(declared[0]!)!;
  // HEAD follows GET unless declared itself.
  const effective = (method: string): CorsPolicy => policyOf(method) ?? (method === 'HEAD' ? policyOf('GET') : undefined) ?? optionsPolicy;
  const policies = new Set([...declared.map((method) => policyOf(method)!), optionsPolicy]);
  if (policies.size === 1) {
    Object.assign(into(optionsPolicy), buildPathTable(route, optionsPolicy, declared));
    return;
  }
  const methods = new Set([...declared, 'OPTIONS', ...(declared.includes('GET') ? ['HEAD'] : [])]);
  const declaredSet = new Set(declared);
  const byMethod = new Map<string, PathTable>();
  const tables: PathTable[] = [];
  for (const policy of policies) {
    const own = new Set([...methods].filter((method) => effective(method) === policy));
    const table = into(policy);
    Object.assign(table, buildPathTable(route, policy, declared, { own, declared: declaredSet, decidesUndeclared: policy === optionsPolicy }));
    for (const method of own) byMethod.set(method, table);
    tables.push(table);
  }
  for (const table of tables) Object.assign(table, { byMethod });
}

/** The path's one table object for `policy`, created the first time. */
function tableOf(record: PathRecord, policy: CorsPolicy): PathTable {
  let table = record.tables.get(policy);
  if (table === undefined) {
    table = { ...record.store };
    record.tables.set(policy, table);
  }
  return table;
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
