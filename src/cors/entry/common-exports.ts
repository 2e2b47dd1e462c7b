/** What every entry point exports beside its own `createCors`: the options' types, the error classes and their codes, the diagnostics channels' names and messages. */
export {
  CorsOptionsError,
  CorsUsageError,
  OPTION_ERROR_CODES,
  ROUTE_ERROR_CODES,
  RouteRegistrationError,
  USAGE_ERROR_CODES,
  type CorsOptionProblem,
  type CorsOptionsErrorCode,
  type CorsUsageErrorCode,
  type RouteRegistrationErrorCode,
} from '../core/errors.js';
export { CorsOptions, type CorsLogger, type OriginCacheOptions, type OriginFunction, type OriginListEntry, type OriginOption } from '../core/options.js';
export type { CorsControls } from '../core/cors-core.js';
export { CONFIG_CHANNEL, DECISION_CHANNEL, type CorsConfigMessage } from '../core/channels.js';
export type { CorsDecisionMessage } from '../core/channels.js';
export type { ExplainOptions, ExplainRequest, Explanation } from '../diagnostics/explain.js';
