/** Validates options, every field, and compiles them into a frozen policy; the one place options are checked. */
import { CorsOptionsError, describeValue } from './errors.js';
import { isHttpToken } from './http-grammar.js';
import { faultReporter } from './line-limit.js';
import { compileOriginMatcher, type OriginMatcher } from './origin-matcher.js';
import { CORS_OPTION_FIELDS, mergeCorsOptions, type AnyCorsOptions, type CorsLogger, type OriginCacheOptions } from './options.js';

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

/** How long an async origin function may take: long enough for a database, short enough for a preflight. */
const DEFAULT_ORIGIN_TIMEOUT = 5000;

/** Chromium's cap on `Access-Control-Max-Age`; Firefox caps at 86400. */
const BROWSER_MAX_AGE = 7200;

export interface PolicyContext {
  /** Where the options came from, named in every error and warning. */
  readonly source: string;
  readonly logger: CorsLogger;
}

/**
 * Validates every field of `options` (never mutating it) and compiles the policy. Throws
 * `CorsOptionsError`. `options` is a merge of objects that passed checkOptionsObject.
 */
export function compilePolicy(options: AnyCorsOptions, context: PolicyContext): CorsPolicy {
  const { source } = context;
  const allowCredentials = checkBoolean(options.allowCredentials, 'allowCredentials', source);
  const timeout = checkWholeNumber(options.originTimeout, 'originTimeout', source, 1, 60_000, {
    problem: 'is not a whole number of milliseconds from 1 to 60000',
    fix: 'use e.g. 2000; a browser waits for the preflight, so keep it short',
  });
  const cache = checkOriginCache(options, source);
  const origin = compileOriginMatcher(options.origin, {
    ...context,
    timeout: timeout ?? DEFAULT_ORIGIN_TIMEOUT,
    cache,
    reportFault: faultReporter(context.logger),
  });
  const allowedHeaders = checkNames(options.allowedHeaders, 'allowedHeaders', source);
  const exposedHeaders = checkNames(options.exposedHeaders, 'exposedHeaders', source);
  const allowedMethods = checkNames(options.allowedMethods, 'allowedMethods', source);
  if (allowedMethods !== undefined && allowedMethods.length === 0) {
    throw new CorsOptionsError(
      'CORS_NO_METHOD',
      source,
      'allowedMethods',
      options.allowedMethods,
      'grants no method',
      'list the methods, or leave the option out to grant the methods of each path',
    );
  }
  allowedMethods?.forEach((method, index) => {
    // Browsers upper-case DELETE, GET, HEAD, OPTIONS, POST and PUT before the preflight, then
    // compare byte for byte: 'put' or 'Put' never matches. route() refuses the same spellings.
    if (method !== method.toUpperCase()) {
      throw new CorsOptionsError(
        'CORS_METHOD_NOT_UPPER_CASE',
        source,
        `allowedMethods[${index}]`,
        method,
        'is not in upper case, and browsers compare methods case-sensitively (they upper-case the standard ones first)',
        `write ${JSON.stringify(method.toUpperCase())}`,
      );
    }
  });

  if (allowCredentials) {
    // Browsers read `*` literally on credentialed requests, so these would silently fail.
    if (origin.kind === 'any') {
      throw new CorsOptionsError(
        'CORS_WILDCARD_WITH_CREDENTIALS',
        source,
        'origin',
        options.origin ?? '*',
        "together with allowCredentials: true is refused by browsers (a credentialed response needs the exact origin, never '*')",
        'list the origins that may send credentials, e.g. origin: ["https://app.example.com"]',
      );
    }
    const names = { allowedHeaders, exposedHeaders, allowedMethods };
    for (const field of ['allowedHeaders', 'exposedHeaders', 'allowedMethods'] as const) {
      if (names[field]?.includes('*')) {
        throw new CorsOptionsError(
          'CORS_WILDCARD_WITH_CREDENTIALS',
          source,
          field,
          '*',
          "together with allowCredentials: true is read by browsers as a header literally named '*'",
          `list the names in ${field}`,
        );
      }
    }
    if (options.origin === true) {
      context.logger.warn(
        `${source}: CorsOptions.origin = true with allowCredentials: true lets every web site read your users' data with their cookies. List the ` +
          `trusted origins instead.`,
      );
    }
  }

  const maxAge = checkWholeNumber(options.maxAge, 'maxAge', source, 0, Number.MAX_SAFE_INTEGER, {
    problem: 'is not a whole number of seconds >= 0',
    fix: 'use e.g. 600 (ten minutes); browsers cap it (Chromium at 7200)',
  });
  if (maxAge !== undefined) {
    if (maxAge > BROWSER_MAX_AGE) {
      context.logger.warn(
        `${source}: CorsOptions.maxAge = ${maxAge} is above what Chromium honours (${BROWSER_MAX_AGE} s; Firefox: 86400 s); browsers will cache ` +
          `preflights for less.`,
      );
    }
  }

  const status = checkWholeNumber(options.optionsSuccessStatus, 'optionsSuccessStatus', source, 200, 299, {
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
    allowPrivateNetwork: checkBoolean(options.allowPrivateNetwork, 'allowPrivateNetwork', source),
    preflightContinue: checkBoolean(options.preflightContinue, 'preflightContinue', source),
    optionsSuccessStatus: status ?? 204,
  });
}

/**
 * A user's options object, as createCors() or CorsModule.withOpts() receive it: checked, copied
 * (so that later changes to the caller's object change nothing) and compiled.
 */
export function compileUserOptions(options: unknown, context: PolicyContext): { options: AnyCorsOptions; policy: CorsPolicy } {
  checkOptionsObject(options, context.source);
  const copy = mergeCorsOptions(options, undefined);
  return { options: copy, policy: compilePolicy(copy, context) };
}

/** An options object as given by a user: an object with known fields only (typos such as `orgin` are refused). */
export function checkOptionsObject(options: unknown, source: string): asserts options is AnyCorsOptions {
  checkObject(options, '(options)', source, 'pass an object such as { origin: "https://app.example.com" }, or nothing for the defaults');
  for (const field of Object.keys(options)) {
    if (!(CORS_OPTION_FIELDS as readonly string[]).includes(field)) {
      const value = (options as Record<string, unknown>)[field];
      const ours = Object.hasOwn(OTHER_PACKAGES_NAMES, field) ? OTHER_PACKAGES_NAMES[field] : undefined;
      if (ours !== undefined) {
        throw new CorsOptionsError(
          'CORS_OPTION_OF_ANOTHER_PACKAGE',
          source,
          field,
          value,
          `is ${ours.from}'s name for ${ours.field}`,
          `use ${ours.field}: ${describeValue(asList(value))}`,
        );
      }
      const near = CORS_OPTION_FIELDS.find((known) => isNearMiss(field, known));
      throw new CorsOptionsError(
        'CORS_UNKNOWN_OPTION',
        source,
        field,
        value,
        'is not a CORS option',
        near === undefined ? `use one of ${CORS_OPTION_FIELDS.join(', ')}` : `did you mean ${near}? The fields are ${CORS_OPTION_FIELDS.join(', ')}`,
      );
    }
  }
}

function checkObject(value: unknown, field: string, source: string, fix: string): asserts value is object {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CorsOptionsError('CORS_OPTIONS_NOT_OBJECT', source, field, value, 'is not an object', fix);
}

/** `originCache`: for an origin function only, with a size and a time-to-live in range. */
function checkOriginCache(options: AnyCorsOptions, source: string): OriginCacheOptions | undefined {
  const cache: unknown = options.originCache;
  if (cache === undefined) return undefined;
  if (typeof options.origin !== 'function') {
    throw new CorsOptionsError(
      'CORS_ORIGIN_CACHE_WITHOUT_FUNCTION',
      source,
      'originCache',
      cache,
      'keeps the answers of an origin function, and origin is not one',
      'leave originCache out; lists, patterns and RegExps are matched in memory already',
    );
  }
  checkObject(cache, 'originCache', source, 'use e.g. { max: 1000, ttl: 60000 }: at most 1,000 origins, each kept a minute');
  const { max, ttl } = cache as Record<string, unknown>;
  return {
    max: checkWholeNumber(max, 'originCache.max', source, 1, 1_000_000, { problem: 'is not a whole number from 1 to 1000000', fix: 'use e.g. 1000' }) ?? 1000,
    ttl:
      checkWholeNumber(ttl, 'originCache.ttl', source, 1, 86_400_000, {
        problem: 'is not a whole number of milliseconds from 1 to 86400000',
        fix: 'use e.g. 60000 (a minute)',
      }) ?? 60_000,
  };
}

/** `undefined`, or a whole number from `min` to `max`; anything else throws with `message`. */
function checkWholeNumber(
  value: unknown,
  field: string,
  source: string,
  min: number,
  max: number,
  message: { problem: string; fix: string },
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new CorsOptionsError('CORS_INVALID_NUMBER', source, field, value, message.problem, message.fix);
  }
  return value;
}

function checkBoolean(value: unknown, field: string, source: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new CorsOptionsError('CORS_INVALID_BOOLEAN', source, field, value, 'is not a boolean', `use true or false`);
  return value;
}

/** `'*'` or an array of tokens; returns a copy (the caller's array is never kept or mutated). */
function checkNames(value: unknown, field: string, source: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (value === '*') return ['*'];
  if (!Array.isArray(value)) {
    throw new CorsOptionsError(
      'CORS_INVALID_NAME_LIST',
      source,
      field,
      value,
      "is neither '*' nor an array of names",
      typeof value === 'string' && value.includes(',')
        ? `use an array, one name per element: ${describeValue(asList(value))}`
        : `use an array, e.g. ${field === 'allowedMethods' ? "['GET', 'POST']" : "['X-Request-Id']"}`,
    );
  }
  value.forEach((name: unknown, index) => {
    if (typeof name !== 'string' || !isHttpToken(name)) {
      throw new CorsOptionsError(
        'CORS_INVALID_NAME',
        source,
        `${field}[${index}]`,
        name,
        "is not an HTTP token (RFC 9110: letters, digits and !#$%&'*+-.^_`|~, no spaces or commas)",
        `write one name per array element, e.g. ${describeValue(field === 'allowedMethods' ? 'PATCH' : 'X-Request-Id')}`,
      );
    }
    if (name === '*' && value.length > 1) {
      throw new CorsOptionsError(
        'CORS_WILDCARD_IN_LIST',
        source,
        `${field}[${index}]`,
        name,
        "in a list means nothing: '*' alone already stands for every name",
        `use ${field}: '*' alone, or list the names`,
      );
    }
  });
  return [...new Set<string>(value)];
}

/** Option names of the cors package, @fastify/cors and hono, for users moving over. */
const OTHER_PACKAGES_NAMES: Readonly<Record<string, { from: string; field: string }>> = {
  credentials: { from: 'the cors package (and @fastify/cors, hono)', field: 'allowCredentials' },
  methods: { from: 'the cors package (and @fastify/cors)', field: 'allowedMethods' },
  allowMethods: { from: 'hono', field: 'allowedMethods' },
  allowHeaders: { from: 'hono', field: 'allowedHeaders' },
  exposeHeaders: { from: 'hono', field: 'exposedHeaders' },
};

/** `'GET,POST'` as the array our options take; other values as they are. */
function asList(value: unknown): unknown {
  return typeof value === 'string' && value !== '*' && /[, ]/.test(value)
    ? value
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '')
    : value;
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
