// @lib/cors/fastify for import: a wrapper of the CommonJS implementation, so that import and require()
// share one copy of it (one engine, one set of error classes). Values are listed by name (an
// `export *` would also publish CommonJS's __esModule); test/packaging checks the list is complete.
export type * from '../entry/fastify.js';
// From common-exports directly: fastify.js replaces module.exports (the plugin itself), and Node's
// CommonJS export detection then no longer sees the names it re-exports with export *.
export {
  CorsOptions,
  CorsOptionsError,
  CorsUsageError,
  OPTION_ERROR_CODES,
  ROUTE_ERROR_CODES,
  RouteRegistrationError,
  USAGE_ERROR_CODES,
} from '../entry/common-exports.js';
export { fastifyCors } from '../entry/fastify.js';
export { fastifyCors as default } from '../entry/fastify.js';
