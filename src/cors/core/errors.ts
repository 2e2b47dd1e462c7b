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
  'CORS_PRIVATE_NETWORK_TO_EVERY_ORIGIN',
  'CORS_INSECURE_ORIGIN',
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
  'CORS_MARKER_OUTSIDE_ROUTE',
] as const;

/** Codes of the errors thrown while serving, by the helpers an application calls. */
export const USAGE_ERROR_CODES = ['CORS_INVALID_COOKIE', 'CORS_NO_ENGINE'] as const;

export type CorsOptionsErrorCode = (typeof OPTION_ERROR_CODES)[number];
export type RouteRegistrationErrorCode = (typeof ROUTE_ERROR_CODES)[number];
export type CorsUsageErrorCode = (typeof USAGE_ERROR_CODES)[number];

/**
 * One thing wrong with the options, as CorsOptionsError.errors lists it. Validation visits every
 * field and reports each problem it finds, so that a configuration is fixed in one go.
 */
export interface CorsOptionProblem {
  readonly code: CorsOptionsErrorCode;
  /** Where the options came from, e.g. `createCors()` or `route GET /users`. */
  readonly source: string;
  /** The field path within those options, e.g. `origin[2]`. */
  readonly field: string;
  /**
   * The field path from the top of the configuration: `field`, prefixed for a route's own
   * options with the route, e.g. `routes["GET /login"].origin[2]`.
   */
  readonly path: string;
  readonly value: unknown;
  /** What is wrong, e.g. `is not an origin (no scheme)`. */
  readonly problem: string;
  /** How to fix it, written from the value given. */
  readonly fix: string;
  /** One line: source, field, value, problem and fix. */
  readonly message: string;
}

/** A problem with its one-line message; `pathPrefix` is the route's, e.g. `routes["GET /login"].`, or empty. */
export function optionProblem(
  code: CorsOptionsErrorCode,
  source: string,
  field: string,
  value: unknown,
  problem: string,
  fix: string,
  pathPrefix = '',
): CorsOptionProblem {
  return Object.freeze({
    code,
    source,
    field,
    path: pathPrefix + field,
    value,
    problem,
    fix,
    message: `${source}: CorsOptions.${field} = ${describeValue(value)} ${problem}. Fix: ${fix}`,
  });
}

/**
 * The problems one pass over an options object finds: each check reports here and goes on, so
 * that one error can list them all (CorsOptionsError.of).
 */
export class OptionProblems {
  readonly list: CorsOptionProblem[] = [];

  constructor(
    /** Where the options came from, e.g. `createCors()` or `route GET /users`. */
    readonly source: string,
    /** Put before each field in `path`: a route's, e.g. `routes["GET /login"].`, or empty. */
    readonly pathPrefix = '',
  ) {}

  report(code: CorsOptionsErrorCode, field: string, value: unknown, problem: string, fix: string): void {
    this.list.push(optionProblem(code, this.source, field, value, problem, fix, this.pathPrefix));
  }
}

/**
 * The one error type thrown for bad options, always at start-up. It lists every problem found
 * (`errors`); `code`, `source`, `field` and `value` are those of the first. Its message is the
 * first problem's line when there is one problem, else a count followed by each line, numbered.
 */
export class CorsOptionsError extends Error {
  override readonly name = 'CorsOptionsError';
  /** Every problem found in one pass over the options, in the order validation visits them; never empty. */
  readonly errors: readonly CorsOptionProblem[];

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
    const only = optionProblem(code, source, field, value, problem, fix);
    super(only.message);
    this.errors = Object.freeze([only]);
  }

  /**
   * One error for all `problems`, which may come from several options objects (a base and its
   * routes); `source` names the call that checked them all, e.g. `createCors()`.
   */
  static of(source: string, problems: readonly CorsOptionProblem[]): CorsOptionsError {
    const [first] = problems;
    if (first === undefined) throw new RangeError('CorsOptionsError.of() needs at least one problem');
    const error = new CorsOptionsError(first.code, first.source, first.field, first.value, first.problem, first.fix);
    // The constructor keeps its six-argument form (entry points and users' code call it), so the
    // list and the message of several problems are set here, once, before anyone sees the error;
    // the stack is captured again because V8 writes the message into it when the error is made.
    const writable = error as { errors: readonly CorsOptionProblem[]; message: string };
    writable.errors = Object.freeze([...problems]);
    if (problems.length > 1) {
      writable.message = severalProblemsMessage(source, problems);
      Error.captureStackTrace?.(error, CorsOptionsError.of);
    }
    return error;
  }
}

function severalProblemsMessage(source: string, problems: readonly CorsOptionProblem[]): string {
  const lines = problems.map((problem, index) => `  ${index + 1}. ${problem.message}`);
  return [`${source}: ${problems.length} problems in the CORS options:`, ...lines].join('\n');
}

/**
 * Thrown by route(), mirror(), CorsModule and the framework plugins whenever a route cannot be
 * covered as registered, at start-up or later: its message names who registered it, the path,
 * what clashes and the fix.
 */
/**
 * Names a route registration in errors: the text, or how to make it from the registration's
 * methods and path. A function shared by many routes keeps no string a route: only an error
 * reads it, and a label held per route costs memory at every route (CorsModule, bench --startup).
 */
export type RouteLabel = string | ((methods: readonly string[], path: string) => string);

/** The text of `label` for a registration of `methods` on `path`. */
export function labelText(label: RouteLabel, methods: readonly string[], path: string): string {
  return typeof label === 'string' ? label : label(methods, path);
}

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
