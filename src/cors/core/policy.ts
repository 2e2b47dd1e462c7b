/**
 * Validates options, every field, and compiles them into a frozen policy; the one place options are
 * checked. One pass collects every problem, so that a configuration is fixed in one go.
 */
import { codeLiteral, CorsOptionsError, OptionProblems, type CorsOptionProblem } from './errors.js';
import { isHttpToken } from './http-grammar.js';
import { faultReporter } from './line-limit.js';
import { CACHED_ANSWER, compileOriginMatcher, insecureOrigins, type OriginMatcher, strangersGranted } from './origin-matcher.js';
import {
  CORS_OPTION_FIELDS,
  DEFAULT_ORIGIN_CACHE,
  DEFAULT_ORIGIN_TIMEOUT,
  mergeCorsOptions,
  type AnyCorsOptions,
  type CorsLogger,
  type OriginCacheOptions,
} from './options.js';

/**
 * Validated options, copied: what the per-path tables are built from (path-table.ts joins the
 * lists into header values). Frozen; nothing in it depends on a request. A list holding only
 * `'*'` is the wildcard.
 */
export interface CorsPolicy {
  readonly origin: OriginMatcher;
  /** `Access-Control-Allow-Methods`; `undefined`: the methods of the path. */
  readonly allowedMethods: readonly string[] | undefined;
  /** `Access-Control-Allow-Headers`; `undefined`: reflect the validated `Access-Control-Request-Headers`. */
  readonly allowedHeaders: readonly string[] | undefined;
  /** `Access-Control-Expose-Headers`; `undefined` or empty: none. */
  readonly exposedHeaders: readonly string[] | undefined;
  readonly allowCredentials: boolean;
  readonly maxAge: string | undefined;
  readonly allowPrivateNetwork: boolean;
  readonly preflightContinue: boolean;
  readonly optionsSuccessStatus: number;
}

/** Chromium's cap on `Access-Control-Max-Age`; Firefox caps at 86400. */
const BROWSER_MAX_AGE = 7200;

export interface PolicyContext {
  /** Where the options came from, named in every error and warning. */
  readonly source: string;
  readonly logger: CorsLogger;
  /**
   * Put before each problem's field in its `path`, for a route's own options: routePathPrefix()
   * gives `routes["GET /login"].`. Default: none.
   */
  readonly pathPrefix?: string | undefined;
}

/** The prefix of a route's problems in CorsOptionProblem.path: `routes["GET,POST /users"].`. */
export function routePathPrefix(methods: readonly string[], path: string): string {
  return `routes[${JSON.stringify(`${methods.join(',')} ${path}`)}].`;
}

/**
 * What one pass over options found: the policy and the warnings held back for the caller to log,
 * or every problem (and then no warning: nothing is compiled).
 */
export type PolicyCheck =
  | { readonly valid: true; readonly policy: CorsPolicy; readonly warnings: readonly string[] }
  | { readonly valid: false; readonly problems: readonly CorsOptionProblem[] };

/** checkUserOptions()'s answer: a PolicyCheck that, when valid, also holds the copy of the user's options. */
export type UserOptionsCheck =
  | { readonly valid: true; readonly options: AnyCorsOptions; readonly policy: CorsPolicy; readonly warnings: readonly string[] }
  | { readonly valid: false; readonly problems: readonly CorsOptionProblem[] };

/**
 * Validates every field of `options` (never mutating it) and compiles the policy. Throws one
 * `CorsOptionsError` listing every problem. `options` is a merge of objects that passed
 * checkOptionsObject.
 */
export function compilePolicy(options: AnyCorsOptions, context: PolicyContext): CorsPolicy {
  const check = checkPolicy(options, context);
  settlePolicyChecks(context.source, context.logger, [check]);
  return (check as Extract<PolicyCheck, { valid: true }>).policy;
}

/**
 * A user's options object, as createCors() or CorsModule.withOpts() receive it: checked, copied
 * (so that later changes to the caller's object change nothing) and compiled. Throws one
 * `CorsOptionsError` listing every problem, unknown fields and bad values alike.
 */
export function compileUserOptions(options: unknown, context: PolicyContext): { options: AnyCorsOptions; policy: CorsPolicy } {
  const check = checkUserOptions(options, context);
  settlePolicyChecks(context.source, context.logger, [check]);
  const { options: copy, policy } = check as Extract<UserOptionsCheck, { valid: true }>;
  return { options: copy, policy };
}

/**
 * Throws one CorsOptionsError for the problems of all `checks` (a base and its routes, say), named
 * after `source`, the call that made them; else logs their warnings, which are held back until
 * every check is known to be valid.
 */
export function settlePolicyChecks(source: string, logger: CorsLogger, checks: readonly (PolicyCheck | UserOptionsCheck)[]): void {
  const problems = checks.flatMap((check) => (check.valid ? [] : check.problems));
  if (problems.length > 0) throw CorsOptionsError.of(source, problems);
  for (const check of checks) if (check.valid) for (const warning of check.warnings) logger.warn(warning);
}

/** compilePolicy() without the throw: every problem of `options`, or its policy and warnings. Logs nothing. */
export function checkPolicy(options: AnyCorsOptions, context: PolicyContext): PolicyCheck {
  const problems = new OptionProblems(context.source, context.pathPrefix);
  const warnings: string[] = [];
  const policy = compileFields(options, context, problems, warnings);
  return problems.list.length === 0 ? { valid: true, policy, warnings } : { valid: false, problems: problems.list };
}

/** compileUserOptions() without the throw: every problem of the object and its fields, or the copy, its policy and warnings. Logs nothing. */
export function checkUserOptions(options: unknown, context: PolicyContext): UserOptionsCheck {
  const problems = new OptionProblems(context.source, context.pathPrefix);
  // Not an object: there are no fields to check.
  if (!isOptionsObject(options, problems)) return { valid: false, problems: problems.list };
  const copy = mergeCorsOptions(options, undefined);
  const warnings: string[] = [];
  const policy = compileFields(copy, context, problems, warnings);
  return problems.list.length === 0 ? { valid: true, options: copy, policy, warnings } : { valid: false, problems: problems.list };
}

/** An options object as given by a user: an object with known fields only (typos such as `orgin` are refused, all of them at once). */
export function checkOptionsObject(options: unknown, source: string, pathPrefix?: string): asserts options is AnyCorsOptions {
  const problems = new OptionProblems(source, pathPrefix);
  isOptionsObject(options, problems);
  if (problems.list.length > 0) throw CorsOptionsError.of(source, problems.list);
}

/**
 * Every field checked, each problem reported to `problems`, each warning added to `warnings`; the
 * policy returned stands for nothing when a problem was reported.
 */
function compileFields(options: AnyCorsOptions, context: PolicyContext, problems: OptionProblems, warnings: string[]): CorsPolicy {
  const { source } = context;
  const warn = (message: string) => warnings.push(message);
  const allowCredentials = checkBoolean(options.allowCredentials, 'allowCredentials', problems);
  const timeout = checkWholeNumber(options.originTimeout, 'originTimeout', problems, 1, 60_000, {
    problem: 'is not a whole number of milliseconds from 1 to 60000',
    fix: 'use e.g. 2000; a browser waits for the preflight, so keep it short',
  });
  const cache = checkOriginCache(options, problems);
  const origin = compileOriginMatcher(options.origin, {
    problems,
    warn,
    timeout: timeout ?? DEFAULT_ORIGIN_TIMEOUT,
    cache,
    reportFault: faultReporter(context.logger),
  });
  const allowedHeaders = checkNames(options.allowedHeaders, 'allowedHeaders', problems);
  const exposedHeaders = checkNames(options.exposedHeaders, 'exposedHeaders', problems);
  const allowedMethods = checkNames(options.allowedMethods, 'allowedMethods', problems);
  // On the option as given: checkNames leaves out the elements it reported.
  if (Array.isArray(options.allowedMethods) && options.allowedMethods.length === 0) {
    problems.report(
      'CORS_NO_METHOD',
      'allowedMethods',
      options.allowedMethods,
      'grants no method',
      'list the methods, or leave the option out to grant the methods of each path',
    );
  }
  allowedMethods?.forEach((method) => {
    // Browsers upper-case DELETE, GET, HEAD, OPTIONS, POST and PUT before the preflight, then
    // compare byte for byte: 'put' or 'Put' never matches. route() refuses the same spellings.
    if (method !== method.toUpperCase()) {
      problems.report(
        'CORS_METHOD_NOT_UPPER_CASE',
        `allowedMethods[${(options.allowedMethods as readonly string[]).indexOf(method)}]`,
        method,
        'is not in upper case, and browsers compare methods case-sensitively (they upper-case the standard ones first)',
        `write ${codeLiteral(method.toUpperCase())}`,
      );
    }
  });

  if (allowCredentials) {
    // Browsers read `*` literally on credentialed requests, so these would silently fail.
    if (origin.kind === 'any') {
      problems.report(
        'CORS_WILDCARD_WITH_CREDENTIALS',
        'origin',
        options.origin ?? '*',
        `${options.origin === undefined ? '(the default, as no origin is set) ' : ''}together with allowCredentials: true is refused by browsers ` +
          "(a credentialed response needs the exact origin, never '*')",
        "list the origins that may send credentials, e.g. origin: ['https://app.example.com']; or, if your pages send no cookies and no " +
          'Authorization header, leave allowCredentials out',
      );
    }
    const names = { allowedHeaders, exposedHeaders, allowedMethods };
    for (const field of ['allowedHeaders', 'exposedHeaders', 'allowedMethods'] as const) {
      if (names[field]?.includes('*')) {
        problems.report(
          'CORS_WILDCARD_WITH_CREDENTIALS',
          field,
          '*',
          `together with allowCredentials: true is read by browsers as a ${field === 'allowedMethods' ? 'method' : 'header'} literally named '*'`,
          `list the ${NAMES_OF[field].kind}s, e.g. ${field}: ${codeLiteral(NAMES_OF[field].example)}${LEAVE_OUT[field]}`,
        );
      }
    }
    if (options.origin === true) {
      warn(
        `${source}: CorsOptions.origin = true with allowCredentials: true lets every web site read your users' data with their cookies. List the ` +
          `trusted origins instead.`,
      );
    }
    // Said whatever else is said of the same RegExp (anchoring, dots): this is what it costs.
    const strangers = strangersGranted(options.origin);
    if (strangers !== undefined) {
      warn(
        `${source}: CorsOptions.origin: ${strangers}, with allowCredentials: true, so those sites can read your users' data with their ` +
          `cookies. Match your own origins only, e.g. /^https:\\/\\/your-app\\.example\\.com$/, or list them.`,
      );
    }
  }

  const allowPrivateNetwork = checkBoolean(options.allowPrivateNetwork, 'allowPrivateNetwork', problems);
  const insecureTolerated = checkBoolean(options.dangerouslyAllowInsecureOrigins, 'dangerouslyAllowInsecureOrigins', problems);
  if (allowPrivateNetwork && (origin.kind === 'any' || options.origin === true)) {
    problems.report(
      'CORS_PRIVATE_NETWORK_TO_EVERY_ORIGIN',
      'origin',
      options.origin ?? '*',
      `${options.origin === undefined ? '(the default, as no origin is set) ' : ''}together with allowPrivateNetwork: true lets every public web site ` +
        "reach this private-network server from its visitors' browsers",
      "list the origins that may reach it, e.g. origin: ['https://app.example.com']; or leave allowPrivateNetwork out",
    );
  }
  if ((allowCredentials || allowPrivateNetwork) && !insecureTolerated) {
    const over = allowCredentials ? 'allowCredentials: true' : 'allowPrivateNetwork: true';
    for (const { field, value, secure } of insecureOrigins(options.origin)) {
      problems.report(
        'CORS_INSECURE_ORIGIN',
        field,
        value,
        `is plain http, and with ${over} anyone on that page's network path can inject script into it and ` +
          (allowCredentials ? "read your users' data with their cookies" : 'reach this private-network server'),
        `serve the page over https and write ${codeLiteral(secure)}; if it can only be plain http, add dangerouslyAllowInsecureOrigins: true`,
      );
    }
  }

  const maxAge = checkWholeNumber(options.maxAge, 'maxAge', problems, 0, Number.MAX_SAFE_INTEGER, {
    problem: 'is not a whole number of seconds >= 0',
    fix: 'use e.g. 600 (ten minutes); browsers cap it (Chromium at 7200)',
  });
  if (maxAge !== undefined && maxAge > BROWSER_MAX_AGE) {
    warn(
      `${source}: CorsOptions.maxAge = ${maxAge} is above what Chromium honours (${BROWSER_MAX_AGE} s; Firefox: 86400 s); browsers will cache ` +
        `preflights for less.`,
    );
  }

  const status = checkWholeNumber(options.optionsSuccessStatus, 'optionsSuccessStatus', problems, 200, 299, {
    problem: 'is not a success status (200-299)',
    fix: 'use 204 (the default), or 200 for clients that mishandle 204',
  });

  return Object.freeze({
    origin,
    allowedMethods,
    allowedHeaders,
    exposedHeaders,
    allowCredentials,
    maxAge: maxAge === undefined ? undefined : String(maxAge),
    allowPrivateNetwork,
    preflightContinue: checkBoolean(options.preflightContinue, 'preflightContinue', problems),
    optionsSuccessStatus: status ?? 204,
  });
}

/** Whether `options` is an object; each field that is no CORS option is reported. */
function isOptionsObject(options: unknown, problems: OptionProblems): options is AnyCorsOptions {
  if (!isObject(options, '(options)', problems, "pass an object such as { origin: 'https://app.example.com' }, or nothing for the defaults")) return false;
  for (const field of Object.keys(options)) {
    if (!(CORS_OPTION_FIELDS as readonly string[]).includes(field)) {
      const value = (options as Record<string, unknown>)[field];
      const ours = Object.hasOwn(OTHER_PACKAGES_NAMES, field) ? OTHER_PACKAGES_NAMES[field] : undefined;
      if (ours !== undefined) {
        problems.report('CORS_OPTION_OF_ANOTHER_PACKAGE', field, value, `is ${ours.from}'s name for ${ours.field}`, othersFix(ours.field, value));
      } else {
        problems.report('CORS_UNKNOWN_OPTION', field, value, ...unknownOptionMistake(field, value));
      }
    }
  }
  return true;
}

/** The response headers that users write as options, and the option that sets each. */
const OPTION_OF_HEADER: Readonly<Record<string, string>> = {
  'access-control-allow-origin': 'origin',
  'access-control-allow-credentials': 'allowCredentials',
  'access-control-allow-methods': 'allowedMethods',
  'access-control-allow-headers': 'allowedHeaders',
  'access-control-expose-headers': 'exposedHeaders',
  'access-control-max-age': 'maxAge',
};

/**
 * What to say of an option name we do not know: the option a header name stands for, a near
 * miss of ours or of another package's, or else that it can go (the cors package ignored names
 * it did not know, so it never took effect).
 */
function unknownOptionMistake(field: string, value: unknown): [problem: string, fix: string] {
  const name = field.toLowerCase();
  // Own keys only: `__proto__` is a name users' objects can carry too.
  const forHeader = Object.hasOwn(OPTION_OF_HEADER, name) ? OPTION_OF_HEADER[name] : undefined;
  if (forHeader !== undefined) return ['is the name of a response header, not an option', `use ${forHeader}: ${codeLiteral(value)}`];
  const near = CORS_OPTION_FIELDS.find((known) => isNearMiss(field, known));
  if (near !== undefined) return ['is not a CORS option', `did you mean ${near}? The fields are ${CORS_OPTION_FIELDS.join(', ')}`];
  const other = Object.keys(OTHER_PACKAGES_NAMES).find((known) => isNearMiss(field, known));
  if (other !== undefined) {
    const ours = OTHER_PACKAGES_NAMES[other]!;
    return [`is not a CORS option (${other} misspelt? that is ${ours.from}'s name for ${ours.field})`, othersFix(ours.field, value)];
  }
  return [
    'is not a CORS option',
    `remove it (the cors package ignores names it does not know, so it never took effect), or use one of ${CORS_OPTION_FIELDS.join(', ')}`,
  ];
}

function isObject(value: unknown, field: string, problems: OptionProblems, fix: string): value is object {
  const object = value !== null && typeof value === 'object' && !Array.isArray(value);
  if (!object) problems.report('CORS_OPTIONS_NOT_OBJECT', field, value, 'is not an object', fix);
  return object;
}

/** `originCache`: for an origin function only, with a size and a time-to-live in range. */
function checkOriginCache(options: AnyCorsOptions, problems: OptionProblems): OriginCacheOptions | undefined {
  const cache: unknown = options.originCache;
  if (cache === undefined) return undefined;
  if (typeof options.origin !== 'function') {
    problems.report(
      'CORS_ORIGIN_CACHE_WITHOUT_FUNCTION',
      'originCache',
      cache,
      'keeps the answers of an origin function, and origin is not one',
      'leave originCache out; lists, patterns and RegExps are matched in memory already',
    );
    return undefined;
  }
  if (CACHED_ANSWER in options.origin) {
    // Keyed by origin alone, it would answer one tenant's verdict for another and outlive a revocation.
    problems.report(
      'CORS_ORIGIN_CACHE_WITHOUT_FUNCTION',
      'originCache',
      cache,
      "is not for an origin store's origin: the store keeps its own cache, per tenant, which its change feed keeps true",
      "leave originCache out; set the store's ttl and maxEntries instead",
    );
    return undefined;
  }
  if (!isObject(cache, 'originCache', problems, 'use e.g. { max: 1000, ttl: 60000 }: at most 1,000 origins, each kept a minute')) return undefined;
  const { max, ttl } = cache as Record<string, unknown>;
  return {
    max:
      checkWholeNumber(max, 'originCache.max', problems, 1, 1_000_000, { problem: 'is not a whole number from 1 to 1000000', fix: 'use e.g. 1000' }) ??
      DEFAULT_ORIGIN_CACHE.max,
    ttl:
      checkWholeNumber(ttl, 'originCache.ttl', problems, 1, 86_400_000, {
        problem: 'is not a whole number of milliseconds from 1 to 86400000',
        fix: 'use e.g. 60000 (a minute)',
      }) ?? DEFAULT_ORIGIN_CACHE.ttl,
  };
}

/** `undefined`, or a whole number from `min` to `max`; anything else is reported with `message`, and read as `undefined`. */
function checkWholeNumber(
  value: unknown,
  field: string,
  problems: OptionProblems,
  min: number,
  max: number,
  message: { problem: string; fix: string },
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    // A number written as a string ('600', from an environment variable): the fix is that number.
    const written = typeof value === 'string' && /^\s*[0-9]+\s*$/.test(value) ? Number(value) : undefined;
    const fix = written !== undefined && Number.isSafeInteger(written) && written >= min && written <= max ? `write it as a number: ${written}` : message.fix;
    problems.report('CORS_INVALID_NUMBER', field, value, message.problem, fix);
    return undefined;
  }
  return value;
}

/** A boolean option, `false` when left out; anything else is reported, and read as `false`. */
function checkBoolean(value: unknown, field: string, problems: OptionProblems): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') {
    // A boolean written as a string ('true', from an environment variable): the fix is that boolean.
    const written = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
    const fix = written === 'true' || written === 'false' ? `write it as a boolean: ${written}` : 'use true or false';
    problems.report('CORS_INVALID_BOOLEAN', field, value, 'is not a boolean', fix);
    return false;
  }
  return value;
}

/** For '*' with credentials: the default that works instead, where there is one. */
const LEAVE_OUT: Readonly<Record<NamesField, string>> = {
  allowedHeaders: '; or leave it out: by default the headers each preflight asks for are allowed',
  exposedHeaders: '',
  allowedMethods: '; or leave it out: by default the methods of each path are granted',
};

/** The three fields that take a list of names. */
type NamesField = 'allowedHeaders' | 'exposedHeaders' | 'allowedMethods';

/** What each names field lists, and an example of the list, for messages. */
const NAMES_OF: Readonly<Record<NamesField, { kind: string; example: readonly string[] }>> = {
  allowedHeaders: { kind: 'header name', example: ['Content-Type', 'Authorization'] },
  exposedHeaders: { kind: 'header name', example: ['Content-Range'] },
  allowedMethods: { kind: 'method', example: ['GET', 'POST'] },
};

/**
 * `'*'` or an array of tokens; returns a copy (the caller's array is never kept or mutated) of
 * the names that passed, every bad element reported. A list that is no list is reported, and read
 * as `undefined`.
 */
function checkNames(value: unknown, field: NamesField, problems: OptionProblems): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (value === '*') return ['*'];
  if (!Array.isArray(value)) {
    const { problem, fix } = typeof value === 'string' ? namesStringMistake(value, field) : notAList(field);
    problems.report('CORS_INVALID_NAME_LIST', field, value, problem, fix);
    return undefined;
  }
  const names = new Set<string>();
  value.forEach((name: unknown, index) => {
    const element = `${field}[${index}]`;
    if (typeof name !== 'string' || !isHttpToken(name)) {
      const token = "is not an HTTP token (RFC 9110: letters, digits and !#$%&'*+-.^_`|~, no spaces or commas)";
      problems.report('CORS_INVALID_NAME', element, name, token, nameElementFix(name, field));
    } else if (name === '*' && value.length > 1) {
      const problem = "in a list means nothing: '*' alone already stands for every name";
      problems.report('CORS_WILDCARD_IN_LIST', element, name, problem, `use ${field}: '*' alone, or list the names`);
    } else {
      names.add(name);
    }
  });
  return [...names];
}

function notAList(field: NamesField): { problem: string; fix: string } {
  return { problem: "is neither '*' nor an array of names", fix: `use an array, e.g. ${codeLiteral(NAMES_OF[field].example)}` };
}

/**
 * A string where an array of names is expected, as the cors package takes them (`'GET,POST'`,
 * `'Content-Type'`): the fix is the array of the names it holds, the user's own; when one of them
 * is no name at all, the message points at it rather than proposing an array refused in turn.
 */
function namesStringMistake(value: string, field: NamesField): { problem: string; fix: string; names?: readonly string[] } {
  const { kind, example } = NAMES_OF[field];
  const names = splitNames(value, field);
  if (names.length === 0) {
    const fix =
      field === 'allowedMethods'
        ? `leave it out to grant the methods of each path, or list them, e.g. ${codeLiteral(example)}`
        : field === 'allowedHeaders'
          ? `leave it out to allow the headers a preflight asks for, use [] to allow none, or list them, e.g. ${codeLiteral(example)}`
          : `leave it out to expose no header, or list them, e.g. ${codeLiteral(example)}`;
    return { problem: `is ${value === '' ? 'empty' : 'blank'}, not an array of names`, fix };
  }
  const bad = names.find((name) => !isHttpToken(name));
  if (bad !== undefined) {
    const token = "one HTTP token (RFC 9110: letters, digits and !#$%&'*+-.^_`|~, no spaces)";
    return names.length > 1
      ? {
          problem: `is neither '*' nor an array of names, and ${JSON.stringify(bad)} in it is no ${kind}: a name is ${token}`,
          fix: `correct ${codeLiteral(bad)}, then give the ${kind}s as an array, one per element`,
        }
      : {
          problem: `is neither '*' nor an array of names, nor one ${kind}: a name is ${token}`,
          fix: `correct it (several names go in separate array elements), then put it in an array`,
        };
  }
  if (names.length > 1 && names.includes('*')) {
    return {
      problem: "is neither '*' nor an array of names, and '*' in it stands for every name",
      fix: `use ${field}: '*' alone, or list the names without it`,
    };
  }
  const upperCased = names.some((name, index) => name !== splitNames(value, 'allowedHeaders')[index]);
  const caseNote = upperCased ? ' (in upper case: browsers compare methods byte for byte)' : '';
  if (names.length === 1)
    return { problem: `is one ${kind} where an array of names is expected`, fix: `put it in an array: ${codeLiteral(names)}${caseNote}`, names };
  return { problem: "is neither '*' nor an array of names", fix: `use an array, one ${kind} per element: ${codeLiteral(names)}${caseNote}`, names };
}

/** The names a comma-separated string holds, trimmed, empty elements dropped; methods upper-cased (those that are names). */
function splitNames(value: string, field: NamesField): string[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return field === 'allowedMethods' ? names.map((name) => (isHttpToken(name) ? name.toUpperCase() : name)) : names;
}

/** The fix for an array element that is no name: split a comma-joined one, else say what a name is. */
function nameElementFix(name: unknown, field: NamesField): string {
  const { kind, example } = NAMES_OF[field];
  if (typeof name !== 'string') return `write each ${kind} as a string, e.g. ${codeLiteral(example[0])}`;
  if (name.trim() === '') return 'remove the empty element';
  const parts = splitNames(name, field);
  if (name.includes(',') && parts.every(isHttpToken)) return `give each ${kind} its own array element: ${parts.map(codeLiteral).join(', ')}`;
  return `write one ${kind} per array element, without spaces or other separators`;
}

/** Option names of the cors package, @fastify/cors and hono, for users moving over. */
const OTHER_PACKAGES_NAMES: Readonly<Record<string, { from: string; field: NamesField | 'allowCredentials' }>> = {
  credentials: { from: 'the cors package (and @fastify/cors, hono)', field: 'allowCredentials' },
  methods: { from: 'the cors package (and @fastify/cors)', field: 'allowedMethods' },
  allowMethods: { from: 'hono', field: 'allowedMethods' },
  allowHeaders: { from: 'hono', field: 'allowedHeaders' },
  exposeHeaders: { from: 'hono', field: 'exposedHeaders' },
};

/** The fix for an option named as another package names it: our name, with the value as ours takes it. */
function othersFix(ours: NamesField | 'allowCredentials', value: unknown): string {
  if (ours === 'allowCredentials' || value === '*') return `use ${ours}: ${codeLiteral(value)}`;
  if (typeof value === 'string') {
    // The array of the names the string holds, or, when it holds something else, what to correct.
    const mistake = namesStringMistake(value, ours);
    return mistake.names === undefined ? `use ${ours}, and ${mistake.fix}` : `use ${ours}: ${codeLiteral(mistake.names)}`;
  }
  if (Array.isArray(value) && ours === 'allowedMethods') {
    return `use ${ours}: ${codeLiteral(value.map((name: unknown) => (typeof name === 'string' && isHttpToken(name) ? name.toUpperCase() : name)))}`;
  }
  return `use ${ours}: ${codeLiteral(value)}`;
}

/** A typo: the same letters in another case, or at most two edits (Levenshtein) apart. */
function isNearMiss(given: string, known: string): boolean {
  if (given.toLowerCase() === known.toLowerCase()) return true;
  if (Math.abs(given.length - known.length) > 2) return false;
  let previous = Array.from({ length: known.length + 1 }, (_, index) => index);
  for (let i = 1; i <= given.length; i++) {
    const row = [i];
    for (let j = 1; j <= known.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (given[i - 1] === known[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[known.length]! <= 2;
}
