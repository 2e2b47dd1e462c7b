/**
 * HTTP and URL grammar checks, each linear in its input. These are the few pieces of grammar the
 * engine checks, with the limits that keep every check linear. Nothing here allocates on success.
 */

// RFC 9110 5.6.2: token = 1*tchar
//   tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
const TCHARS = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const TOKEN = new RegExp(`^${TCHARS}$`);
// OWS = *( SP / HTAB )
const OWS = '[ \\t]*';

// An origin as browsers serialize it (HTML "serialization of an origin"): lower-case scheme,
// "://", a lower-case punycoded host or a bracketed IPv6 address, and a port only when it is
// not the scheme's default. A comma can never appear, so several joined Origin headers fail.
const SERIALIZED_ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$/;

// Dot-separated host labels, for the part a `*` pattern stands for.
const HOST_LABELS = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/;

/** Longer Origin values are refused unread: a host name is at most 253 bytes. */
export const MAX_ORIGIN_LENGTH = 512;
/** Access-Control-Request-Headers longer than this is not reflected (docs/CONTRACT.md, section 4). */
export const MAX_REQUEST_HEADERS_LENGTH = 4096;
/** ... nor one naming more headers than this. */
export const MAX_REQUEST_HEADER_NAMES = 64;

// RFC 9110 5.6.1: #token with OWS around each element, at most MAX_REQUEST_HEADER_NAMES
// elements, the bound counted by the regex itself in its one pass. Linear: a tchar can never be
// a space or a comma, so the engine never has to choose where a name ends. This is the list as
// browsers send it; one with empty elements takes the slower path of reflectableHeaderList().
const TOKEN_LIST = new RegExp(`^${OWS}${TCHARS}${OWS}(?:,${OWS}${TCHARS}${OWS}){0,${MAX_REQUEST_HEADER_NAMES - 1}}$`);

export function isHttpToken(value: string): boolean {
  return TOKEN.test(value);
}

/** Schemes the URL parser serializes origins for (the WHATWG URL standard's special schemes). */
const SPECIAL_SCHEME = /^(?:https?|wss?|ftp):/;

/**
 * A request's Origin value that may be compared to patterns, RegExps or handed to a function:
 * exactly as a browser serializes it. The regex refuses most garbage at once; for the special
 * schemes the URL parser then has the last word, refusing what it would rewrite (a default
 * port written out, `http://0` for `http://0.0.0.0`).
 */
export function isWellFormedOrigin(origin: string): boolean {
  if (origin.length > MAX_ORIGIN_LENGTH || !SERIALIZED_ORIGIN.test(origin)) return false;
  if (!SPECIAL_SCHEME.test(origin)) return true;
  try {
    return new URL(origin).origin === origin;
  } catch {
    return false;
  }
}

export function isHostLabels(value: string): boolean {
  return HOST_LABELS.test(value);
}

/**
 * What of an Access-Control-Request-Headers value may be reflected: the value itself when it is
 * at most 4 KiB of at most 64 names, each a token; the same list without its empty elements
 * (RFC 9110 5.6.1: a recipient ignores them; proxies that merge header lines leave them) when
 * that is the only fault; `undefined` otherwise, and for a list with no name at all. The length
 * is checked before anything is scanned, so the slower path is bounded too.
 */
export function reflectableHeaderList(value: string): string | undefined {
  if (value.length > MAX_REQUEST_HEADERS_LENGTH) return undefined;
  return TOKEN_LIST.test(value) ? value : withoutEmptyElements(value);
}

/** tchar (above), by character code. */
const IS_TCHAR = new Uint8Array(128);
for (const char of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") IS_TCHAR[char.charCodeAt(0)] = 1;

const isOws = (code: number): boolean => code === 0x20 || code === 0x09;

/**
 * `#token` with empty elements allowed, read once from left to right (no regular expression, so
 * the work is the length of the list): its names joined by commas, or `undefined` where a name is
 * no token, there are more than MAX_REQUEST_HEADER_NAMES, or none at all.
 */
function withoutEmptyElements(value: string): string | undefined {
  const names: string[] = [];
  let at = 0;
  while (at <= value.length) {
    while (at < value.length && isOws(value.charCodeAt(at))) at++;
    const start = at;
    while (at < value.length && IS_TCHAR[value.charCodeAt(at)] === 1) at++;
    const end = at;
    while (at < value.length && isOws(value.charCodeAt(at))) at++;
    if (at < value.length && value.charCodeAt(at) !== 0x2c) return undefined;
    if (end > start) {
      if (names.length === MAX_REQUEST_HEADER_NAMES) return undefined;
      names.push(value.slice(start, end));
    }
    at++;
  }
  return names.length === 0 ? undefined : names.join(',');
}
