/** `@lib/cors`: the node middleware of '@lib/cors/standalone' (which loads nothing of the host), and CorsModule for the @lib/rest host. */
export * from './entry/standalone.js';
export { CorsModule } from './module/cors-module.js';
export { CorsService } from './module/cors-service.js';
export { CORS_DEBUG, CORS_LOGGER } from './module/tokens.js';
