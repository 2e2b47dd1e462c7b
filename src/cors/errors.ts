/**
 * The one error type thrown for bad options, always at start-up. Its message names where the
 * options came from, the field, the value, what is wrong and how to fix it.
 */
export class CorsOptionsError extends Error {
  override readonly name = 'CorsOptionsError';

  constructor(
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

/** A short, readable rendering of an option value for messages. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
  if (value instanceof RegExp) return String(value);
  if (Array.isArray(value)) return `[${value.map(describeValue).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{ ${Object.keys(value).join(', ')} }`;
  return String(value);
}

/**
 * Thrown at start-up by route(), mirror() and CorsModule when a route cannot be covered as
 * registered: its message names who registered it, the path, what clashes and the fix.
 */
export class RouteRegistrationError extends Error {
  override readonly name = 'RouteRegistrationError';

  constructor(
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
