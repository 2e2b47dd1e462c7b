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
    return routes.map(({ method, path, propertyKey }) => {
      const fullPath = joinPath(node.place, path);
      const label = `route ${method} ${fullPath}`;
      const providers = [...moduleRouteProviders, ...(options.providersPerRou ?? [])];
      const injector = new InjectorBlueprint(label, [providers], moduleInjector.blueprint).instantiate(moduleInjector);
      for (const provider of providers) injector.blueprint.check(providerToken(provider));
      const requestProviders = [...moduleRequestProviders, ...(options.providersPerReq ?? [])];
      return {
        method,
        path: fullPath,
        controller: controllerClass,
        module: node.moduleClass,
        providers,
        injector,
        node,
        source: `${tokenName(controllerClass)}.${propertyKey}`,
        compile: () => compileControllerRoute(controllerClass, propertyKey, injector, requestProviders, `request ${method} ${fullPath}`),
      };
    });
  });
}

/** A route an init hook adds, with the importing module's route-level providers. */
export function hookRoute(tree: RestModuleTree, node: RestModuleNode, method: string, path: string, handler: RouteHandler, source: string): RouteDefinition {
  if (!isHttpMethod(method))
    throw new StartupError(
      `${source}: addRoute(${JSON.stringify(method)}, ...) is not an HTTP method Node.js serves; use an upper-case method such as 'OPTIONS'.`,
    );
  if (typeof path !== 'string' || !path.startsWith('/'))
    throw new StartupError(`${source}: addRoute() takes a full path starting with "/", not ${JSON.stringify(path)}.`);
  if (typeof handler !== 'function')
    throw new StartupError(`${source}: addRoute(${method}, ${path}) takes a handler function (ctx) => ..., not ${String(handler)}.`);
  const moduleInjector = tree.moduleInjector(node);
  const providers = tree.providersAt(node, 'providersPerRou');
  const fullPath = joinPath(path, '');
  return {
    method,
    path: fullPath,
    controller: undefined,
    module: node.moduleClass,
    providers,
    injector: new InjectorBlueprint(`route ${method} ${fullPath}`, [providers], moduleInjector.blueprint).instantiate(moduleInjector),
    node,
    source,
    compile: () => (req, res, params, rawQuery) => handler(new RequestContext(req, res, params, rawQuery)),
  };
}

/**
 * The per-request work of a controller route, decided at start-up: the controller and
 * everything it needs are proven resolvable now. Unless it needs request-level providers of
 * its own, it gets no request injector: its other dependencies are resolved once, here, and
 * only the RequestContext is filled in per request.
 */
function compileControllerRoute(
  controllerClass: Class,
  propertyKey: string,
  routeInjector: Injector,
  requestProviders: Provider[],
  label: string,
): CompiledRoute {
  const Controller = controllerClass as new (...args: unknown[]) => object;
  const method: unknown = Controller.prototype[propertyKey as keyof object];
  if (typeof method !== 'function') throw new StartupError(`${tokenName(controllerClass)}.${propertyKey} is not a method.`);
  const blueprint = new InjectorBlueprint(label, [requestProviders, [controllerClass]], routeInjector.blueprint, [RequestContext]);
  blueprint.check(controllerClass);
  for (const provider of requestProviders) blueprint.check(providerToken(provider));
  const deps = readDependencies(controllerClass);
  if (deps.some((dep) => dep.token !== RequestContext && blueprint.provides(dep.token))) {
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
