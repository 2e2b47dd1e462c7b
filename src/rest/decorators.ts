/** The REST decorators: modules (with path prefixes), controllers and routes. */
import { defineModule, StartupError, tokenName, type Class, type DynamicModule, type ModuleMetadata, type ProviderList } from '@lib/core';

import { isHttpMethod, type HttpMethod } from './http-methods.js';

/** An import under a path prefix, `{ module, path: 'admin' }`, joined to the importer's; with or without providers of its own. */
export interface RestDynamicModule extends DynamicModule {
  path?: string;
}

export type RestModuleImport = Class | RestDynamicModule;

export interface RestModuleMetadata extends ModuleMetadata<RestModuleImport> {
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
  readonly method: HttpMethod;
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
    if (!isHttpMethod(method)) {
      throw new StartupError(
        `@route(${JSON.stringify(method)}) on ${owner}.${propertyKey}: not an HTTP method Node.js serves; use an upper-case method such as 'GET'.`,
      );
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
