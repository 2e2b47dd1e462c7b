/** Compiles the `origin` option into one of the four policy kinds, and guards an origin function. */
import { codeLiteral, describeValue, type OptionProblems } from './errors.js';
import { isHostLabels, isWellFormedOrigin } from './http-grammar.js';
import type { OriginCacheOptions, OriginFunction, OriginOption } from './options.js';
import { publicSuffixList } from './public-suffixes.js';

/** An origin's verdict; `request` is whatever the entry point hands over, given to an origin function as it is. */
export type OriginCheck = (origin: string, request: unknown) => boolean | Promise<boolean>;

/**
 * How a policy answers an origin: the four kinds of docs/CONTRACT.md, section 2, which rule A tells apart:
 * - `any`: `'*'`, sent on every response;
 * - `fixed`: one origin, sent on every response, so caches need no `Vary: Origin`;
 * - `none`: CORS off (`false`), nothing is ever granted;
 * - `dynamic`: the answer depends on the request's `Origin` (a list, a pattern, a RegExp, a
 *   function, reflection), so every response varies on it.
 */
export type OriginMatcher =
  | { readonly kind: 'any' }
  | { readonly kind: 'fixed'; readonly origin: string }
  | { readonly kind: 'none' }
  | {
      readonly kind: 'dynamic';
      readonly allows: OriginCheck;
      /** The application's own origin function answers (it may be async, and may cost a database call). */
      readonly asksApplication?: true;
      /** The function's own account of a verdict it holds (an origin store's cache), read by explain(). */
      readonly heldVerdict?: HeldVerdict;
    };

/** How an origin function that keeps verdicts says what it holds for an origin, without asking anyone. */
export type HeldVerdict = (origin: string, request: unknown) => { readonly from: 'cache'; readonly age: number } | undefined;

/**
 * The key under which an origin function (an origin store's `origin`) offers its HeldVerdict:
 * the engine reads it; nothing of the engine depends on the stores.
 */
export const HELD_VERDICT = Symbol.for('@lib/cors held origin verdict');

/** A verdict an origin function holds and may give at once, without the checks made before asking it; else `undefined`. */
export type CachedAnswer = (origin: string, request: unknown) => boolean | undefined;

/**
 * The key under which an origin function (an origin store's `origin`) offers its CachedAnswer: a
 * verdict it holds is given as a list's is, before the well-formedness check, since the function
 * only ever kept verdicts of origins that passed it.
 */
export const CACHED_ANSWER = Symbol.for('@lib/cors cached origin answer');

interface Context {
  /** Where each problem is reported; the compile goes on past it, and its result is then discarded. */
  readonly problems: OptionProblems;
  /** Start-up warnings, held back by the policy until it knows the options have no problem. */
  readonly warn: (message: string) => void;
  /** Milliseconds an async origin function may take. */
  readonly timeout: number;
  /** Keep the function's answers (originCache). */
  readonly cache: OriginCacheOptions | undefined;
  /** Reports an origin function's fault, every one (the engine bounds the lines per second). */
  readonly reportFault: (message: string) => void;
}

const ANY: OriginMatcher = Object.freeze({ kind: 'any' });
const NONE: OriginMatcher = Object.freeze({ kind: 'none' });
const REFLECT: OriginMatcher = Object.freeze({ kind: 'dynamic', allows: isWellFormedOrigin });

/**
 * The matcher of the `origin` option. Each problem is reported to `context.problems`, every bad
 * list element included; the matcher returned then stands for nothing (the policy throws).
 */
export function compileOriginMatcher(value: OriginOption<never> | undefined, context: Context): OriginMatcher {
  if (value === undefined || value === '*') return ANY;
  if (value === false) return NONE;
  if (value === true) return REFLECT;
  if (typeof value === 'function') {
    const held = (value as { [HELD_VERDICT]?: HeldVerdict })[HELD_VERDICT];
    return Object.freeze({
      kind: 'dynamic',
      allows: guardOriginFunction(value, context),
      asksApplication: true,
      ...(held === undefined ? {} : { heldVerdict: held }),
    });
  }
  if (typeof value === 'string' && !isSingleOrigin(value, 'origin', context, false)) return NONE;
  if (typeof value === 'string' && value !== 'null' && !value.includes('*')) return fixedOrigin(value, 'origin', context);
  if (typeof value === 'string' || value instanceof RegExp) return compileList([value], 'origin', context);
  if (Array.isArray(value)) {
    if (value.length === 0) {
      context.problems.report('CORS_EMPTY_ORIGIN_LIST', 'origin', value, 'allows no origin at all', 'list at least one origin, or use false to turn CORS off');
      return NONE;
    }
    // One exact origin in a list is the same policy as the origin alone, and needs no Vary.
    const [only] = value;
    if (value.length === 1 && typeof only === 'string' && only !== '*' && only !== 'null' && !only.includes('*')) {
      return isSingleOrigin(only, 'origin[0]', context, true) ? fixedOrigin(only, 'origin[0]', context) : NONE;
    }
    return compileList(value, null, context);
  }
  context.problems.report(
    'CORS_INVALID_ORIGIN_POLICY',
    'origin',
    value,
    'is not a valid origin policy',
    "use '*', an origin such as 'https://app.example.com', a pattern such as 'https://*.example.com', a RegExp, true, false, an array of origins, " +
      'patterns and RegExps, or a function (origin, req) => boolean',
  );
  return NONE;
}

/** `field` is the name to report for a single value; `null` means "index into the list". Every bad entry is reported, and left out. */
function compileList(entries: readonly unknown[], field: string | null, context: Context): OriginMatcher {
  const exact = new Set<string>();
  const patterns: WildcardPattern[] = [];
  const regexps: RegExp[] = [];
  entries.forEach((entry, index) => {
    const name = field ?? `origin[${index}]`;
    if (entry instanceof RegExp) {
      if (isStatelessRegExp(entry, name, context)) regexps.push(entry);
    } else if (typeof entry !== 'string') {
      context.problems.report(
        'CORS_INVALID_ORIGIN_POLICY',
        name,
        entry,
        'is not allowed in an origin list',
        "list only origin strings, 'https://*.example.com' patterns, 'null' and RegExps; true, false and functions stand alone",
      );
    } else if (entry === '*') {
      context.problems.report(
        'CORS_WILDCARD_IN_LIST',
        name,
        entry,
        "in a list means nothing: '*' already allows every origin",
        "use origin: '*' alone, or list the origins",
      );
    } else if (entry === 'null') {
      exact.add(entry);
    } else if (field !== null || isSingleOrigin(entry, name, context, true)) {
      if (entry.includes('*')) {
        const pattern = compileWildcardPattern(entry, name, context);
        if (pattern !== undefined) patterns.push(pattern);
      } else if (isSerializedOrigin(entry, name, context)) {
        exact.add(entry);
      }
    }
  });
  // Hot path: an exact hit is one Set lookup. Patterns and RegExps only ever see origins that
  // are well formed, so `null`, joined duplicates and over-long values never reach them.
  const allows: OriginCheck = (origin) => {
    if (exact.has(origin)) return true;
    if (!isWellFormedOrigin(origin)) return false;
    for (const pattern of patterns) if (pattern.matches(origin)) return true;
    for (const regexp of regexps) if (regexp.test(origin)) return true;
    return false;
  };
  return Object.freeze({ kind: 'dynamic', allows });
}

/** The `fixed` matcher of one exact origin, or NONE once its mistake is reported. */
function fixedOrigin(value: string, field: string, context: Context): OriginMatcher {
  return isSerializedOrigin(value, field, context) ? Object.freeze({ kind: 'fixed', origin: value }) : NONE;
}

/**
 * Whether an origin string holds one origin; else reports, with a fix written for that mistake,
 * a string that is empty (an environment variable that is not set, which the cors package read
 * as '*') or that joins several origins with commas or spaces (a cors-style or
 * environment-variable list). Such a string can never be an origin; each origin in it is
 * checked, so the fix never proposes one that is refused in turn. `inList`: the string is an
 * element of an origin array.
 */
function isSingleOrigin(value: string, field: string, context: Context, inList: boolean): boolean {
  const mistake = joinedOrEmptyMistake(value, inList);
  if (mistake !== undefined) context.problems.report('CORS_INVALID_ORIGIN', field, value, mistake.problem, mistake.fix);
  return mistake === undefined;
}

function joinedOrEmptyMistake(value: string, inList: boolean): { problem: string; fix: string } | undefined {
  if (value.trim() === '') {
    return {
      problem: `is ${value === '' ? 'empty' : 'blank'} (read from an environment variable that is not set?)`,
      fix: inList
        ? "remove it from the list, or write an origin such as 'https://app.example.com'"
        : "write the origin that may read the responses, e.g. 'https://app.example.com'; false turns CORS off, and '*' lets every origin " +
          "read them (the cors package read an empty origin as '*')",
    };
  }
  if (!/[\s,]/.test(value)) return undefined;
  const origins = value.split(/[\s,]+/).filter((origin) => origin !== '');
  for (const origin of origins) {
    const mistake =
      origin === '*'
        ? { problem: 'stands for every origin, so it is never listed with others', fix: "use '*' alone, or list the origins without it" }
        : origin === 'null'
          ? undefined
          : origin.includes('*')
            ? mapProblem(wildcardPatternMistake(origin), "write the wildcard as the whole first label after the scheme, e.g. 'https://*.example.com'")
            : serializedOriginMistake(origin);
    if (mistake !== undefined) {
      const several =
        origins.length > 1
          ? `holds ${origins.length} origins in one string, and ${JSON.stringify(origin)} among them`
          : `holds ${JSON.stringify(origin)}, which`;
      return {
        problem: `${several} ${mistake.problem}`,
        fix: `${mistake.fix}; then ${origins.length > 1 ? 'give each origin its own array element' : 'write it without spaces or commas'}`,
      };
    }
  }
  if (origins.length === 1) return { problem: 'has spaces or a comma around the origin', fix: `write it as ${codeLiteral(origins[0])}` };
  return {
    problem: `holds ${origins.length} origins in one string, and a browser sends exactly one`,
    fix: inList
      ? `give each origin its own array element: ${origins.map(codeLiteral).join(', ')}`
      : `use an array, one origin per element: ${codeLiteral(origins)}`,
  };
}

function mapProblem(problem: string | undefined, fix: string): { problem: string; fix: string } | undefined {
  return problem === undefined ? undefined : { problem, fix };
}

/**
 * Accepts exactly the strings a browser would send in `Origin`: the URL parser's own
 * serialization must give the value back unchanged. That refuses a path or a trailing slash,
 * upper case, a default port written out, and a missing scheme, each reported with the corrected value.
 */
function isSerializedOrigin(value: string, field: string, context: Context): boolean {
  const mistake = serializedOriginMistake(value);
  if (mistake !== undefined) context.problems.report('CORS_INVALID_ORIGIN', field, value, mistake.problem, mistake.fix);
  return mistake === undefined;
}

/**
 * Why `value` is not an origin as browsers send it, with the fix that is (`undefined` when it is
 * one): the origin option's rule, and the origin stores' for what they write.
 */
export function serializedOriginMistake(value: string): { problem: string; fix: string } | undefined {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined && value.includes('://')) {
    // e.g. `http://localhost:${process.env.PORT}` with PORT unset: the fix keeps the user's scheme and host.
    const parts = /^([a-z][a-z0-9+.-]*):\/\/([^/:?#\s]+)(?::([^/?#]*))?/i.exec(value);
    const unset = /undefined|null|NaN/.test(value) ? ' (built from a variable that is not set?)' : '';
    if (parts !== null && parts[3] !== undefined && !/^[0-9]+$/.test(parts[3]) && serializedOriginMistake(`${parts[1]}://${parts[2]}`) === undefined) {
      const bare = `${parts[1]}://${parts[2]}`;
      return {
        problem: `has the port ${JSON.stringify(parts[3])}, which is not a number${unset}`,
        fix: `write the port your page is served from, e.g. ${codeLiteral(`${bare}:3000`)}, or no port for the scheme's own: ${codeLiteral(bare)}`,
      };
    }
    return { problem: `cannot be parsed as a URL${unset}`, fix: "write scheme, host and optional port, e.g. 'https://app.example.com'" };
  }
  if (url === undefined || !value.includes('://')) {
    // The host and port alone ('localhost:4200/' gives 'localhost:4200'), so the fix is an origin as written.
    const hostAndPort = value.replace(/^\/+/, '').split(/[/?#]/, 1)[0]!;
    // A dev server on a loopback host is plain http: https there would still be refused.
    const scheme = isLoopbackHost(hostAndPort.replace(/:[0-9]*$/, '')) ? 'http' : 'https';
    let origin = `${scheme}://${hostAndPort}`;
    try {
      origin = new URL(origin).origin;
    } catch {
      // Not a host at all: the suggestion stays as the user wrote it, after the scheme.
    }
    return { problem: 'is not an origin (no scheme)', fix: `write scheme and host, e.g. ${codeLiteral(origin)}` };
  }
  if (url.origin === 'null') {
    // Non-special schemes (chrome-extension://id) have an opaque origin in the URL parser, yet
    // browsers send them as written: accept them when they already look serialized.
    if (url.pathname === '' && url.search === '' && url.hash === '' && isWellFormedOrigin(value)) return undefined;
    return { problem: 'is not an origin browsers send', fix: "write scheme, host and optional port only, e.g. 'https://app.example.com'" };
  }
  if (url.origin !== value) {
    return {
      problem: 'is not a serialized origin (browsers send no path, no trailing slash, no upper case and no default port)',
      fix: `write it as ${codeLiteral(url.origin)}`,
    };
  }
  return undefined;
}

/**
 * The `http://` origins and patterns of an origin option (loopback hosts excepted: a dev server
 * is plain http, and no one else is on its network path), each with the field that holds it and
 * its https form. RegExps and functions are not read: what they admit cannot be listed.
 */
export function insecureOrigins(value: OriginOption<never> | undefined): { field: string; value: string; secure: string }[] {
  const entries = Array.isArray(value) ? value : [value];
  const found: { field: string; value: string; secure: string }[] = [];
  entries.forEach((entry, index) => {
    // One origin or pattern: a string other checks refuse (a list in one string, a path) is theirs to report.
    if (typeof entry !== 'string' || !/^http:\/\/[^\s,/]+$/.test(entry)) return;
    const host = entry.slice('http://'.length).replace(/:[0-9]*$/, '');
    if (isLoopbackHost(host)) return;
    found.push({ field: Array.isArray(value) ? `origin[${index}]` : 'origin', value: entry, secure: `https://${entry.slice('http://'.length)}` });
  });
  return found;
}

/** localhost, its sub-domains, 127.0.0.0/8 and [::1]: where dev servers listen, over http. */
function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || /^127(?:\.[0-9]{1,3}){3}$/.test(name) || name === '[::1]';
}

/**
 * With credentials, what an origin option grants beyond the user's own sites: every origin, or
 * every site under a public suffix (anyone can register a name there), found by asking its
 * RegExps and patterns about strangers' origins. `undefined` when it grants neither.
 */
export function strangersGranted(value: OriginOption<never> | undefined): string | undefined {
  const entries = Array.isArray(value) ? value : [value];
  for (const entry of entries) {
    const test = entry instanceof RegExp ? (origin: string) => new RegExp(entry.source, entry.flags).test(origin) : undefined;
    if (test === undefined) continue;
    const everyone = ['https://stranger.example', 'http://stranger.test:8080'].find(test);
    if (everyone !== undefined) return `${describeValue(entry)} grants every origin (${everyone}, say)`;
    for (const suffix of publicSuffixesIn(entry.source)) {
      const stranger = `https://stranger-site.${suffix}`;
      if (test(stranger))
        return `${describeValue(entry)} grants every site under ${suffix}, a public suffix where anyone can register a name (${stranger}, say)`;
    }
  }
  return undefined;
}

/** The public suffixes a RegExp's source names (`\.vercel\.app$` names vercel.app and app), longest first. */
function publicSuffixesIn(source: string): string[] {
  const list = publicSuffixList();
  if (list === undefined) return [];
  const names = source.replaceAll('\\.', '.').match(/[a-z0-9-]+(?:\.[a-z0-9-]+)*/gi) ?? [];
  const suffixes = new Set<string>();
  for (const name of names) {
    const labels = name.toLowerCase().split('.');
    for (let i = 0; i < labels.length; i++) {
      const candidate = labels.slice(i).join('.');
      if (list.isPublicSuffix(candidate)) suffixes.add(candidate);
    }
  }
  return [...suffixes].sort((a, b) => b.length - a.length);
}

/** What is wrong with a `*` pattern, or `undefined` when it is a pattern that can be compiled. */
function wildcardPatternMistake(value: string): string | undefined {
  const separator = value.indexOf('://');
  if (separator === -1) return 'has no scheme';
  if (value.indexOf('*') !== value.lastIndexOf('*')) return 'has more than one "*"';
  const prefix = value.slice(0, separator + 3);
  if (!value.startsWith('*.', prefix.length)) return 'puts "*" somewhere other than the whole first label';
  const suffix = value.slice(prefix.length + 1); // ".example.com[:port]"
  // The rest must itself be a serialized origin once the "*" is filled in.
  const mistake = serializedOriginMistake(`${prefix}x${suffix}`);
  if (mistake !== undefined) return mistake.problem.replace('is not', 'does not give');
  if (
    !suffix
      .slice(1)
      .replace(/:[0-9]+$/, '')
      .includes('.')
  )
    return 'would match every sub-domain of a top-level domain';
  return undefined;
}

/** `'https://*.example.com'`: any sub-domain of example.com, at any depth, never example.com itself. */
interface WildcardPattern {
  matches(origin: string): boolean;
}

/** The pattern, or `undefined` once its mistake is reported. */
function compileWildcardPattern(value: string, field: string, context: Context): WildcardPattern | undefined {
  const problem = wildcardPatternMistake(value);
  if (problem !== undefined) {
    context.problems.report(
      'CORS_INVALID_ORIGIN_PATTERN',
      field,
      value,
      problem,
      "write the wildcard as the whole first label after the scheme, e.g. 'https://*.example.com'",
    );
    return undefined;
  }
  const prefix = value.slice(0, value.indexOf('://') + 3);
  const suffix = value.slice(prefix.length + 1); // ".example.com[:port]"
  const host = suffix.slice(1).replace(/:[0-9]+$/, '');
  // The list is loaded here, at the first pattern, and not found in an edge bundle (public-suffixes.ts).
  if (publicSuffixList()?.isPublicSuffix(host) === true) {
    context.warn(
      `${context.problems.source}: CorsOptions.${field} = ${describeValue(value)} grants every sub-domain of ${host}, a public suffix: anyone can register a ` +
        `name there, so every stranger's site under it is granted. List your own origins instead, e.g. '${prefix}your-app.${host}'.`,
    );
  }
  return {
    matches(origin) {
      return (
        origin.length > prefix.length + suffix.length &&
        origin.startsWith(prefix) &&
        origin.endsWith(suffix) &&
        isHostLabels(origin.slice(prefix.length, origin.length - suffix.length))
      );
    },
  };
}

/** Whether a RegExp can match origins: one with the g or y flag is reported; a loose one is warned about. */
function isStatelessRegExp(regexp: RegExp, field: string, context: Context): boolean {
  if (regexp.global || regexp.sticky) {
    context.problems.report(
      'CORS_STATEFUL_REGEXP',
      field,
      regexp,
      'has the g or y flag, which makes test() remember lastIndex between requests and skip matches',
      `drop the flag: /${regexp.source}/${regexp.flags.replace(/[gy]/g, '')}`,
    );
    return false;
  }
  if (!isFullyAnchored(regexp.source)) {
    context.warn(
      `${context.problems.source}: CorsOptions.${field} = ${describeValue(regexp)} is not anchored with ^ and $ around the whole pattern, so it also matches ` +
        `origins that merely contain it (/example\\.com$/ matches https://evilexample.com, /^https:\\/\\/a\\.com|https:\\/\\/b\\.com$/ matches ` +
        `https://a.com.evil.net). Anchor it, with alternatives in a group: /^https:\\/\\/(?:a|b)\\.example\\.com$/.`,
    );
  } else if (hasUnescapedDot(regexp.source)) {
    context.warn(
      `${context.problems.source}: CorsOptions.${field} = ${describeValue(regexp)} has an unescaped "." outside a character class, which matches any character: ` +
        `/^https:\\/\\/(app|admin).example.com$/ also grants https://appxexample.com, a name anyone can register. Write a literal dot as \\. and a host ` +
        `label as [a-z0-9-]+.`,
    );
  }
  return true;
}

/**
 * `^` first, an unescaped `$` last, and no alternation outside parentheses: `/^a|b$/` anchors
 * `a` only at the start and `b` only at the end.
 */
function isFullyAnchored(source: string): boolean {
  if (!source.startsWith('^') || !source.endsWith('$')) return false;
  let backslashes = 0;
  for (let i = source.length - 2; i >= 0 && source[i] === '\\'; i--) backslashes++;
  if (backslashes % 2 === 1) return false;
  let depth = 0;
  const topLevelAlternation = (char: string): boolean => {
    if (char === '(') depth++;
    else if (char === ')') depth--;
    return char === '|' && depth === 0;
  };
  return !someOutsideClasses(source, topLevelAlternation);
}

/** A `.` that is neither escaped nor inside a character class: it matches any character. */
function hasUnescapedDot(source: string): boolean {
  return someOutsideClasses(source, (char) => char === '.');
}

/** Whether `test` holds for a character of a RegExp source that is neither escaped nor inside a character class. */
function someOutsideClasses(source: string, test: (char: string) => boolean): boolean {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (char === '\\') i++;
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (test(char)) return true;
  }
  return false;
}

/**
 * The user's function decides, but a fault of theirs must never become a 500 or a grant: a
 * throw, a rejection or a non-boolean answer denies, and each such fault is reported.
 */
function guardOriginFunction(fn: OriginFunction<never>, context: Context): OriginCheck {
  const deny = (what: string): false => {
    context.reportFault(`${context.problems.source}: the origin function ${describeValue(fn)} ${what}; the request was denied.`);
    return false;
  };
  // The cors package calls origin(origin, callback); here the second argument is the request,
  // so such a function throws on callback(...) or returns undefined. Arity alone cannot tell,
  // since (origin, req) also takes two.
  const callbackForm = fn.length >= 2;
  const CALLBACK_FORM =
    ": this looks like the cors package's callback form (origin, callback), but here the second argument is the request. " +
    'Return a boolean or a Promise<boolean> instead, e.g. async (origin) => allowedOrigins.has(origin)';
  const settle = (answer: unknown, verb: string): boolean => {
    if (typeof answer === 'boolean') return answer;
    return deny(`${verb} ${describeValue(answer)}, not a boolean${callbackForm && answer === undefined ? CALLBACK_FORM : ''}`);
  };
  const cache = context.cache === undefined ? undefined : new DecisionCache(context.cache);
  const held = (fn as { [CACHED_ANSWER]?: CachedAnswer })[CACHED_ANSWER];
  return (origin, req) => {
    // Hot path with a cache: a kept answer is given synchronously, as a list would give it, and
    // before the well-formedness check (whose URL parse costs more than the rest of a preflight's
    // decision): only well-formed origins reach the function, so only they are ever kept. The
    // same holds for a verdict the function holds itself (an origin store's).
    const kept = cache?.get(origin) ?? held?.(origin, req);
    if (kept !== undefined) return kept;
    if (!isWellFormedOrigin(origin)) return false;
    let answer: unknown;
    try {
      answer = fn(origin, req as never);
    } catch (error) {
      const calledTheRequest = callbackForm && error instanceof TypeError && / is not a function/.test(error.message);
      return deny(`threw ${describeError(error)}${calledTheRequest ? CALLBACK_FORM : ''}`);
    }
    if (answer instanceof Promise) {
      // A promise that never settles must not hold the request: past the timeout it is a denial.
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(deny(`did not settle within ${context.timeout} ms (originTimeout)`)), context.timeout);
        answer.then(
          (value: unknown) => {
            clearTimeout(timer);
            // A late answer after the timeout's denial is still kept: it is the function's own.
            if (typeof value === 'boolean') cache?.set(origin, value);
            resolve(settle(value, 'resolved to'));
          },
          (error: unknown) => {
            clearTimeout(timer);
            resolve(deny(`rejected with ${describeError(error)}`));
          },
        );
      });
    }
    if (typeof answer === 'boolean') cache?.set(origin, answer);
    return settle(answer, 'returned');
  };
}

/**
 * An origin function's answers by origin, at most `max` (least recently used evicted first), each
 * for `ttl` ms. Only answers the function gave are kept: faults and timeouts never reach it.
 */
class DecisionCache {
  readonly #entries = new Map<string, { allowed: boolean; expires: number }>();
  readonly #max: number;
  readonly #ttl: number;

  constructor({ max, ttl }: OriginCacheOptions) {
    this.#max = max;
    this.#ttl = ttl;
  }

  get(origin: string): boolean | undefined {
    const entry = this.#entries.get(origin);
    if (entry === undefined) return undefined;
    this.#entries.delete(origin);
    if (entry.expires <= Date.now()) return undefined;
    this.#entries.set(origin, entry); // most recently used last
    return entry.allowed;
  }

  set(origin: string, allowed: boolean): void {
    this.#entries.delete(origin);
    if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(origin, { allowed, expires: Date.now() + this.#ttl });
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : describeValue(error);
}
