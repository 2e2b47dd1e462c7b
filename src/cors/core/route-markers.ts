/**
 * The answer of a framework entry point that reads its framework's routes (Express, Koa, hono)
 * and is told by its framework's own matcher which of them match a URL: rule F of
 * docs/CONTRACT.md. A request is answered under what every matching route allows, and a
 * `cors.route()` marker the framework then runs narrows that answer again, never widens it
 * (Express and Koa, whose markers write on node:http; hono's matched markers are in the answer).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { CorsCore, TableRef } from './cors-core.js';
import { RouteRegistrationError } from './errors.js';
import type { CorsOptions } from './options.js';
import { type RequestKind, tableOfMethod } from './decision.js';
import { narrowedTable, urlPreflightTable } from './narrowing.js';
import { methodAloneTable, type PathTable } from './path-table.js';
import { KEPT_PATHS } from './route-overlaps.js';

/** Marks the no-op middleware that `cors.route()` returns in Express, Koa and hono, with the route's options. */
export const ROUTE_OPTIONS = Symbol('@lib/cors route options');

/** A handler as the entry points read it: perhaps a `cors.route()` marker. */
export type MaybeMarked<Req> = ((...args: never[]) => unknown) & { readonly [ROUTE_OPTIONS]?: CorsOptions<Req> };

/** `marker`, carrying a route's `options` for the entry point to find on the route. */
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

/** Refuses a mount whose routes cannot be read (`where`), so that no request is answered without them. */
export function refuseUnseenMount(source: string, where: string, problem: string, fix: string): never {
  throw new RouteRegistrationError('CORS_MOUNT_UNSEEN', `${source}.mirror()`, where, problem, fix);
}

/**
 * A route or a marker the framework's matcher says a URL matches. A route gives each of its
 * methods (upper case) the tables of the markers it runs for it, or `undefined` (none: the
 * middleware's options decide, unless a marker mounted above it gives its own). `passesOn`: a
 * route of every method without a marker (`app.all('/api/*', auth)`), which runs before the
 * routes and passes the request on: it decides nothing.
 */
export type Candidate =
  | {
      readonly kind: 'route';
      readonly methods: ReadonlyMap<string, readonly TableRef[] | undefined>;
      readonly passesOn: boolean;
      /** A marker the framework runs before it, mounted above it in its own router, gives it its options where it has none. */
      readonly underMarker: boolean;
    }
  | { readonly kind: 'marker'; readonly ref: TableRef };

/**
 * Whether a route decides nothing (`passesOn`): one of every method over a wildcard path
 * (`app.all('/api/*', authenticate)`), without a marker, whose last handler takes `next`
 * (`takesNext`): middleware in all but name. One of a single path (a GraphQL or proxy handler
 * that takes next) answers.
 */
export function passesOn(path: unknown, everyMethod: boolean, marked: boolean, takesNext: boolean): boolean {
  return everyMethod && !marked && takesNext && typeof path === 'string' && /\*|\(\.\*\)/.test(path);
}

/** The candidates of each path, found once (matching depends on the path alone) and kept, up to KEPT_PATHS paths. */
export class CandidateCache {
  readonly #kept = new Map<string, readonly Candidate[]>();
  readonly #walk: (path: string, visit: (candidate: Candidate) => void) => void;

  constructor(walk: (path: string, visit: (candidate: Candidate) => void) => void) {
    this.#walk = walk;
  }

  of(path: string): readonly Candidate[] {
    let found = this.#kept.get(path);
    if (found === undefined) {
      const list: Candidate[] = [];
      this.#walk(path, (candidate) => list.push(candidate));
      found = list;
      if (this.#kept.size >= KEPT_PATHS) this.#kept.clear();
      this.#kept.set(path, found);
    }
    return found;
  }
}

/** The methods a route's candidate serves `method` with: its own, else GET's for HEAD (frameworks run GET routes for HEAD). */
function tablesFor(methods: ReadonlyMap<string, readonly TableRef[] | undefined>, method: string): readonly TableRef[] | undefined | false {
  if (methods.has(method)) return methods.get(method);
  if (method === 'HEAD' && methods.has('GET')) return methods.get('GET');
  // A route that runs any method (hono's app.all()), those no route names included.
  if (methods.has('*')) return methods.get('*');
  return false;
}

/**
 * The tables every candidate gives `method` (rule F): each marker mounted above the routes, each
 * route's markers, and the middleware's own (`base`) for a route without one where no marker
 * mounted above it decides. `undefined` where no route serves `method`.
 */
function candidateTables(candidates: readonly Candidate[], method: string, base: PathTable): PathTable[] | undefined {
  const { tables, served } = tablesOf(candidates, method, base);
  return served ? tables : undefined;
}

/**
 * What candidateTables() finds, whether a route serves `method` or not: a request no route answers
 * still runs the markers mounted on its way. `routes`: how many of the tables are routes' own.
 */
function tablesOf(candidates: readonly Candidate[], method: string, base: PathTable): { tables: PathTable[]; served: boolean; routes: number } {
  const tables: PathTable[] = [];
  let served = false;
  let routes = 0;
  for (const candidate of candidates) {
    if (candidate.kind === 'marker') {
      tables.push(candidate.ref.table);
      continue;
    }
    const refs = tablesFor(candidate.methods, method);
    if (refs === false) continue;
    served = true;
    if (refs !== undefined) {
      for (const ref of refs) tables.push(ref.table);
      routes++;
    } else if (!candidate.passesOn && !candidate.underMarker) {
      tables.push(base);
      routes++;
    }
  }
  if (!served) tables.push(base);
  return { tables: tables.length === 0 ? [base] : tables, served, routes };
}

/** Every method the candidates' routes serve, in the order found (their `Allow`). */
function allowedMethods(candidates: readonly Candidate[]): string[] {
  const methods: string[] = [];
  for (const candidate of candidates) {
    // A route that passes every request on serves none of them itself.
    if (candidate.kind !== 'route' || candidate.passesOn) continue;
    for (const method of candidate.methods.keys()) {
      // HEAD goes right after GET (the tables' Allow order): a route that lists it with GET (@koa/router's) leaves it to that.
      if ((method === 'HEAD' && candidate.methods.has('GET')) || method === '*') continue;
      if (!methods.includes(method)) methods.push(method);
    }
  }
  return methods;
}

/**
 * A preflight's table, `decider` being the requested method's: the methods the URL's routes
 * serve under the same policy listed together (rule E).
 */
function preflightOnUrl(decider: PathTable, candidates: readonly Candidate[], base: PathTable): PathTable {
  const served = allowedMethods(candidates);
  const own = served.filter((method) => {
    const tables = candidateTables(candidates, method, base);
    return tables !== undefined && narrowedTable(tables, method).policy === decider.policy;
  });
  return urlPreflightTable(decider, own, served);
}

/**
 * The tables one middleware answered its requests under, and its markers' tables: what it hands
 * its entry point to write, which writes it as its framework needs.
 */
export class MarkersRun {
  readonly #core: CorsCore;
  /** The table each request (keyed by its IncomingMessage, or its Request) was answered under so far: a marker narrows it. */
  readonly #answered = new WeakMap<object, PathTable>();
  /** Each marker's table where a route read holds it; a marker no route read holds gets one at its first run. */
  readonly #markers = new WeakMap<object, TableRef>();
  /** The markers a route read holds. */
  readonly #read = new WeakSet<object>();

  constructor(core: CorsCore) {
    this.#core = core;
  }

  /** Keeps `ref` as the table of `marker` (any of a marker's tables: they share its options). */
  know(marker: object, ref: TableRef): void {
    if (!this.#markers.has(marker)) this.#markers.set(marker, ref);
    this.#read.add(marker);
  }

  /**
   * The table of `marker` in a route of `framework` at `path`, for `methods` there (`every`: a
   * route of every method), kept as the marker's; bad options throw, naming the route.
   */
  register(marker: MaybeMarked<never>, methods: readonly string[], path: string, framework: string, every: boolean): TableRef {
    const label = (): string => `${framework} route ${every ? 'of every method' : methods.join(',')} ${path}`;
    const ref = this.#core.routeMatchedElsewhere({}, methods, path, marker[ROUTE_OPTIONS], label);
    this.know(marker, ref);
    return ref;
  }

  /**
   * The table the middleware answers a request of `kind` with, `method` being its routing method;
   * `undefined` where it hands the request on untouched: a preflight or a plain OPTIONS on a URL
   * no route serves. Any other request is answered, under `base` where no route matches (static
   * files, 404s), as `cors` does.
   */
  answer(req: object, kind: RequestKind, method: string, candidates: readonly Candidate[], base: TableRef): PathTable | undefined {
    // The answer depends on the candidates (kept per path), the kind and the method alone: made
    // once each, and made again after reconfigure(), which replaces every table (base's too).
    let made = this.#made.get(candidates);
    if (made === undefined || made.base !== base.table) {
      made = { base: base.table, tables: new Map() };
      this.#made.set(candidates, made);
    }
    const key = kind === 'actual' ? method : `${kind} ${method}`;
    let table = made.tables.get(key);
    if (table === undefined) {
      table = this.#answerOf(kind, method, candidates, base) ?? null;
      made.tables.set(key, table);
    }
    if (table === null) return undefined;
    this.#answered.set(req, table);
    return table;
  }

  /** The tables answered per candidate list, each list's by kind and method (`null`: handed on), under the base table they were made with. */
  readonly #made = new WeakMap<readonly Candidate[], { base: PathTable; tables: Map<string, PathTable | null> }>();

  #answerOf(kind: RequestKind, method: string, candidates: readonly Candidate[], base: TableRef): PathTable | undefined {
    let table: PathTable;
    const found = kind === 'options' ? undefined : tablesOf(candidates, method, base.table);
    if (found?.served === true) {
      table = narrowedTable(found.tables, method);
      const routes = found.routes > 1 ? narrowingRoutes(table, found.tables, method) : undefined;
      if (routes !== undefined && !this.#named.has(table)) this.#nameNarrowing(table, routes, method);
      if (kind === 'preflight') table = preflightOnUrl(table, candidates, base.table);
      if (routes !== undefined) this.#narrowedBy.set(table, routes);
    } else if (found !== undefined && kind === 'actual') {
      // No route answers (a 404, a static file): the middleware's options, narrowed by the markers on its way.
      table = narrowedTable(found.tables, method);
    } else {
      // A plain OPTIONS, or a preflight for a method no route of the URL serves: the URL's
      // methods in Allow (and a preflight grants none of them it did not ask for).
      const methods = allowedMethods(candidates);
      if (methods.length === 0) return undefined;
      table = narrowedTable(
        methods.flatMap((served) => candidateTables(candidates, served, base.table) ?? []),
        'OPTIONS',
        methods,
      );
      // A preflight grants no method no route serves, not even where a policy lists it (allowedMethods: '*').
      if (kind === 'preflight' && table.policy.allowedMethods !== undefined) table = methodAloneTable(table, undefined);
    }
    return table;
  }

  /**
   * A URL whose routes of different policies all serve `method` is answered under what all of
   * them allow: said once per such set of routes (at its first request; the routes are read then),
   * naming them and the fix, since the route that runs may have meant to give more.
   */
  #nameNarrowing(table: PathTable, routes: readonly string[], method: string): void {
    this.#named.add(table);
    this.#core.logger.warn(
      `${this.#core.source}: ${method} on a URL matched by ${routes.join(' and ')} is answered under what all of them allow (docs/CONTRACT.md, rule F), ` +
        'which may be less than the route that runs gives. Fix: give those routes paths that do not share a URL, or one policy.',
    );
  }

  /** The routes whose policies an answer's table combines (rule F), where they differ: explain() names them. */
  readonly #narrowedBy = new WeakMap<PathTable, readonly string[]>();

  /**
   * The table a request of `kind` for `method` among `candidates` is answered under (answer()'s,
   * for no request in particular), and the routes whose different policies it combines: what
   * explain() reports (diagnostics/explain.ts).
   */
  tableFor(kind: RequestKind, method: string, candidates: readonly Candidate[], base: TableRef): { table: PathTable; routes?: readonly string[] } | undefined {
    const table = this.answer({}, kind, method, candidates, base);
    return table === undefined ? undefined : { table, routes: this.#narrowedBy.get(table) };
  }

  /** The narrowed tables named already. */
  readonly #named = new WeakSet<PathTable>();

  /** Whether this middleware answered `req` already: used twice on a request's way, the first use answers. */
  answered(req: object): boolean {
    return this.#answered.has(req);
  }

  /**
   * A marker run by the framework: the table of the answer narrowed to what it allows too, its
   * grant taken off `res` to be written again; `undefined` where nothing changes (an answer the
   * middleware did not give, an OPTIONS request, headers already sent, a marker no narrower).
   */
  narrow(marker: object, options: unknown, req: IncomingMessage, res: ServerResponse): PathTable | undefined {
    if (res.headersSent) return undefined;
    const table = this.narrowedBy(marker, options, req, req.method ?? 'GET');
    if (table !== undefined) for (const name of GRANT_HEADERS) res.removeHeader(name);
    return table;
  }

  /** Whether a route read holds `marker` (its table is then in the answer already). */
  knows(marker: object): boolean {
    return this.#read.has(marker);
  }

  /** The table `req` is answered under so far. */
  answeredWith(req: object): PathTable | undefined {
    return this.#answered.get(req);
  }

  /** narrow()'s bookkeeping alone: the narrower table `req` is now answered under, or `undefined` where nothing changes. */
  narrowedBy(marker: object, options: unknown, req: object, method: string): PathTable | undefined {
    const before = this.#answered.get(req);
    // Only what the middleware answered is narrowed: a request it left alone stays untouched.
    if (before === undefined || method === 'OPTIONS') return undefined;
    let ref = this.#markers.get(marker);
    if (ref === undefined) {
      ref = this.#core.routeMatchedElsewhere({}, [method], '(a route not read)', options as never, 'cors.route()');
      this.#markers.set(marker, ref);
    }
    const table = narrowedTable([before, ref.table], method);
    if (table === before) return undefined;
    this.#answered.set(req, table);
    return table;
  }
}

/** What an answer to an actual request grants: taken off before a marker's narrower answer is written. */
const GRANT_HEADERS = ['Access-Control-Allow-Origin', 'Access-Control-Allow-Credentials', 'Access-Control-Expose-Headers'];

/** The routes `tables` stand for, where narrowing them changed the answer for `method`; else `undefined`. */
function narrowingRoutes(table: PathTable, tables: readonly PathTable[], method: string): readonly string[] | undefined {
  // narrowedTable() gives the first table's own where every one decides under one policy: nothing was narrowed.
  if (table === tableOfMethod(tables[0]!, method)) return undefined;
  return [...new Set(tables.map((one) => (one.route === '*' ? 'a route without options of its own' : `the route of ${one.route}`)))];
}
