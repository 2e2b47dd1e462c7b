// What every @lib/cors entry point exports beside its own createCors (entry/common-exports.ts),
// for the ES module wrappers beside it: listed once, re-exported by each with `export *`.
export {
  CONFIG_CHANNEL,
  CorsOptions,
  CorsOptionsError,
  CorsUsageError,
  DECISION_CHANNEL,
  OPTION_ERROR_CODES,
  ROUTE_ERROR_CODES,
  RouteRegistrationError,
  USAGE_ERROR_CODES,
} from '../entry/common-exports.js';
