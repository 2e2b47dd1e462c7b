/** Routes: collected from controllers and init hooks, each compiled into a handler with its injector blueprint. */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { InjectorBlueprint, providerToken, readDependencies, StartupError, tokenName, type Class, type Injector, type Provider } from '@lib/core';

import { getControllerOptions, getRoutes } from './decorators.js';
import { joinPath, type RestModuleNode, type RestModuleTree } from './modules.js';
import { RequestContext } from './request-context.js';
import { isHttpMethod, type HttpMethod } from './http-methods.js';

/** A route as init hooks see it. */
export interface RouteInfo {
  readonly method: string;
  /** The full path, module prefixes included. */
  readonly path: string;
  /** `undefined` for a route an init hook added. */
  readonly controller: Class | undefined;
  /** The module whose route it is. */
  readonly module: Class;
  /** Route-level providers: the module's (and what its imports export at that level), then the controller's. */
  readonly providers: readonly Provider[];
  /** The route-level injector (its parents: the module's, then the application's). */
  readonly injector: Injector;
}

/** A handler of a route an init hook adds: it gets the request's context, and may return a value to send. */
export type RouteHandler = (ctx: RequestContext) => unknown;

/** What the router calls: compiled once per route. */
export type CompiledRoute = (req: IncomingMessage, res: ServerResponse, params: Record<string, string | undefined>, rawQuery: string) => unknown;

export interface RouteDefinition extends RouteInfo {
  readonly method: HttpMethod;
  readonly node: RestModuleNode;
  /** Who declared it, named in errors: `UsersController.list`, or the hook. */
  readonly source: string;
  readonly compile: () => CompiledRoute;
  /** Set on a route of addRouteOnPaths(): served through its path's routes, with no router entry. */
  readonly onPaths?: PathRouteGroup;
}

/** One addRouteOnPaths() call: its paths (each a route path of `node`), answered by one handler. */
export interface PathRouteGroup {
  readonly node: RestModuleNode;
  readonly paths: ReadonlySet<string>;
  readonly source: string;
}

/** The routes of one module's controllers, each with its route injector and a compiler for its handler. */
export function collectControllerRoutes(tree: RestModuleTree, node: RestModuleNode): RouteDefinition[] {
  const moduleInjector = tree.moduleInjector(node);
  const moduleRouteProviders = tree.providersAt(node, 'providersPerRou');
  const moduleRequestProviders = tree.providersAt(node, 'providersPerReq');
  return (node.metadata.controllers ?? []).flatMap((controllerClass) => {
    const options = getControllerOptions(controllerClass);
    if (options === undefined) {
      throw new StartupError(`${tokenName(controllerClass)} is in the controllers of ${node.name} but has no @controller() decorator.`);
    }
    const routes = getRoutes(controllerClass);
    if (routes.length === 0) throw new StartupError(`${tokenName(controllerClass)} (in ${node.name}) has no @route() method.`);
    const group = new ControllerRoutes(
      controllerClass,
      node,
      moduleInjector,
      [...moduleRouteProviders, ...(options.providersPerRou ?? [])],
      [...moduleRequestProviders, ...(options.providersPerReq ?? [])],
    );
    const own = routes.map(({ method, path, propertyKey }) => new ControllerRoute(method, joinPath(node.place, path), group, propertyKey));
    group.checkRouteLevel(own[0]!);
    return own;
  });
}

/**
 * What the routes of one controller in one module share: their providers, their checks and, where
 * no route level of their own holds anything, their compiled handlers. At 100,000 routes an
 * injector, a blueprint and a closure per route cost more than the router itself.
 */
class ControllerRoutes {
  /** Compiled handlers by method name, for routes that need no injector of their own. */
  readonly #compiled = new Map<string, CompiledRoute>();
  /** Decided at the first compile: whether each route gets a handler of its own. */
  #perRoute: boolean | undefined;

  constructor(
    readonly controller: Class,
    readonly node: RestModuleNode,
    readonly moduleInjector: Injector,
    /** Route-level providers: the module's (and its imports' exports), then the controller's. */
    readonly providers: readonly Provider[],
    readonly requestProviders: readonly Provider[],
  ) {}

  /** A route level with no providers holds no values: its injector is only a label, made when asked for. */
  get routeLevelEmpty(): boolean {
    return this.providers.length === 0;
  }

  /**
   * Proves the route-level providers resolvable, once for the controller: every route of it has the
   * same providers under the same module, so `first` fails exactly as any other would.
   */
  checkRouteLevel(first: ControllerRoute): void {
    for (const provider of this.providers) first.injector.blueprint.check(providerToken(provider));
  }

  compile(route: ControllerRoute): CompiledRoute {
    if (this.#perRoute === undefined) {
      // The controller and its request level, proven once, under the first route compiled: the
      // checks read nothing of the route but its labels, so it fails as any route of it would.
      checkControllerRoute(this.controller, route.injector, this.requestProviders, requestLabel(route));
      // A route level with values, or a request injector (whose label names its route), is the
      // route's own; otherwise the routes of one method share one handler.
      this.#perRoute = !this.routeLevelEmpty || needsRequestInjector(this.controller, this.requestProviders);
    }
    if (this.#perRoute) return compileControllerRoute(this.controller, route.propertyKey, route.injector, this.requestProviders, requestLabel(route));
    let compiled = this.#compiled.get(route.propertyKey);
    if (compiled === undefined) {
      compiled = compileControllerRoute(this.controller, route.propertyKey, route.injector, this.requestProviders, requestLabel(route));
      this.#compiled.set(route.propertyKey, compiled);
    }
    return compiled;
  }
}

const requestLabel = (route: RouteInfo): string => `request ${route.method} ${route.path}`;

/** A controller's route: what it has of its own is its method, path and method name; the rest is its controller's. */
class ControllerRoute implements RouteDefinition {
  #injector: Injector | undefined;

  constructor(
    readonly method: HttpMethod,
    readonly path: string,
    readonly group: ControllerRoutes,
    readonly propertyKey: string,
  ) {}

  get controller(): Class {
    return this.group.controller;
  }
  get node(): RestModuleNode {
    return this.group.node;
  }
  get module(): Class {
    return this.group.node.moduleClass;
  }
  get providers(): readonly Provider[] {
    return this.group.providers;
  }
  get source(): string {
    return `${tokenName(this.group.controller)}.${this.propertyKey}`;
  }
  /** Made on first use: most routes have no route-level providers, and then nothing reads it but an error message. */
  get injector(): Injector {
    this.#injector ??= routeInjector(this.method, this.path, this.group.providers, this.group.moduleInjector);
    return this.#injector;
  }

  compile(): CompiledRoute {
    return this.group.compile(this);
  }
}

/** A route an init hook adds: its injector, at the importing module's route level, made on first use. */
class HookRoute implements RouteDefinition {
  readonly controller = undefined;
  #injector: Injector | undefined;

  constructor(
    readonly method: HttpMethod,
    readonly path: string,
    readonly node: RestModuleNode,
    readonly providers: readonly Provider[],
    readonly source: string,
    readonly handler: RouteHandler,
    readonly moduleInjector: Injector,
  ) {}

  get module(): Class {
    return this.node.moduleClass;
  }
  get injector(): Injector {
    this.#injector ??= routeInjector(this.method, this.path, this.providers, this.moduleInjector);
    return this.#injector;
  }

  compile(): CompiledRoute {
    const handler = this.handler;
    return (req, res, params, rawQuery) => handler(new RequestContext(req, res, params, rawQuery));
  }
}

/** A route of addRouteOnPaths(): listed and introspected as its own, served through its path's routes. */
class PathRoute implements RouteDefinition {
  readonly controller = undefined;
  #injector: Injector | undefined;

  constructor(
    readonly method: HttpMethod,
    readonly path: string,
    /** What the routes of one call share: a route holds only its method and path (there may be 100,000). */
    readonly onPaths: PathRouteGroup & { readonly providers: readonly Provider[]; readonly handler: RouteHandler; readonly moduleInjector: Injector },
  ) {}

  get node(): RestModuleNode {
    return this.onPaths.node;
  }
  get module(): Class {
    return this.onPaths.node.moduleClass;
  }
  get providers(): readonly Provider[] {
    return this.onPaths.providers;
  }
  get source(): string {
    return this.onPaths.source;
  }
  get injector(): Injector {
    this.#injector ??= routeInjector(this.method, this.path, this.onPaths.providers, this.onPaths.moduleInjector);
    return this.#injector;
  }

  compile(): CompiledRoute {
    const handler = this.onPaths.handler;
    return (req, res, params, rawQuery) => handler(new RequestContext(req, res, params, rawQuery));
  }
}

/**
 * The routes of an addRouteOnPaths() call: one per path, each a path of `own` (the module's routes)
 * without a `method` route of the module's own.
 */
export function pathRoutes(
  tree: RestModuleTree,
  node: RestModuleNode,
  providers: readonly Provider[],
  own: readonly RouteDefinition[],
  method: string,
  paths: Iterable<string>,
  handler: RouteHandler,
  source: string,
): RouteDefinition[] {
  if (!isHttpMethod(method))
    throw new StartupError(
      `${source}: addRouteOnPaths(${JSON.stringify(method)}, ...) is not an HTTP method Node.js serves; use an upper-case method such as 'OPTIONS'.`,
    );
  if (typeof handler !== 'function')
    throw new StartupError(`${source}: addRouteOnPaths(${method}, ...) takes a handler function (ctx) => ..., not ${String(handler)}.`);
  const known = new Set<string>();
  const taken = new Set<string>();
  for (const route of own) {
    known.add(route.path);
    if (route.method === method) taken.add(route.path);
  }
  const group = { node, paths: new Set(paths), source, providers, handler, moduleInjector: tree.moduleInjector(node) };
  const routes: RouteDefinition[] = [];
  for (const path of group.paths) {
    // Served only through a route of the module on that very path: any other path would never answer.
    if (!known.has(path))
      throw new StartupError(`${source}: addRouteOnPaths(${method}, ...) takes paths of ${node.name}'s routes; ${JSON.stringify(path)} is none.`);
    if (taken.has(path))
      throw new StartupError(`Duplicate route ${method} ${path}: a route of ${node.name} and ${source}. Give one of them another method or path.`);
    routes.push(new PathRoute(method, path, group));
  }
  return routes;
}

function routeInjector(method: string, path: string, providers: readonly Provider[], moduleInjector: Injector): Injector {
  return new InjectorBlueprint(`route ${method} ${path}`, [providers], moduleInjector.blueprint).instantiate(moduleInjector);
}

/**
 * A route an init hook adds, with the importing module's route-level `providers` (read once per
 * hook, shared by every route it adds).
 */
export function hookRoute(
  tree: RestModuleTree,
  node: RestModuleNode,
  providers: readonly Provider[],
  method: string,
  path: string,
  handler: RouteHandler,
  source: string,
): RouteDefinition {
  if (!isHttpMethod(method))
    throw new StartupError(
      `${source}: addRoute(${JSON.stringify(method)}, ...) is not an HTTP method Node.js serves; use an upper-case method such as 'OPTIONS'.`,
    );
  if (typeof path !== 'string' || !path.startsWith('/'))
    throw new StartupError(`${source}: addRoute() takes a full path starting with "/", not ${JSON.stringify(path)}.`);
  if (typeof handler !== 'function')
    throw new StartupError(`${source}: addRoute(${method}, ${path}) takes a handler function (ctx) => ..., not ${String(handler)}.`);
  return new HookRoute(method, joinPath(path, ''), node, providers, source, handler, tree.moduleInjector(node));
}

/** The blueprint of a controller route's request level: its request-level providers and the controller. */
function requestBlueprint(controllerClass: Class, routeInjector: Injector, requestProviders: readonly Provider[], label: string): InjectorBlueprint {
  return new InjectorBlueprint(label, [requestProviders, [controllerClass]], routeInjector.blueprint, [RequestContext]);
}

/** Proves at start-up that the controller, and every request-level provider, can be built for a request of the route. */
function checkControllerRoute(controllerClass: Class, routeInjector: Injector, requestProviders: readonly Provider[], label: string): void {
  const blueprint = requestBlueprint(controllerClass, routeInjector, requestProviders, label);
  blueprint.check(controllerClass);
  for (const provider of requestProviders) blueprint.check(providerToken(provider));
}

/** Whether the controller takes something of the request level (other than the RequestContext): then it needs a request injector. */
function needsRequestInjector(controllerClass: Class, requestProviders: readonly Provider[]): boolean {
  const requestTokens = new Set<unknown>([controllerClass, ...requestProviders.map(providerToken)]);
  return readDependencies(controllerClass).some((dep) => dep.token !== RequestContext && requestTokens.has(dep.token));
}

/**
 * The per-request work of a controller route, decided at start-up (checkControllerRoute() has
 * proven it resolvable). Unless it needs request-level providers of its own, it gets no request
 * injector: its other dependencies are resolved once, here, and only the RequestContext is
 * filled in per request.
 */
function compileControllerRoute(
  controllerClass: Class,
  propertyKey: string,
  routeInjector: Injector,
  requestProviders: readonly Provider[],
  label: string,
): CompiledRoute {
  const Controller = controllerClass as new (...args: unknown[]) => object;
  const method: unknown = Controller.prototype[propertyKey as keyof object];
  if (typeof method !== 'function') throw new StartupError(`${tokenName(controllerClass)}.${propertyKey} is not a method.`);
  const deps = readDependencies(controllerClass);
  if (needsRequestInjector(controllerClass, requestProviders)) {
    const blueprint = requestBlueprint(controllerClass, routeInjector, requestProviders, label);
    return (req, res, params, rawQuery) => {
      const ctx = new RequestContext(req, res, params, rawQuery);
      const injector = blueprint.instantiate(routeInjector, new Map([[RequestContext, ctx]]));
      return method.call(injector.get(Controller), ctx);
    };
  }
  const args = deps.map((dep) => (dep.token === RequestContext ? undefined : dep.optional ? routeInjector.get(dep.token, true) : routeInjector.get(dep.token)));
  const contextSlots = deps.flatMap((dep, index) => (dep.token === RequestContext ? [index] : []));
  if (args.length === 0) {
    // No spread of an empty list on the hot path: most controllers take nothing.
    return (req, res, params, rawQuery) => method.call(new Controller(), new RequestContext(req, res, params, rawQuery));
  }
  if (contextSlots.length === 0) {
    return (req, res, params, rawQuery) => method.call(new Controller(...args), new RequestContext(req, res, params, rawQuery));
  }
  return (req, res, params, rawQuery) => {
    const ctx = new RequestContext(req, res, params, rawQuery);
    const filled = args.slice();
    for (const slot of contextSlots) filled[slot] = ctx;
    return method.call(new Controller(...filled), ctx);
  };
}
