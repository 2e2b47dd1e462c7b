/** The errors the package throws, each with a stable `code` that programs can read (docs/errors.md lists them). */

/** Codes of CorsOptionsError: what is wrong with an option, whichever option it is. */
export const OPTION_ERROR_CODES = [
  'CORS_OPTIONS_NOT_OBJECT',
  'CORS_UNKNOWN_OPTION',
  'CORS_OPTION_OF_ANOTHER_PACKAGE',
  'CORS_INVALID_ORIGIN',
  'CORS_INVALID_ORIGIN_PATTERN',
  'CORS_INVALID_ORIGIN_POLICY',
  'CORS_EMPTY_ORIGIN_LIST',
  'CORS_WILDCARD_IN_LIST',
  'CORS_STATEFUL_REGEXP',
  'CORS_WILDCARD_WITH_CREDENTIALS',
  'CORS_INVALID_NAME_LIST',
  'CORS_INVALID_NAME',
  'CORS_METHOD_NOT_UPPER_CASE',
  'CORS_NO_METHOD',
  'CORS_INVALID_NUMBER',
  'CORS_INVALID_BOOLEAN',
  'CORS_ORIGIN_CACHE_WITHOUT_FUNCTION',
] as const;

/** Codes of RouteRegistrationError: why a route cannot be covered as registered. */
export const ROUTE_ERROR_CODES = [
  'CORS_ROUTE_INVALID_METHOD',
  'CORS_ROUTE_INVALID_PATH',
  'CORS_ROUTE_CONFLICT',
  'CORS_ROUTES_SEALED',
  'CORS_NOT_A_ROUTER',
  'CORS_ROUTER_EMPTY',
  'CORS_MATCHING_CONFLICT',
  'CORS_MOUNT_UNSEEN',
  'CORS_ROUTE_BEFORE_PLUGIN',
] as const;

/** Codes of the errors thrown while serving, by the helpers an application calls. */
export const USAGE_ERROR_CODES = ['CORS_INVALID_COOKIE', 'CORS_NO_ENGINE'] as const;

export type CorsOptionsErrorCode = (typeof OPTION_ERROR_CODES)[number];
export type RouteRegistrationErrorCode = (typeof ROUTE_ERROR_CODES)[number];
export type CorsUsageErrorCode = (typeof USAGE_ERROR_CODES)[number];

/**
 * The one error type thrown for bad options, always at start-up. Its message names where the
 * options came from, the field, the value, what is wrong and how to fix it.
 */
export class CorsOptionsError extends Error {
  override readonly name = 'CorsOptionsError';

  constructor(
    readonly code: CorsOptionsErrorCode,
    /** Where the options came from, e.g. `createCors()` or `route GET /users`. */
    readonly source: string,
    /** The field path, e.g. `origin[1]`. */
    readonly field: string,
    readonly value: unknown,
    problem: string,
    fix: string,
  ) {
    super(`${source}: CorsOptions.${field} = ${describeValue(value)} ${problem}. Fix: ${fix}`);
  }
}

/**
 * Thrown by route(), mirror(), CorsModule and the framework plugins whenever a route cannot be
 * covered as registered, at start-up or later: its message names who registered it, the path,
 * what clashes and the fix.
 */
export class RouteRegistrationError extends Error {
  override readonly name = 'RouteRegistrationError';

  constructor(
    readonly code: RouteRegistrationErrorCode,
    /** Who registered the route, e.g. `route GET /users` or `GET /users (UsersController in AppModule)`. */
    readonly source: string,
    /** The path, or the value given where a path or router was expected. */
    readonly path: unknown,
    problem: string,
    fix: string,
  ) {
    super(`${source}: ${typeof path === 'string' ? path : describeValue(path)} ${problem}. Fix: ${fix}`);
  }
}

/**
 * A helper called while serving was used in a way that cannot work (a cookie that cannot be
 * written, explain() with no engine). A TypeError, as a wrong argument is.
 */
export class CorsUsageError extends TypeError {
  override readonly name = 'CorsUsageError';

  constructor(
    readonly code: CorsUsageErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A value as the user would write it in their options (single-quoted strings, arrays in
 * brackets): the form of the code a message's fix proposes, e.g. `['X-A', 'X-B']`.
 */
export function codeLiteral(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/[\\']/g, (char) => `\\${char}`)}'`;
  if (Array.isArray(value)) return `[${value.map(codeLiteral).join(', ')}]`;
  return describeValue(value);
}

/** A short, readable rendering of an option value for messages. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
  if (value instanceof RegExp) return String(value);
  if (Array.isArray(value)) return `[${value.map(describeValue).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{ ${Object.keys(value).join(', ')} }`;
  return String(value);
}
