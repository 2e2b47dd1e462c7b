import { inject, injectable, Injector, optional, providerToken, tokenName, type DynamicModule, type InitHook } from '@lib/core';
import { restModule, type RestInitContext, type RouteInfo } from '@lib/rest';

import { CORS_LOGGER, CORS_MODULE_OPTIONS } from './cors-module-tokens.js';
import { CorsService } from './cors-service.js';
import { CorsEngine, layerCorsOptions } from './engine.js';
import { CorsOptions, type CorsLogger } from './options.js';

/**
 * Runs once for each module importing CorsModule: hands that module's routes, with their
 * route-level options, to one engine; adds the OPTIONS twins; puts the engine in front of the
 * router. No CORS decision is made here.
 */
@injectable()
class CorsInitHook implements InitHook<RestInitContext> {
  constructor(
    @optional() @inject(CORS_MODULE_OPTIONS) private readonly options?: CorsOptions,
    @optional() @inject(CORS_LOGGER) private readonly logger?: CorsLogger,
  ) {}

  onInit(context: RestInitContext): void {
    const moduleName = tokenName(context.module);
    const cors = new CorsEngine(this.options, { logger: this.logger, source: `CorsModule.withOpts() imported by ${moduleName}` });
    const explicitOptions = new Set<string>();
    const paths = new Set<string>();
    for (const route of context.routes) {
      const source = `${route.method} ${route.path} (${route.controller === undefined ? 'a route added by an init hook' : tokenName(route.controller)} in ${moduleName})`;
      cors.route(route.method, route.path, routeOptions(route, source), source);
      paths.add(route.path);
      if (route.method === 'OPTIONS') explicitOptions.add(route.path);
    }
    for (const path of paths) {
      if (!explicitOptions.has(path)) context.addRoute('OPTIONS', path, (ctx) => cors.respondToOptions(ctx.rawReq, ctx.rawRes));
    }
    context.addPreRouterStep(cors.handle);
  }
}

/** The route's `CorsOptions` providers, module's first then controller's, merged field by field. */
function routeOptions(route: RouteInfo, source: string): CorsOptions | undefined {
  const layers = route.providers
    .filter((provider) => providerToken(provider) === CorsOptions)
    .map((provider) => (typeof provider === 'object' && 'useValue' in provider ? provider.useValue : Injector.create([provider], route.injector).get(CorsOptions)));
  return layers.length === 0 ? undefined : layerCorsOptions(layers, source);
}

/**
 * CORS and OPTIONS for the routes of the module that imports it: every route gets an OPTIONS
 * twin on its path, with the defaults, `withOpts()` options, or route-level `CorsOptions`
 * provided in `providersPerRou` (module's, then a controller's).
 */
@restModule({ initHooks: [CorsInitHook], providersPerReq: [CorsService], exports: [CorsService] })
export class CorsModule {
  static withOpts(options: CorsOptions): DynamicModule {
    return { module: CorsModule, providersPerMod: [{ token: CORS_MODULE_OPTIONS, useValue: options }] };
  }
}
