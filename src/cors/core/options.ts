/** The options a user gives, their fields and defaults, and how route-level options merge over them. */
import type { IncomingMessage } from 'node:http';

/**
 * Decides whether a request's origin may read the response. It receives only well-formed,
 * serialized origins (never `null`, never a malformed value); returning anything but `true`
 * (or a promise of `true`), throwing or rejecting denies the request. `Req` is the request each
 * entry point hands over: an IncomingMessage (the node middleware, CorsModule), a `Request`
 * (`@lib/cors/fetch`), a FastifyRequest (`@lib/cors/fastify`).
 */
export type OriginFunction<Req = IncomingMessage> = (origin: string, req: Req) => boolean | Promise<boolean>;

/** One entry of an origin list: an origin, a `'https://*.example.com'` pattern, `'null'`, or a RegExp. */
export type OriginListEntry = string | RegExp;

export type OriginOption<Req = IncomingMessage> = '*' | string | RegExp | boolean | readonly OriginListEntry[] | OriginFunction<Req>;

/**
 * The CORS policy of a route, a module or a whole middleware. Every field is optional; an
 * omitted field inherits from the level above (route over module over defaults).
 *
 * A class rather than an interface, so that it can also serve as a dependency-injection token.
 */
export class CorsOptions<Req = IncomingMessage> {
  /** Which origins may read responses. Default `'*'` (any origin, no credentials). */
  origin?: OriginOption<Req>;
  /** `Access-Control-Allow-Methods`. Default: the methods the path registers. */
  allowedMethods?: readonly string[] | '*';
  /** `Access-Control-Allow-Headers`. Default: the request's `Access-Control-Request-Headers`, validated. */
  allowedHeaders?: readonly string[] | '*';
  /** `Access-Control-Expose-Headers`. Default: none. */
  exposedHeaders?: readonly string[] | '*';
  /** Send `Access-Control-Allow-Credentials: true`. Default `false`. */
  allowCredentials?: boolean;
  /** `Access-Control-Max-Age` in whole seconds. Default: not sent (browsers then cache 5 s). */
  maxAge?: number;
  /** Answer `Access-Control-Request-Private-Network: true` with a grant. Default `false`. */
  allowPrivateNetwork?: boolean;
  /**
   * Accept plain `http://` origins (other than loopback ones) together with `allowCredentials` or
   * `allowPrivateNetwork`, which are refused without it: anyone on such a page's network path can
   * inject script into it. Default `false`.
   */
  dangerouslyAllowInsecureOrigins?: boolean;
  /** Hand preflights to the next handler after setting the headers. Default `false`. */
  preflightContinue?: boolean;
  /** Status of an answered preflight, 200-299. Default 204. */
  optionsSuccessStatus?: number;
  /** How long an async origin function may take before the request is denied, in ms. Default 5000. */
  originTimeout?: number;
  /**
   * Keeps an origin function's answers: at most `max` origins (the least recently used go first),
   * each for `ttl` milliseconds. A fault, a timeout or a non-boolean answer is never kept. Default: off.
   */
  originCache?: OriginCacheOptions;
}

export interface OriginCacheOptions {
  readonly max: number;
  readonly ttl: number;
}

/** Where start-up warnings and request-time faults (a throwing origin function) are reported. */
export interface CorsLogger {
  warn(message: string): void;
  error(message: string): void;
}

export const CORS_OPTION_FIELDS = [
  'origin',
  'allowedMethods',
  'allowedHeaders',
  'exposedHeaders',
  'allowCredentials',
  'maxAge',
  'allowPrivateNetwork',
  'dangerouslyAllowInsecureOrigins',
  'preflightContinue',
  'optionsSuccessStatus',
  'originTimeout',
  'originCache',
] as const satisfies readonly (keyof CorsOptions)[];

/**
 * Field-by-field merge: a field the override leaves `undefined` keeps the base's value. Only
 * known fields are read (unknown ones are refused before, by the policy's validation), and
 * arrays are copied, so later changes to the caller's objects change nothing here.
 */
export function mergeCorsOptions<Req>(base: CorsOptions<Req>, override: CorsOptions<Req> | undefined): CorsOptions<Req> {
  const merged: Record<string, unknown> = {};
  for (const source of [base, override]) {
    if (source === undefined) continue;
    for (const field of CORS_OPTION_FIELDS) {
      const value = source[field];
      if (value !== undefined) merged[field] = Array.isArray(value) ? [...value] : value;
    }
  }
  return merged as CorsOptions<Req>;
}

/** Structural equality of two option sets: arrays element by element, RegExps by source and flags, functions by identity. */
export function sameOptions<Req>(a: CorsOptions<Req>, b: CorsOptions<Req>): boolean {
  return CORS_OPTION_FIELDS.every((field) => sameValue(a[field], b[field]));
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof RegExp && b instanceof RegExp) return a.source === b.source && a.flags === b.flags;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => sameValue(item, b[index]));
  return false;
}

/** Options of any entry point, whatever request its origin function takes: what the core reads (it hands the request on, never reads it). */
export type AnyCorsOptions = CorsOptions<never>;

/** How long an async origin function may take by default: long enough for a database, short enough for a preflight. */
export const DEFAULT_ORIGIN_TIMEOUT = 5000;

/** originCache's fields when left out: 1,000 origins, each kept a minute. */
export const DEFAULT_ORIGIN_CACHE: Readonly<OriginCacheOptions> = Object.freeze({ max: 1000, ttl: 60_000 });

/**
 * Validated options as `options()` reads them back: every field with a default value filled in,
 * name lists without repeats, frozen. Fields whose default is derived (`allowedMethods`: the
 * path's methods; `allowedHeaders`: the preflight's own) or not sent (`exposedHeaders`, `maxAge`)
 * stay out when not set. Given to createCors(), they make the same engine.
 */
export function normalisedOptions<Req>(options: CorsOptions<Req>): CorsOptions<Req> {
  const normalised: Record<string, unknown> = {
    origin: options.origin ?? '*',
    allowCredentials: options.allowCredentials ?? false,
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    preflightContinue: options.preflightContinue ?? false,
    optionsSuccessStatus: options.optionsSuccessStatus ?? 204,
  };
  for (const field of ['allowedMethods', 'allowedHeaders', 'exposedHeaders'] as const) {
    const names = options[field];
    if (names !== undefined) normalised[field] = names === '*' ? '*' : Object.freeze([...new Set(names)]);
  }
  if (options.maxAge !== undefined) normalised.maxAge = options.maxAge;
  // Read back only where it was set: an opt-in a reviewer should see where it is used.
  if (options.dangerouslyAllowInsecureOrigins === true) normalised.dangerouslyAllowInsecureOrigins = true;
  if (typeof options.origin === 'function') {
    normalised.originTimeout = options.originTimeout ?? DEFAULT_ORIGIN_TIMEOUT;
    // checkOriginCache()'s defaults, for a cache given without them.
    if (options.originCache !== undefined)
      normalised.originCache = Object.freeze({
        max: options.originCache.max ?? DEFAULT_ORIGIN_CACHE.max,
        ttl: options.originCache.ttl ?? DEFAULT_ORIGIN_CACHE.ttl,
      });
  }
  if (Array.isArray(normalised.origin)) normalised.origin = Object.freeze([...normalised.origin]);
  return Object.freeze(normalised) as CorsOptions<Req>;
}
