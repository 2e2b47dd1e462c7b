/** `@lib/rest`: the small REST host that CorsModule plugs into. */
export { RestApplication, type PreRouterStep, type RestApplicationOptions, type RestInitContext, type RouteStep } from './application.js';
export {
  controller,
  restModule,
  restRootModule,
  route,
  type ControllerOptions,
  type RestDynamicModule,
  type RestModuleImport,
  type RestModuleMetadata,
  type RouteMetadata,
} from './decorators.js';
export { RequestContext } from './request-context.js';
export type { RouteHandler, RouteInfo } from './routes.js';
