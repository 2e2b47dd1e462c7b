/**
 * A browser's CORS checks on an answer: the Fetch standard's "CORS check" and "CORS-preflight
 * fetch" (sections 4.8 and 4.9), written against plain header maps so that `explain()` judges the
 * engine's own answers and `cors-check` any server's the same way. Nothing here imports `node:`.
 */

/**
 * A stable code per outcome, each with its section in docs/errors.md (reasonDocs() links it;
 * test/docs/errors-doc.test.ts pins that the two lists match).
 */
export const REASON_CODES = [
  'allowed',
  'not-cors',
  'not-covered',
  'cors-off',
  'origin-not-allowed',
  'origin-mismatch',
  'wildcard-with-credentials',
  'credentials-not-allowed',
  'preflight-status',
  'method-not-allowed',
  'header-not-allowed',
  'preflight-continued',
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

/**
 * The section of docs/errors.md that explains `code`, as a path from the package's folder (the
 * tarball ships the page there, scripts/package-readme.js copies it) and from the repository's.
 * GitHub's anchor of a heading that is the code itself is the code.
 */
export function reasonDocs(code: ReasonCode): string {
  return `docs/errors.md#${code}`;
}

/** An answer as the browser sees it: the status and the headers, names in lower case. */
export interface SeenAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
}

export interface CheckFailure {
  readonly code: ReasonCode;
  /** What the browser saw, in one clause. */
  readonly detail: string;
  /** The method or header name the check failed on (method-not-allowed, header-not-allowed). */
  readonly name?: string;
}

const SAFELISTED_METHODS = new Set(['GET', 'HEAD', 'POST']);
const SAFELISTED_CONTENT_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
/** Methods fetch() upper-cases before sending (Fetch: "normalize a method"). */
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

export function normalizeMethod(method: string): string {
  const upper = method.toUpperCase();
  return NORMALIZED_METHODS.has(upper) ? upper : method;
}

/**
 * The request headers a preflight must name (Fetch: "CORS-unsafe request-header names"), lower
 * case and sorted, as browsers send them in `Access-Control-Request-Headers`.
 */
export function unsafeHeaderNames(headers: Readonly<Record<string, string>>): string[] {
  const unsafe: string[] = [];
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (name === 'accept' || name === 'accept-language' || name === 'content-language') {
      if (value.length <= 128) continue;
    } else if (name === 'content-type') {
      const essence = value.split(';')[0]!.trim().toLowerCase();
      if (SAFELISTED_CONTENT_TYPES.has(essence) && value.length <= 128) continue;
    } else if (name === 'origin' || name === 'cookie' || name === 'host') {
      continue; // set by the browser itself, never by a page
    }
    unsafe.push(name);
  }
  return unsafe.sort();
}

/** Whether fetch() sends a preflight before this request. */
export function needsPreflight(method: string, headers: Readonly<Record<string, string>>): boolean {
  return !SAFELISTED_METHODS.has(normalizeMethod(method)) || unsafeHeaderNames(headers).length > 0;
}

/** The Fetch standard's CORS check, for the answer to a request from `origin`. */
export function corsCheck(origin: string, answer: SeenAnswer, credentials: boolean): CheckFailure | undefined {
  const allowOrigin = answer.headers['access-control-allow-origin'];
  if (allowOrigin === undefined) return { code: 'origin-not-allowed', detail: 'the answer has no Access-Control-Allow-Origin' };
  if (allowOrigin === '*' && !credentials) return undefined;
  if (allowOrigin === '*')
    return { code: 'wildcard-with-credentials', detail: "Access-Control-Allow-Origin is '*', which a credentialed request never accepts" };
  if (allowOrigin !== origin)
    return { code: 'origin-mismatch', detail: `Access-Control-Allow-Origin is ${JSON.stringify(allowOrigin)}, not the page's ${JSON.stringify(origin)}` };
  if (credentials && answer.headers['access-control-allow-credentials'] !== 'true') {
    return { code: 'credentials-not-allowed', detail: 'a credentialed request needs Access-Control-Allow-Credentials: true, and the answer has none' };
  }
  return undefined;
}

/** The CORS-preflight fetch's checks on its answer, for `method` with the unsafe `headerNames`. */
export function preflightCheck(
  origin: string,
  method: string,
  headerNames: readonly string[],
  answer: SeenAnswer,
  credentials: boolean,
): CheckFailure | undefined {
  if (answer.status < 200 || answer.status > 299) return { code: 'preflight-status', detail: `the preflight was answered ${answer.status}, not a 2xx` };
  const failure = corsCheck(origin, answer, credentials);
  if (failure !== undefined) return failure;
  const methods = splitList(answer.headers['access-control-allow-methods']);
  const wanted = normalizeMethod(method);
  if (!methods.includes(wanted) && !SAFELISTED_METHODS.has(wanted) && (credentials || !methods.includes('*'))) {
    return { code: 'method-not-allowed', name: wanted, detail: `${wanted} is not in Access-Control-Allow-Methods (${methods.join(', ') || 'absent'})` };
  }
  const allowed = splitList(answer.headers['access-control-allow-headers']).map((name) => name.toLowerCase());
  for (const name of headerNames) {
    // '*' never covers Authorization (Fetch), though engines still let it through (README).
    const starCovers = !credentials && allowed.includes('*') && name !== 'authorization';
    if (!allowed.includes(name) && !starCovers) {
      return { code: 'header-not-allowed', name, detail: `${name} is not in Access-Control-Allow-Headers (${allowed.join(', ') || 'absent'})` };
    }
  }
  return undefined;
}

/** The items of a comma-separated header value, trimmed, empty ones dropped. */
export function splitList(value: string | undefined): string[] {
  return value === undefined
    ? []
    : value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
}
