/**
 * `@lib/cors/standalone`: the CORS engine as a `(req, res, next)` middleware for `node:http`
 * and Connect/Express-style servers. Loads nothing of the dependency-injection host.
 */
import { CorsEngine, type CorsEngineSettings } from './engine.js';
import type { CorsOptions } from './options.js';

export { CorsEngine, type CorsEngineSettings, type Next } from './engine.js';
export type { ReasonCode } from './browser-checks.js';
export type { ExplainOptions, ExplainRequest, Explanation } from './explain.js';
export { setCorsCookie, type CookieOptions } from './credentials.js';
export { CorsOptionsError, RouteRegistrationError } from './errors.js';
export { CorsOptions, type CorsLogger, type OriginCacheOptions, type OriginFunction, type OriginListEntry, type OriginOption } from './options.js';
export type { FindMyWayRouter, MirrorableRouter, PathMatching } from './route-tree.js';

/**
 * Validates `options` (throwing `CorsOptionsError` on a bad one) and returns the middleware.
 * Register routes with `route()` or `mirror()` before serving; with none, every path is covered.
 */
export function createCors(options?: CorsOptions, settings?: CorsEngineSettings): CorsEngine {
  return new CorsEngine(options, settings);
}
