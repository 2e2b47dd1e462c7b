/**
 * `@lib/cors/koa`: one `app.use()` line before the routers of a Koa application with
 * `@koa/router`. Each request gets the policy of the route @koa/router will run for it, found by
 * the routers' own match(), in the order Koa runs them.
 */
import { type IncomingHttpHeaders, METHODS } from 'node:http';

import { controlsOf, CorsCore, oneMethodList, type CoreSettings, type CorsControls, type TableRef } from '../core/cors-core.js';
import { routingMethod } from '../core/decision.js';
import { RouteRegistrationError } from '../core/errors.js';
import { faultReporter } from '../core/line-limit.js';
import type { CorsOptions } from '../core/options.js';
import {
  exclusiveDeclarations,
  type FrameworkRoute,
  FrameworkRoutes,
  type MaybeMarked,
  markRoute,
  type MethodDeclaration,
  methodSet,
  policyDeclarations,
  registerRoutes,
  ROUTE_OPTIONS,
  RoutesReadOnce,
  refuseMarkerOutsideRoute,
  samePatterns,
} from './framework-routes.js';
import { answerRequest, readNodeHeader } from './node.js';

export * from './common-exports.js';

export type KoaCorsSettings = Omit<CoreSettings, 'matching'>;

/** What the entry point reads of a Koa context; an origin function is given the context itself. */
export interface KoaContext {
  readonly method: string;
  readonly url: string;
  readonly path: string;
  /** The path @koa/router matches instead of `path`, where a middleware before it rewrote it. */
  readonly newRouterPath?: string;
  /** As routers bound to a host match it (`host` behind a proxy that Koa trusts). */
  readonly host: string;
  readonly headers: IncomingHttpHeaders;
  readonly req: import('node:http').IncomingMessage;
  readonly res: import('node:http').ServerResponse;
  readonly app: unknown;
  respond?: boolean;
}

export type KoaMiddleware = (ctx: KoaContext, next: () => Promise<unknown>) => Promise<void>;

export interface KoaCors extends CorsControls<CorsOptions<KoaContext>>, KoaMiddleware {
  /** A route's own options, merged over the middleware's: `router.post('/login', cors.route({ allowCredentials: true }), handler)`. Runs as a no-op. */
  route(options: CorsOptions<KoaContext>): KoaMiddleware;
  /** Reads the application's routers now, instead of at the first request. */
  mirror(app: unknown): KoaCors;
}

/** A @koa/router layer: a route when it has methods, else the router's own middleware. */
interface KoaLayer {
  readonly path: string;
  readonly methods: readonly string[];
  readonly stack: readonly MaybeMarked<KoaContext>[];
  readonly regexp: RegExp;
  readonly paramNames: readonly unknown[];
}

/** What @koa/router's match() returns: `path` holds every layer matching the path, in order. */
interface KoaMatch {
  readonly path: readonly KoaLayer[];
}

type KoaMatcher = (path: string, method: string) => KoaMatch;

interface KoaRouter {
  readonly stack: KoaLayer[];
  /** The `host` option: the router runs only for requests to that host (matchHost()). */
  readonly host?: unknown;
  /** The `exclusive` option (exclusiveRoutes()). */
  readonly opts?: { readonly exclusive?: unknown };
  register(...args: unknown[]): unknown;
  match: KoaMatcher;
  matchHost(host: string): boolean;
}

/** The routes of an application's routers, with whether any router is bound to a host. */
interface KoaRoutes {
  readonly routes: FrameworkRoutes;
  readonly hostBound: boolean;
}

/**
 * Validates `options` (throwing `CorsOptionsError` on a bad one) and returns the middleware, to
 * `app.use()` before the routers. Paths no route matches are not covered.
 */
export function createCors(options?: CorsOptions<KoaContext>, settings: KoaCorsSettings = {}): KoaCors {
  const core = new CorsCore(options, { ...settings, source: settings.source ?? 'createCors() of @lib/cors/koa' });
  const routesOnce = new RoutesReadOnce(core, mirrorKoa);

  const middleware = async function koaCors(ctx: KoaContext, next: () => Promise<unknown>): Promise<void> {
    const { routes, hostBound } = routesOnce.current ?? routesOnce.read(ctx.app);
    const method = routingMethod(ctx.method, ctx, readNodeHeader);
    // The path the routers will match: @koa/router takes a rewritten one (ctx.newRouterPath, set by
    // a middleware before this one) over ctx.path.
    const table = routes.tableFor(ctx.newRouterPath || ctx.path, method, ctx.method, hostBound ? ctx.host : undefined);
    if (table === undefined) {
      await next();
      return;
    }
    const answered = answerRequest(core, table, ctx, ctx.res);
    const goOn = answered === true || answered === false ? answered : await answered;
    if (!goOn) {
      // The engine has answered on the raw response: Koa must not answer again.
      ctx.respond = false;
      return;
    }
    try {
      await next();
    } catch (error) {
      // Koa's error answer removes every header, then sets `error.headers`: the grant goes there,
      // so a page can read the error too (rows 3 and 5).
      if (error !== null && typeof error === 'object') {
        const kept: Record<string, unknown> = {};
        for (const name of ctx.res.getHeaderNames()) if (name.startsWith('access-control-') || name === 'vary') kept[name] = ctx.res.getHeader(name);
        const own = (error as { headers?: Record<string, unknown> }).headers;
        (error as { headers?: Record<string, unknown> }).headers = { ...kept, ...own };
      }
      throw error;
    }
  } as KoaCors;
  middleware.route = (routeOptions) => markRoute((_ctx: KoaContext, next: () => Promise<unknown>) => next() as Promise<void>, routeOptions);
  Object.assign(middleware, controlsOf<CorsOptions<KoaContext>>(core));
  middleware.mirror = (app) => {
    routesOnce.read(app);
    return middleware;
  };
  return middleware;
}

/** The routers of `app` (its middleware made by router.routes()), their routes' tables, and the walk. */
function mirrorKoa(core: CorsCore, instance: unknown): KoaRoutes {
  const stack = (instance as { middleware?: unknown } | null)?.middleware;
  if (!Array.isArray(stack)) {
    const fix = 'app.use() the middleware on the Koa application, before its routers';
    throw new RouteRegistrationError('CORS_NOT_A_ROUTER', `${core.source}.mirror()`, instance, 'is not a Koa application', fix);
  }
  const routers: KoaRouter[] = [];
  for (const middleware of stack) {
    const router = routerOf(middleware);
    if (router !== undefined) {
      if (!routers.includes(router)) routers.push(router);
    } else if ((middleware as { name?: string }).name === 'mount' || (middleware as { name?: string }).name === 'mountedApp') {
      throw new RouteRegistrationError(
        'CORS_MOUNT_UNSEEN',
        `${core.source}.mirror()`,
        'a mounted application',
        'is mounted with koa-mount, whose routes cannot be read from outside it',
        'use a nested @koa/router router (router.use("/prefix", inner.routes())) instead, or give the mounted application its own middleware',
      );
    } else if ((middleware as MaybeMarked<KoaContext>)[ROUTE_OPTIONS] !== undefined) {
      refuseMarkerOutsideRoute(core.source, 'app.use()', KOA_MARKER_EXAMPLE);
    }
  }
  // A layer's table only: the route the walk hands on is made for the paths walked, not for each
  // of 100,000 layers (40 bytes a route).
  const tables = new Map<KoaLayer, TableRef>();
  const matchers: { router: KoaRouter; match: KoaMatcher; exclusive: Exclusive | undefined }[] = [];
  const claimed = new Map<RegExp, KoaRouter>();
  for (const router of routers) {
    registerLayers(core, router, tables, claimed);
    matchers.push({ router, match: matchSharedWith(router), exclusive: exclusiveOf(router) });
    refuseLateRoutes(core, router);
  }
  refuseLateRouters(core, instance as { use(middleware: unknown): unknown });
  // A router bound to a host (as `if (!host)` in matchHost() reads the option) runs only for
  // requests to it: its routes decide no other host's requests, which a later router may take.
  const hostBound = routers.some((router) => Boolean(router.host));
  // @koa/router tries its layers in order, router by router as Koa runs them.
  const routes = new FrameworkRoutes((pathname, requestMethod, host) => {
    const found: FrameworkRoute[] = [];
    for (const { router, match, exclusive } of matchers) {
      if (host !== undefined && !router.matchHost(host)) continue;
      const matched = match(pathname, requestMethod).path;
      if (matched.some((layer) => layer.methods.length > 0 && !tables.has(layer))) {
        // A route added in a way the late-route check does not see: covered by nothing, never by
        // a later route's policy.
        faultReporter(core.logger)(`${core.source}: a route matching ${pathname} was added after the routes were read; it gets no CORS headers`);
        return found;
      }
      if (exclusive === undefined) {
        for (const layer of matched) if (layer.methods.length > 0) found.push({ methods: methodSet(layer.methods), ref: tables.get(layer)! });
      } else found.push(...exclusiveRoutes(matched, exclusive, tables));
    }
    return found;
  });
  return { routes, hostBound };
}

/** @koa/router's `exclusive` option, as its dispatch reads it: the last layer matched runs, or the one with the fewest parameters. */
type Exclusive = 'last' | 'specificity';

function exclusiveOf(router: KoaRouter): Exclusive | undefined {
  const exclusive = router.opts?.exclusive;
  if (!exclusive) return undefined;
  return exclusive === 'specificity' ? 'specificity' : 'last';
}

/**
 * The routes an exclusive router runs on a URL (`matched`: its layers matching it), each with the
 * methods it runs there: for a method, of the layers that serve it (a route naming it, or the
 * router's own middleware), @koa/router runs one alone, the last (`exclusive: true`) or the first
 * with the fewest parameters (`'specificity'`). A method whose layer is middleware runs no route;
 * where that leaves a path's method unrun on the URL, the path is answered there for the methods
 * it runs alone (`only`). Listed in the router's order, so that the first stays the first matched.
 */
function exclusiveRoutes(matched: readonly KoaLayer[], exclusive: Exclusive, tables: ReadonlyMap<KoaLayer, TableRef>): FrameworkRoute[] {
  const runs = new Map<KoaLayer, string[]>();
  for (const method of new Set(matched.flatMap((layer) => layer.methods))) {
    let chosen: KoaLayer | undefined;
    for (const layer of matched) {
      if (layer.methods.length > 0 && !layer.methods.includes(method)) continue;
      if (chosen === undefined || exclusive === 'last' || layer.paramNames.length < chosen.paramNames.length) chosen = layer;
    }
    if (chosen === undefined || chosen.methods.length === 0) continue;
    const methods = runs.get(chosen);
    if (methods === undefined) runs.set(chosen, [method]);
    else methods.push(method);
  }
  // Per path (its routes all match the URL, as they share its pattern): the methods it declares, and those run.
  const paths = new Map<unknown, { declared: Set<string>; run: Set<string> }>();
  const pathOf = (layer: KoaLayer) => {
    const table = tables.get(layer)!.table;
    const key = table.byMethod ?? table;
    let path = paths.get(key);
    if (path === undefined) {
      path = { declared: new Set(), run: new Set() };
      paths.set(key, path);
    }
    return path;
  };
  for (const layer of matched) {
    if (layer.methods.length === 0) continue;
    const path = pathOf(layer);
    for (const method of layer.methods) path.declared.add(method);
    for (const method of runs.get(layer) ?? []) path.run.add(method);
  }
  return matched.flatMap((layer) => {
    const methods = runs.get(layer);
    if (methods === undefined) return [];
    const route: FrameworkRoute = { methods: methodSet(methods), ref: tables.get(layer)! };
    const { declared, run } = pathOf(layer);
    return [run.size === declared.size ? route : { ...route, only: [...declared].filter((method) => run.has(method)) }];
  });
}

/**
 * The router's own match(), for the walk, whose result the router's dispatch then takes instead
 * of matching the same path and method again: the request that walks runs each route's pattern
 * once, as it would without CORS (at 100,000 routes, a pass over them costs seconds on a first
 * request, as V8 compiles each pattern at its first and second run). The result is handed over
 * once, fresh: the router keeps and extends its `path` list as `ctx.matched`. A result that
 * waited while another request walked is that of another request with the same path and
 * method, which the router's match() would have returned alike.
 */
function matchSharedWith(router: KoaRouter): KoaMatcher {
  const match = router.match;
  let handed: { path: string; method: string; result: KoaMatch } | undefined;
  Object.assign(router, {
    match(this: KoaRouter, path: string, method: string): KoaMatch {
      const waiting = handed;
      handed = undefined;
      if (waiting !== undefined && waiting.path === path && waiting.method === method) return waiting.result;
      return match.call(this, path, method);
    },
  });
  return (path, method) => {
    const result = match.call(router, path, method);
    handed = { path, method, result };
    return result;
  };
}

const KOA_MARKER_EXAMPLE = "router.get('/internal/report', cors.route(options), handler)";

/** How a Koa route is named in errors, made only when one is thrown. */
const koaRouteLabel = (methods: readonly string[], path: string): string => `Koa route ${methods.join(',')} ${path}`;

/**
 * Registers the routes of `router`, each with its table, the routes of a path weighed together
 * as the router runs them: the first that serves a method, or for an exclusive router the one
 * it runs alone (routes of one path have as many parameters, so 'specificity' runs the first).
 */
function registerLayers(core: CorsCore, router: KoaRouter, tables: Map<KoaLayer, TableRef>, claimed: Map<RegExp, KoaRouter>): void {
  const pathOf = samePatterns();
  // A router used in another without a path (outer.use(inner.routes())) lends it its layers'
  // RegExps: the same path in two routers is two paths still, each run by its own router's rules.
  const aliases = new Map<RegExp, RegExp>();
  const keyOf = (regexp: RegExp): RegExp => {
    const key = pathOf(regexp);
    const owner = claimed.get(key);
    if (owner === undefined) claimed.set(key, router);
    if (owner === undefined || owner === router) return key;
    let alias = aliases.get(key);
    if (alias === undefined) {
      alias = new RegExp(key.source, key.flags);
      aliases.set(key, alias);
    }
    return alias;
  };
  const routes: { route: KoaLayer; key: RegExp }[] = [];
  for (const layer of router.stack) {
    if (layer.methods.length > 0 && layer.stack.some((handler) => routerOf(handler) !== undefined)) {
      // @koa/router runs it for the route's requests, yet it is no nested router: its routes go unread.
      throw new RouteRegistrationError(
        'CORS_MOUNT_UNSEEN',
        `${core.source}.mirror()`,
        layer.path,
        "is a route whose handler is a router's routes(), whose routes cannot be read from a route's handlers",
        "nest the router with router.use() (router.use('/api', inner.routes())) instead",
      );
    }
    if (layer.methods.length > 0) routes.push({ route: layer, key: keyOf(layer.regexp) });
    else if (layer.stack.some((handler) => handler[ROUTE_OPTIONS] !== undefined)) {
      refuseMarkerOutsideRoute(core.source, `router.use('${layer.path || '/'}')`, KOA_MARKER_EXAMPLE);
    }
  }
  const exclusive = exclusiveOf(router);
  const registered = registerRoutes(
    routes,
    declarationsOf,
    (declaration) => register(core, declaration),
    ({ route, method, options }) => core.checkRoute(oneMethodList(method), route.path, options, koaRouteLabel),
    exclusive === undefined ? policyDeclarations : (declarations) => exclusiveDeclarations(declarations, exclusive === 'last' ? 'last' : 'first'),
  );
  for (const [layer, table] of registered) tables.set(layer, table);
}

/** A route of every method: router.all() declares one naming each method node:http knows. */
function servesEveryMethod(layer: KoaLayer): boolean {
  return layer.methods.length >= METHODS.length && METHODS.every((method) => layer.methods.includes(method));
}

/** One method of a route, with the options of the route's cors.route() marker, if any. */
interface KoaDeclaration extends MethodDeclaration<KoaLayer> {
  readonly key: RegExp;
  readonly options: CorsOptions<KoaContext> | undefined;
}

function declarationsOf({ route: layer, key }: { route: KoaLayer; key: RegExp }): KoaDeclaration[] {
  const options = layer.stack.find((handler) => handler[ROUTE_OPTIONS] !== undefined)?.[ROUTE_OPTIONS];
  const everyMethod = servesEveryMethod(layer);
  // @koa/router lists HEAD before GET; the tables add HEAD after GET themselves. A route of every
  // method keeps its HEAD: a HEAD route declared after it, which it runs HEAD for, then conflicts.
  const methods = layer.methods.includes('GET') && !everyMethod ? layer.methods.filter((method) => method !== 'HEAD') : [...new Set(layer.methods)];
  return methods.map((method) => ({ route: layer, key, method, options, everyMethod }));
}

function register(core: CorsCore, { key, route, method, options }: KoaDeclaration): TableRef {
  return core.routeMatchedElsewhere(key, oneMethodList(method), route.path, options, koaRouteLabel);
}

/** After the mirror, a route registered on `router` throws where it is declared: it would have no policy. */
/** After the mirror, a router app.use()d throws where it is used: its routes would have no policy, or an earlier router's. */
function refuseLateRouters(core: CorsCore, app: { use(middleware: unknown): unknown }): void {
  const use = app.use;
  Object.assign(app, {
    use(this: unknown, middleware: unknown) {
      if (routerOf(middleware) !== undefined) {
        throw new RouteRegistrationError(
          'CORS_ROUTES_SEALED',
          `${core.source}: a router's routes()`,
          'the Koa application',
          'comes after the first request (or mirror()) read the routes',
          'declare every route before the server starts serving',
        );
      }
      return use.call(this, middleware);
    },
  });
}

/** The router behind a router.routes() middleware, which carries it as `.router`. */
function routerOf(middleware: unknown): KoaRouter | undefined {
  const router = (middleware as { router?: KoaRouter } | null)?.router;
  return router !== undefined && Array.isArray(router.stack) ? router : undefined;
}

function refuseLateRoutes(core: CorsCore, router: KoaRouter): void {
  Object.assign(router, {
    register: (path: unknown) => {
      throw new RouteRegistrationError(
        'CORS_ROUTES_SEALED',
        `${core.source}: a route ${String(path)}`,
        'the Koa router',
        'comes after the first request (or mirror()) read the routes',
        'declare every route before the server starts serving',
      );
    },
  });
}
