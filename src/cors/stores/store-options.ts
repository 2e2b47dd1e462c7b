/** The checks every origin store's options and writes go through, with the project's error codes and fixes. */
import { CorsOptionsError } from '../core/errors.js';
import { serializedOriginMistake } from '../core/origin-matcher.js';

/** A key prefix or a table name part: nothing a store would read as syntax. */
export const KEY_PART = /^[A-Za-z0-9:_.-]+$/;

/** The options of OriginStoreOptions, shared by every store. */
const COMMON = ['tenant', 'ttl', 'maxStale', 'maxEntries', 'lookupTimeout', 'logger'];

/** Throws CORS_OPTIONS_NOT_OBJECT or CORS_UNKNOWN_OPTION (naming the store's own options) where they apply. */
export function checkStoreOptions(source: string, options: unknown, own: readonly string[]): void {
  if (options === null || typeof options !== 'object') {
    throw new CorsOptionsError(
      'CORS_OPTIONS_NOT_OBJECT',
      source,
      '(options)',
      options,
      'is not an options object',
      `${source.replace('()', '')}({ client, ... })`,
    );
  }
  const known = [...own, ...COMMON];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new CorsOptionsError(
        'CORS_UNKNOWN_OPTION',
        source,
        key,
        (options as Record<string, unknown>)[key],
        `is no option of ${source}`,
        `remove it; the options are ${known.join(', ')}`,
      );
    }
  }
}

/** Node's longest timer, in ms: a longer one fires at once. */
export const LONGEST_TIMER = 2 ** 31 - 1;

/** An option that is a count or milliseconds: a whole number from `least` to `most`. */
export function wholeNumber(name: string, value: number | undefined, fallback: number, least = 0, most = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < least || value > most) {
    const range = most === Number.MAX_SAFE_INTEGER ? `of ${least} or more` : `from ${least} to ${most}`;
    throw new CorsOptionsError('CORS_INVALID_NUMBER', 'origin store', name, value, `is not a whole number ${range}`, `${name}: ${fallback}`);
  }
  return value;
}

/** A store option that is not what it must be: CORS_INVALID_ORIGIN_POLICY, the origin policy being the store. */
export function invalidStoreOption(source: string, field: string, value: unknown, problem: string, fix: string): CorsOptionsError {
  return new CorsOptionsError('CORS_INVALID_ORIGIN_POLICY', source, field, value, problem, fix);
}

/**
 * `origin` as a browser sends it (scheme, host and port, nothing else), by the origin option's own
 * rule: a list holding anything else would never match. Throws CORS_INVALID_ORIGIN with the fix.
 */
export function checkedOrigin(source: string, origin: unknown): string {
  const mistake =
    typeof origin === 'string' ? serializedOriginMistake(origin) : { problem: 'is not a string', fix: "an origin such as 'https://app.example.com'" };
  if (mistake === undefined) return origin as string;
  throw new CorsOptionsError('CORS_INVALID_ORIGIN', source, 'origin', origin, mistake.problem, mistake.fix);
}
