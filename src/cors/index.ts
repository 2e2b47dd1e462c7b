// The DI module; the engine alone is in '@lib/cors/standalone', which loads nothing of the host.
export * from './standalone.js';
export { CorsModule } from './cors-module.js';
export { CORS_LOGGER } from './cors-module-tokens.js';
export { CorsService } from './cors-service.js';
