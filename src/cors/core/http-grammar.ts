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
// a space or a comma, so the engine never has to choose where a name ends. Empty elements
// (",,") are refused: browsers never send them.
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
 * Whether an Access-Control-Request-Headers value may be reflected as it is: at most 4 KiB,
 * at most 64 names, each a token. The length is checked before anything is scanned.
 */
export function isReflectableHeaderList(value: string): boolean {
  return value.length <= MAX_REQUEST_HEADERS_LENGTH && TOKEN_LIST.test(value);
}
