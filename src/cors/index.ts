// The DI module (src/cors/module); the engine alone is '@lib/cors/standalone', which loads
// nothing of the host.
export * from './standalone.js';
export { CorsModule } from './module/cors-module.js';
export { CorsService } from './module/cors-service.js';
export { CORS_DEBUG, CORS_LOGGER } from './module/tokens.js';
