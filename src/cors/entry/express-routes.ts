/**
 * The routes of an Express 4 or 5 application as `@lib/cors/express` (express.ts) reads them:
 * the router's stack, with the patterns Express compiled, read and never written, each route's
 * methods with the tables of its `cors.route()` markers; and which of them a path matches, in
 * stack order, by Express's own compiled patterns. Decides nothing: core/route-markers.ts answers
 * from what it finds (rule F).
 */
import { type IncomingMessage, METHODS } from 'node:http';

import type { CorsCore, TableRef } from '../core/cors-core.js';
import { type Candidate, CandidateCache, type MarkersRun, type MaybeMarked, passesOn, refuseUnseenMount, ROUTE_OPTIONS } from '../core/route-markers.js';

/** What is read of an Express application: its router (Express 5 `app.router`, Express 4 `app._router`). */
export interface ExpressApp {
  readonly _router?: ExpressRouter;
  readonly router?: ExpressRouter;
  /** Set where the application is mounted in another (`parent.use(mountpath, app)`), as Express documents. */
  readonly parent?: ExpressApp;
  readonly mountpath?: unknown;
}

export interface ExpressRouter {
  readonly stack: readonly ExpressLayer[];
  route(...args: unknown[]): unknown;
}

interface ExpressLayer {
  readonly handle: MaybeMarked<IncomingMessage> & { readonly stack?: unknown; readonly route?: unknown };
  readonly name: string;
  readonly route?: ExpressRoute;
  /** Express 5: the compiled patterns, pure functions of a path. */
  readonly matchers?: readonly ((path: string) => false | { readonly path: string })[];
  readonly slash?: boolean;
  /** Express 4: the compiled pattern. */
  readonly regexp?: RegExp & { fast_slash?: boolean; fast_star?: boolean };
  /** The method of a route's own layer (lower case); `undefined` for route.all(). */
  readonly method?: string;
}

interface ExpressRoute {
  readonly path: unknown;
  readonly methods: Record<string, boolean | undefined>;
  readonly stack: readonly ExpressLayer[];
}

/** One node of the application's stack as read: a route, a router mounted at a prefix, or a marker used as middleware. */
type Node =
  | { readonly kind: 'route'; readonly matches: (path: string) => boolean; readonly methods: MethodTables; readonly passesOn: boolean }
  | { readonly kind: 'mount'; readonly rest: (path: string) => string | undefined; readonly nodes: readonly Node[] }
  | { readonly kind: 'marker'; readonly rest: (path: string) => string | undefined; readonly ref: TableRef };

/** A route's methods (upper case), each with the tables of its markers, or `undefined` where it has none (the middleware's options). */
type MethodTables = ReadonlyMap<string, readonly TableRef[] | undefined>;

/** Every method node parses: what a route of every method (`app.all()`) serves. */
const EVERY_METHOD: readonly string[] = METHODS;

/** The application's routes under `router`: every router read (their sizes tell when to read again), and the routes a path matches. */
export function readRoutes(core: CorsCore, run: MarkersRun, router: ExpressRouter): { routers: ExpressRouter[]; candidates: CandidateCache } {
  const routers: ExpressRouter[] = [];
  const nodes = readStack(core, run, router, '', routers);
  return { routers, candidates: new CandidateCache((path, visit) => walk(nodes, path, visit, false)) };
}

/** The nodes of a router's stack, each marker's table made; `prefix` names routes in errors. */
function readStack(core: CorsCore, run: MarkersRun, router: ExpressRouter, prefix: string, routers: ExpressRouter[]): Node[] {
  routers.push(router);
  const nodes: Node[] = [];
  for (const layer of router.stack) {
    const route = layer.route;
    if (route !== undefined) {
      const path = prefix + String(route.path);
      if (route.stack.some((inner) => isRouter(inner.handle))) {
        // Express runs it for the route's requests, yet its routes cannot be read as a mount's.
        refuseUnseenMount(
          core.source,
          path,
          "is a route whose handler is a router, whose routes cannot be read from a route's handlers",
          "mount the router with app.use() (app.use('/api', router)) instead",
        );
      }
      const methods = methodTables(run, route, path);
      const marked = [...methods.values()].some((refs) => refs !== undefined);
      const takesNext = (route.stack.at(-1)?.handle.length ?? 0) >= 3;
      nodes.push({ kind: 'route', matches: matcherOf(layer), methods, passesOn: passesOn(route.path, servesEveryMethod(route), marked, takesNext) });
    } else if (isRouter(layer.handle)) {
      nodes.push({
        kind: 'mount',
        rest: restOf(layer),
        nodes: readStack(core, run, layer.handle as unknown as ExpressRouter, prefix + mountName(layer), routers),
      });
    } else if (layer.name === 'mounted_app') {
      refuseUnseenMount(
        core.source,
        prefix + mountName(layer),
        'mounts an Express application, whose routes cannot be read from outside it',
        'mount an express.Router() there instead, or give the mounted application its own @lib/cors/express middleware',
      );
    } else if (layer.handle[ROUTE_OPTIONS] !== undefined) {
      const at = prefix + mountName(layer);
      nodes.push({ kind: 'marker', rest: restOf(layer), ref: run.register(layer.handle, EVERY_METHOD, at === '' ? '/' : at, 'Express', true) });
    }
  }
  return nodes;
}

/** route.all() says `_all`; app.all() names every method node parses. */
function servesEveryMethod(route: ExpressRoute): boolean {
  return route.methods._all === true || EVERY_METHOD.every((method) => route.methods[method.toLowerCase()] === true);
}

/** Each method of `route` with the tables of the markers Express runs for it (route.all()'s included). */
function methodTables(run: MarkersRun, route: ExpressRoute, path: string): MethodTables {
  const every = servesEveryMethod(route);
  const methods = every ? EVERY_METHOD : Object.keys(route.methods).map((method) => method.toUpperCase());
  const byMethod = new Map<string, TableRef[] | undefined>();
  for (const method of methods) {
    const markers = route.stack.filter(
      (layer) => (layer.method === undefined || layer.method.toUpperCase() === method) && layer.handle[ROUTE_OPTIONS] !== undefined,
    );
    byMethod.set(
      method,
      markers.length === 0 ? undefined : markers.map((layer) => run.register(layer.handle, every ? EVERY_METHOD : [method], path, 'Express', every)),
    );
  }
  return byMethod;
}

/**
 * Tells `visit` of every route and marker whose pattern matches `path`, in stack order: a route
 * matched whole, a mount or marker matched as a prefix (and its nodes then with the rest of the
 * path, as Express strips it). Express's own compiled patterns decide; none is run for its effects.
 */
function walk(nodes: readonly Node[], path: string, visit: (candidate: Candidate) => void, marked: boolean): void {
  // A marker mounted in this router gives its options to the routes after it here and below, not to another router's.
  let underMarker = marked;
  for (const node of nodes) {
    if (node.kind === 'route') {
      if (node.matches(path)) visit({ kind: 'route', methods: node.methods, passesOn: node.passesOn, underMarker });
    } else {
      const rest = node.rest(path);
      if (rest === undefined) continue;
      if (node.kind === 'marker') {
        visit({ kind: 'marker', ref: node.ref });
        underMarker = true;
      } else walk(node.nodes, rest, visit, underMarker);
    }
  }
}

/** Whether a layer's route pattern matches the whole of `path`. */
function matcherOf(layer: ExpressLayer): (path: string) => boolean {
  const matchers = layer.matchers;
  // A pattern whose parameters cannot be decoded (`%ZZ`) throws: taken as a match, so that it narrows.
  if (matchers !== undefined) return (path) => matchers.some((match) => matchesOrThrows(match, path));
  const regexp = layer.regexp!;
  // A copy: a user's RegExp path may carry lastIndex state, which the router's own must keep.
  const own = new RegExp(regexp.source, regexp.flags.replace(/[gy]/g, ''));
  return (path) => regexp.fast_star === true || own.test(path);
}

/** What follows a mount's prefix in `path`, as Express strips it; `undefined` where the prefix does not match. */
function restOf(layer: ExpressLayer): (path: string) => string | undefined {
  const express4 = layer.matchers === undefined;
  const prefixOf = (path: string): string | undefined => {
    if (layer.slash === true || layer.regexp?.fast_slash === true) return '';
    if (!express4) {
      for (const match of layer.matchers!) {
        let found: false | { readonly path: string };
        try {
          found = match(path);
        } catch {
          // Express answers such a path with an error: no route of this mount runs.
          return undefined;
        }
        if (found !== false) return found.path;
      }
      return undefined;
    }
    return new RegExp(layer.regexp!.source, layer.regexp!.flags.replace(/[gy]/g, '')).exec(path)?.[0];
  };
  return (path) => {
    const prefix = prefixOf(path);
    // An unanchored RegExp may match further in: Express enters a mount only where it begins the path.
    if (prefix === undefined || !path.startsWith(prefix)) return undefined;
    const next = path[prefix.length];
    // Express goes into a mount only at a segment's end (Express 4 at a '.' too).
    if (next !== undefined && next !== '/' && !(express4 && next === '.')) return undefined;
    const rest = path.slice(prefix.length);
    return rest.startsWith('/') ? rest : `/${rest}`;
  };
}

/** Whether `match` matches `path`, or throws trying (a parameter it cannot decode). */
function matchesOrThrows(match: (path: string) => unknown, path: string): boolean {
  try {
    return match(path) !== false;
  } catch {
    return true;
  }
}

/** The mount paths of the layers that hold `middleware` (app.use('/api', cors): '/api'; '' at the top), in stack order. */
export function mountsOf(router: ExpressRouter, middleware: unknown, prefix: string, found: string[] = []): string[] {
  for (const layer of router.stack) {
    if (layer.route !== undefined) continue;
    if (layer.handle === middleware) found.push(prefix + mountName(layer));
    else if (isRouter(layer.handle)) mountsOf(layer.handle as unknown as ExpressRouter, middleware, prefix + mountName(layer), found);
  }
  return found;
}

/** A router (express.Router(), an application's): a stack and route(); a connect application (Vite's) has no route(), and is middleware. */
export function isRouter(handle: unknown): boolean {
  const router = handle as (Partial<ExpressRouter> & (() => void)) | null;
  return typeof router === 'function' && Array.isArray(router.stack) && typeof router.route === 'function';
}

/** A mount's path: Express 5 keeps it; from Express 4's RegExp, a plain prefix is read back. */
function mountName(layer: ExpressLayer & { readonly rawPath?: unknown }): string {
  if (typeof layer.rawPath === 'string') return layer.rawPath === '/' ? '' : layer.rawPath;
  const source = layer.regexp?.source ?? '';
  if (source === '^\\/?(?=\\/|$)') return '';
  const plain = /^\^((?:\\\/(?:[\w-]|\\\.)+)+)\\\/\?\(\?=\\\/\|\$\)$/.exec(source);
  return plain === null ? `<${source}>` : plain[1]!.replace(/\\(.)/g, '$1');
}
