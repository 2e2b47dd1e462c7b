// @lib/cors/express for import: a wrapper of the CommonJS implementation, so that import and require()
// share one copy of it (one engine, one set of error classes). Values are listed by name (an
// `export *` would also publish CommonJS's __esModule); test/packaging checks the list is complete.
export type * from '../entry/express.js';
export {
  CorsOptions,
  CorsOptionsError,
  CorsUsageError,
  createCors,
  OPTION_ERROR_CODES,
  ROUTE_ERROR_CODES,
  RouteRegistrationError,
  setCorsCookie,
  USAGE_ERROR_CODES,
} from '../entry/express.js';
