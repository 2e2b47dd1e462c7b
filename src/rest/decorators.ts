import { METHODS } from 'node:http';

import { defineModule, StartupError, tokenName, type Class, type ModuleMetadata, type ProviderList } from '@lib/core';

export interface RestModuleMetadata extends ModuleMetadata {
  controllers?: readonly Class[];
}

/** The application's root module: what `RestApplication.create()` starts from. */
export function restRootModule(metadata: RestModuleMetadata = {}): ClassDecorator {
  return defineModule<RestModuleMetadata>('root', metadata);
}

/** A feature module, imported by another (optionally under a path prefix: `{ module, path }`). */
export function restModule(metadata: RestModuleMetadata = {}): ClassDecorator {
  return defineModule<RestModuleMetadata>('feature', metadata);
}

export interface ControllerOptions {
  /** Route-level providers for this controller's routes, winning over the module's. */
  providersPerRou?: ProviderList;
  providersPerReq?: ProviderList;
}

export interface RouteMetadata {
  readonly method: string;
  readonly path: string;
  readonly propertyKey: string;
}

const CONTROLLER = Symbol('controller');
const ROUTES = Symbol('routes');

/** A class whose methods answer routes. It is built per request, so it may inject RequestContext. */
export function controller(options: ControllerOptions = {}): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(CONTROLLER, options, target);
  };
}

/** Makes the method answer `method` on `path` (relative to the module's prefix; none means its root). */
export function route(method: string, path = ''): MethodDecorator {
  return (target, propertyKey) => {
    const owner = tokenName(target.constructor);
    if (typeof propertyKey !== 'string') throw new StartupError(`@route() on ${owner}: a route method needs a string name.`);
    if (!METHODS.includes(method)) {
      throw new StartupError(`@route(${JSON.stringify(method)}) on ${owner}.${propertyKey}: not an HTTP method Node.js serves; use an upper-case method such as 'GET'.`);
    }
    const routes: RouteMetadata[] = Reflect.getOwnMetadata(ROUTES, target.constructor) ?? [];
    routes.push({ method, path, propertyKey });
    Reflect.defineMetadata(ROUTES, routes, target.constructor);
  };
}

export function getControllerOptions(cls: Class): ControllerOptions | undefined {
  return Reflect.getOwnMetadata(CONTROLLER, cls);
}

export function getRoutes(cls: Class): readonly RouteMetadata[] {
  return Reflect.getOwnMetadata(ROUTES, cls) ?? [];
}
