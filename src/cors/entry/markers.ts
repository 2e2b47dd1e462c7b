/**
 * The answer of a framework entry point that reads its framework's routes (Express, Koa) and is
 * told by its framework's own matcher which of them match a URL: rule F of docs/CONTRACT.md, on
 * node:http. A request is answered under what every matching route allows, and a `cors.route()`
 * marker the framework then runs narrows that answer again, never widens it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { CorsCore, TableRef } from '../core/cors-core.js';
import type { RequestKind } from '../core/decision.js';
import { narrowedTable, urlPreflightTable } from '../core/narrowing.js';
import type { PathTable } from '../core/path-table.js';
import { KEPT_PATHS } from '../core/route-overlaps.js';
import { respond } from './node.js';

export type Next = (error?: unknown) => void;

/**
 * A route or a marker the framework's matcher says a URL matches. A route gives each of its
 * methods (upper case) the tables of the markers it runs for it, or `undefined` (none: the
 * middleware's options decide, unless a marker mounted above it gives its own). `passesOn`: a
 * route of every method without a marker (`app.all('/api/*', auth)`), which runs before the
 * routes and passes the request on: it decides nothing.
 */
export type Candidate =
  | { readonly kind: 'route'; readonly methods: ReadonlyMap<string, readonly TableRef[] | undefined>; readonly passesOn: boolean }
  | { readonly kind: 'marker'; readonly ref: TableRef };

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
  return false;
}

/**
 * The tables every candidate gives `method` (rule F): each marker mounted above the routes, each
 * route's markers, and the middleware's own (`base`) for a route without one where no marker
 * mounted above it decides. `undefined` where no route serves `method`.
 */
function candidateTables(candidates: readonly Candidate[], method: string, base: PathTable): PathTable[] | undefined {
  const tables: PathTable[] = [];
  let mountedMarker = false;
  let served = false;
  for (const candidate of candidates) {
    if (candidate.kind === 'marker') {
      tables.push(candidate.ref.table);
      mountedMarker = true;
      continue;
    }
    const refs = tablesFor(candidate.methods, method);
    if (refs === false) continue;
    served = true;
    if (refs !== undefined) for (const ref of refs) tables.push(ref.table);
    else if (!candidate.passesOn && !mountedMarker) tables.push(base);
  }
  if (!served) return undefined;
  return tables.length === 0 ? [base] : tables;
}

/** Every method the candidates' routes serve, in the order found (their `Allow`). */
function allowedMethods(candidates: readonly Candidate[]): string[] {
  const methods: string[] = [];
  for (const candidate of candidates) {
    // A route that passes every request on serves none of them itself.
    if (candidate.kind !== 'route' || candidate.passesOn) continue;
    for (const method of candidate.methods.keys()) if (!methods.includes(method)) methods.push(method);
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

/** The answers of one middleware, and what each request was answered under, for the markers it then runs. */
export class MarkersRun {
  readonly #core: CorsCore;
  /** The table each request was answered under so far: a marker narrows it. */
  readonly #answered = new WeakMap<IncomingMessage, PathTable>();
  /** Each marker's table where a route read holds it; a marker no route read holds gets one at its first run. */
  readonly #markers = new WeakMap<object, TableRef>();

  constructor(core: CorsCore) {
    this.#core = core;
  }

  /** Keeps `ref` as the table of `marker` (any of a marker's tables: they share its options). */
  know(marker: object, ref: TableRef): void {
    if (!this.#markers.has(marker)) this.#markers.set(marker, ref);
  }

  /**
   * The middleware's answer to a request of `kind`, `method` being its routing method: a preflight
   * or a plain OPTIONS on a URL no route serves is handed on untouched; any other request is
   * answered, under `base` where no route matches (static files, 404s), as `cors` does.
   */
  answer(req: IncomingMessage, res: ServerResponse, next: Next, kind: RequestKind, method: string, candidates: readonly Candidate[], base: TableRef): void {
    let table: PathTable | undefined;
    const tables = kind === 'options' ? undefined : candidateTables(candidates, method, base.table);
    if (tables !== undefined) {
      table = narrowedTable(tables, method);
      if (kind === 'preflight') table = preflightOnUrl(table, candidates, base.table);
    } else if (kind === 'actual') {
      table = base.table;
    } else {
      // A plain OPTIONS, or a preflight for a method no route of the URL serves: the URL's
      // methods in Allow (and a preflight grants none of them it did not ask for).
      const methods = allowedMethods(candidates);
      if (methods.length === 0) return next();
      table = narrowedTable(
        methods.flatMap((served) => candidateTables(candidates, served, base.table) ?? []),
        'OPTIONS',
        methods,
      );
    }
    this.#answered.set(req, table);
    respond(this.#core, table, req, res, next);
  }

  /** A marker run by the framework: the answer narrowed to what it allows too, where it has not been sent. */
  narrow(marker: object, req: IncomingMessage, res: ServerResponse, next: Next, options: unknown): void {
    const before = this.#answered.get(req);
    // Only what the middleware answered is narrowed: a request it left alone stays untouched.
    if (before === undefined || req.method === 'OPTIONS' || res.headersSent) return next();
    let ref = this.#markers.get(marker);
    if (ref === undefined) {
      ref = this.#core.routeMatchedElsewhere({}, [req.method ?? 'GET'], '(a route not read)', options as never, 'cors.route()');
      this.#markers.set(marker, ref);
    }
    const table = narrowedTable([before, ref.table], req.method ?? 'GET');
    if (table === before) return next();
    for (const name of GRANT_HEADERS) res.removeHeader(name);
    this.#answered.set(req, table);
    respond(this.#core, table, req, res, next);
  }
}

/** What an answer to an actual request grants: taken off before a marker's narrower answer is written. */
const GRANT_HEADERS = ['Access-Control-Allow-Origin', 'Access-Control-Allow-Credentials', 'Access-Control-Expose-Headers'];
