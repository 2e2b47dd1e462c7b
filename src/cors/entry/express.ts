/**
 * `@lib/cors/express`: one `app.use()` line before the routes of an Express 4 or 5 application.
 * The routes' policies are read from the application itself, and each request gets the policy of
 * the route Express will run for it, found by Express's own matcher.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { controlsOf, CorsCore, type CoreSettings, type CorsControls } from '../core/cors-core.js';
import { RouteRegistrationError } from '../core/errors.js';
import { faultReporter } from '../core/line-limit.js';
import type { CorsOptions } from '../core/options.js';
import { GLOBAL_METHODS } from '../core/path-table.js';
import {
  type FrameworkRoute,
  FrameworkRoutes,
  type MaybeMarked,
  markRoute,
  methodSet,
  pathnameOf,
  ROUTE_OPTIONS,
  RoutesReadOnce,
  routingMethod,
} from './framework-routes.js';
import { type Next, readNodeHeader, respond } from './node.js';

export * from './common-exports.js';
export { setCorsCookie, type CookieOptions } from './credentials.js';

export type ExpressCorsSettings = Omit<CoreSettings, 'matching'>;

/** What the mirror reads of an Express application: its router, under its version's name. */
interface ExpressApp {
  readonly _router?: ExpressRouter;
  readonly router?: ExpressRouter;
}

/** An Express router (app's or `express.Router()`): a function with a stack of layers. */
interface ExpressRouter {
  readonly stack: ExpressLayer[];
  route(...args: unknown[]): unknown;
  use(...args: unknown[]): unknown;
}

interface ExpressLayer {
  readonly handle: MaybeMarked<IncomingMessage> & { readonly stack?: unknown };
  readonly name: string;
  readonly route?: ExpressRoute;
  /** Express 4: a boolean, the matched part then in `path`; Express 5: the match or `false`. */
  match(path: string): boolean | { readonly path: string } | false;
  readonly path?: string;
  /** Express 5 keeps the declared path; Express 4 only its compiled RegExp. */
  readonly rawPath?: unknown;
  readonly regexp?: RegExp;
  /** A route's own layers carry their method (lower case). */
  readonly method?: string;
}

interface ExpressRoute {
  readonly path: unknown;
  readonly methods: Record<string, boolean | undefined>;
  readonly stack: ExpressLayer[];
}

export type ExpressMiddleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

/** The middleware, with the calls that go with it. */
export interface ExpressCors extends CorsControls<CorsOptions<IncomingMessage>>, ExpressMiddleware {
  /**
   * A route's own options, merged field by field over the middleware's, the Express way:
   * `app.post('/login', cors.route({ allowCredentials: true }), handler)`. Runs as a no-op.
   */
  route(options: CorsOptions<IncomingMessage>): ExpressMiddleware;
  /**
   * Reads the application's routes now, instead of at the first request; errors in them (bad
   * route options, a mounted application) then throw here, at start-up.
   */
  mirror(app: unknown): ExpressCors;
}

/**
 * Validates `options` (throwing `CorsOptionsError` on a bad one) and returns the middleware, to
 * `app.use()` before the routes. Paths that no route of the application matches are not covered:
 * the request goes on untouched. An origin function is given the IncomingMessage.
 */
export function createCors(options?: CorsOptions<IncomingMessage>, settings: ExpressCorsSettings = {}): ExpressCors {
  const core = new CorsCore(options, { ...settings, source: settings.source ?? 'createCors() of @lib/cors/express' });
  const routesOnce = new RoutesReadOnce(core, mirrorExpress);

  const middleware = function expressCors(req: IncomingMessage, res: ServerResponse, next: Next): void {
    const routes = routesOnce.current ?? routesOnce.read((req as { app?: unknown }).app);
    // Mounted (app.use('/api', cors), or inside a mounted router), Express has cut the prefix off
    // req.url; the routes are matched from the application's top, on the whole path.
    const mounted = (req as { baseUrl?: string }).baseUrl;
    const url = mounted === undefined || mounted === '' ? (req.url ?? '/') : ((req as { originalUrl?: string }).originalUrl ?? '/');
    const method = routingMethod(req.method, req, readNodeHeader);
    const table = routes.tableFor(pathnameOf(url), method);
    if (table === undefined) return next();
    respond(core, table, req, res, next);
  } as ExpressCors;
  middleware.route = (routeOptions) => markRoute((_req: IncomingMessage, _res: ServerResponse, next: Next) => next(), routeOptions);
  Object.assign(middleware, controlsOf<CorsOptions<IncomingMessage>>(core));
  middleware.mirror = (app) => {
    routesOnce.read(app);
    return middleware;
  };
  return middleware;
}

/** Every route of `app`, its tables built, and the walk that finds a path's routes as Express does. */
function mirrorExpress(core: CorsCore, instance: unknown): FrameworkRoutes {
  const app = instance as ExpressApp | null | undefined;
  const router = app?._router ?? app?.router;
  if (router === undefined || !Array.isArray(router.stack)) {
    const fix = 'app.use() the middleware on the Express application, before its routes';
    throw new RouteRegistrationError('CORS_NOT_A_ROUTER', `${core.source}.mirror()`, instance, 'is not an Express application with routes', fix);
  }
  const entries = new Map<ExpressRoute, FrameworkRoute>();
  const routers: ExpressRouter[] = [];
  collect(core, router, '', entries, routers);
  for (const seen of routers) refuseLateRoutes(core, seen);
  const express4 = router.stack.length > 0 && typeof (router.stack[0] as { handle_request?: unknown }).handle_request === 'function';
  return new FrameworkRoutes((pathname) => {
    const found: FrameworkRoute[] = [];
    walk(router.stack, pathname, entries, found, express4, core);
    return found;
  });
}

/** Registers the routes of `router` (mounted at `prefix`, for names in errors), depth first, in Express's order. */
function collect(core: CorsCore, router: ExpressRouter, prefix: string, entries: Map<ExpressRoute, FrameworkRoute>, routers: ExpressRouter[]): void {
  routers.push(router);
  const routerIndex = routers.length - 1;
  for (const layer of router.stack) {
    const route = layer.route;
    if (route !== undefined) {
      entries.set(route, registerRoute(core, route, `${routerIndex}\n${String(layer.regexp ?? layer.rawPath ?? route.path)}`, prefix + pathName(route.path)));
      continue;
    }
    const inner = layer.handle as unknown as Partial<ExpressRouter>;
    if (Array.isArray(inner.stack)) {
      collect(core, inner as ExpressRouter, prefix + mountName(layer), entries, routers);
    } else if (layer.name === 'mounted_app') {
      throw new RouteRegistrationError(
        'CORS_MOUNT_UNSEEN',
        `${core.source}.mirror()`,
        prefix + mountName(layer),
        'mounts an Express application, whose routes cannot be read from outside it',
        'mount an express.Router() there instead, or give the mounted application its own @lib/cors/express middleware',
      );
    }
  }
}

/** A route's tables: per method, the options of its cors.route() marker for that method, if any. */
function registerRoute(core: CorsCore, route: ExpressRoute, key: string, path: string): FrameworkRoute {
  const every = route.methods._all === true;
  const methods = every
    ? GLOBAL_METHODS
    : Object.keys(route.methods)
        .filter((method) => route.methods[method] === true)
        .map((method) => method.toUpperCase());
  let ref: FrameworkRoute['ref'] | undefined;
  for (const method of methods) {
    const marker = route.stack.find(
      (layer) => layer.handle[ROUTE_OPTIONS] !== undefined && (layer.method === undefined || layer.method === '_all' || layer.method.toUpperCase() === method),
    );
    ref = core.routeMatchedElsewhere(key, [method], path, marker?.handle[ROUTE_OPTIONS], `Express route ${method} ${path}`);
  }
  return { methods: every ? undefined : methodSet(methods), ref: ref! };
}

/**
 * Appends the routes matching `path` under `stack`, in order, matched as Express's router
 * matches them (router/index.js: each layer's own match(), a mount's prefix cut off at a path
 * separator). Returns `false` where Express would stop routing: a path it cannot decode.
 */
function walk(
  stack: readonly ExpressLayer[],
  path: string,
  entries: Map<ExpressRoute, FrameworkRoute>,
  found: FrameworkRoute[],
  express4: boolean,
  core: CorsCore,
): boolean {
  for (const layer of stack) {
    let matched: string | undefined;
    try {
      const match = layer.match(path);
      matched = match === true ? layer.path : match === false ? undefined : match.path;
    } catch {
      // Express then skips every later route and answers with an error: no policy applies.
      return false;
    }
    if (matched === undefined) continue;
    const route = layer.route;
    if (route !== undefined) {
      const entry = entries.get(route);
      if (entry === undefined) {
        // A route added in a way the late-route check does not see: covered by nothing, never by
        // another route's policy.
        faultReporter(core.logger)(`${core.source}: a route matching ${path} was added after the routes were read; it gets no CORS headers`);
        return false;
      }
      found.push(entry);
      continue;
    }
    const inner = layer.handle as unknown as Partial<ExpressRouter>;
    if (!Array.isArray(inner.stack)) continue;
    const next = path[matched.length];
    if (next !== undefined && next !== '/' && !(express4 && next === '.')) continue;
    const rest = path.slice(matched.length);
    if (!walk(inner.stack, rest.startsWith('/') ? rest : `/${rest}`, entries, found, express4, core)) return false;
  }
  return true;
}

/** After the mirror, a route declared on `router` throws where it is declared: it would have no policy. */
function refuseLateRoutes(core: CorsCore, router: ExpressRouter): void {
  const late = (what: string): never => {
    throw new RouteRegistrationError(
      'CORS_ROUTES_SEALED',
      `${core.source}: ${what}`,
      'the Express application',
      'comes after the first request (or mirror()) read its routes',
      'declare every route before the server starts serving',
    );
  };
  const use = router.use;
  Object.assign(router, {
    route: (path: unknown) => late(`a route ${String(path)}`),
    use(...args: unknown[]) {
      if (args.some((arg) => typeof arg === 'function' && Array.isArray((arg as { stack?: unknown }).stack))) late('a router mounted');
      return use.apply(this, args);
    },
  });
}

function pathName(path: unknown): string {
  return typeof path === 'string' ? path : String(path);
}

/** A mount's path for names in errors: Express 5 keeps it; from Express 4's RegExp, a plain prefix is read back. */
function mountName(layer: ExpressLayer): string {
  if (typeof layer.rawPath === 'string') return layer.rawPath === '/' ? '' : layer.rawPath;
  const source = layer.regexp?.source ?? '';
  if (source === '^\\/?(?=\\/|$)') return '';
  const plain = /^\^((?:\\\/[\w.-]+)+)\\\/\?\(\?=\\\/\|\$\)$/.exec(source);
  return plain === null ? `<${source}>` : plain[1]!.replaceAll('\\/', '/');
}
