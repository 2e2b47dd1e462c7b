/** Rule D: cookies that browsers accept on CORS responses (setCorsCookie), and the one warning about them under '*'. */
import type { IncomingMessage, ServerResponse } from 'node:http';

import vary from 'vary';

import { CorsUsageError } from '../core/errors.js';
import type { CorsLogger } from '../core/options.js';

/** The cookie attributes `setCorsCookie` takes; `Path=/` and `HttpOnly` unless said otherwise. */
export interface CookieOptions {
  /** `Domain`; without it the cookie is the current host's only. */
  domain?: string;
  /** `Expires`; its UTC year must lie between 1601 and 9999. Without it (and `maxAge`) the cookie lasts the session. */
  expires?: Date;
  /** `HttpOnly`: page scripts cannot read the cookie. */
  httpOnly?: boolean;
  /** `Max-Age`, in seconds (an integer). It wins over `expires` where a browser gets both. */
  maxAge?: number;
  /** `Partitioned` (CHIPS): the cookie is kept per top-level site. */
  partitioned?: boolean;
  /** `Path`; `/` unless said otherwise. */
  path?: string;
  /** `Priority`: `Low`, `Medium` or `High`. */
  priority?: 'low' | 'medium' | 'high';
  /** `SameSite`: `true` means `Strict`. */
  sameSite?: boolean | 'lax' | 'strict' | 'none';
  /** `Secure`: sent back over HTTPS only. */
  secure?: boolean;
}

const COOKIE_DEFAULTS: CookieOptions = Object.freeze({ path: '/', httpOnly: true });

/** Loggers already warned about a credentialed response under origin '*': one warning each. */
const warnedAboutWildcard = new WeakSet<CorsLogger>();

/**
 * Rule D of the contract (docs/CONTRACT.md, section 3): appends a `Set-Cookie` (never replacing earlier ones) and lets the
 * browser accept it on a CORS response. The origin decision is already on the response (the
 * engine set `Access-Control-Allow-Origin` before the handler ran): an exact origin stays, with
 * `Vary: Origin`; `'*'` stays `'*'` (never echoing: that would open credentialed access to
 * every site) and the first such call warns how to list origins. Throws, writing nothing, on
 * an invalid name, value or attribute.
 */
export function setCorsCookie(
  req: IncomingMessage,
  res: ServerResponse,
  name: string,
  value: string,
  options: CookieOptions = {},
  logger: CorsLogger = console,
): void {
  let cookie: string;
  try {
    // Loaded at the first cookie, not at import: most applications set none through the engine.
    // cookie 0.7, the one Express 4 and 5 depend on: an Express application installs one copy (2.x
    // is published as ES modules only, which jest on Node 22 cannot require(); 1.x installs twice
    // as much). It ships no types: serialize() is the one function called, with the options
    // declared above.
    const { serialize } = require('cookie') as { serialize(name: string, value: string, options: CookieOptions): string };
    cookie = serialize(name, value, { ...COOKIE_DEFAULTS, ...options });
  } catch (error) {
    throw new CorsUsageError(
      'CORS_INVALID_COOKIE',
      `setCookie(${JSON.stringify(name)}, ...): ${(error as Error).message}. Cookie names are RFC 6265 tokens (letters, digits and !#$%&'*+-.^_\`|~); ` +
        `values are percent-encoded, and a value holding a lone surrogate cannot be.`,
    );
  }
  const previous = res.getHeader('Set-Cookie');
  res.setHeader('Set-Cookie', previous === undefined ? [cookie] : [...(Array.isArray(previous) ? previous : [String(previous)]), cookie]);
  res.setHeader('Access-Control-Allow-Credentials', 'true');
  const allowOrigin = res.getHeader('Access-Control-Allow-Origin');
  if (allowOrigin === '*') {
    warnOnceAboutWildcard(
      logger,
      `setCookie() on ${req.method} ${req.url}: this route's CORS origin is '*', so browsers refuse its cookies on cross-origin requests (a ` +
        `credentialed response needs the exact origin, and echoing every origin would let any site act as your users). List the origins that may send ` +
        `credentials, e.g. CorsModule.withOpts({ origin: ['https://app.example.com'] }).`,
    );
  } else if (allowOrigin !== undefined) {
    vary(res, 'Origin');
  }
}

/**
 * The one warning a logger gets about cookies under origin '*': CorsModule gives it at start-up
 * for the routes it knows set cookies, setCorsCookie() at the first call otherwise.
 */
export function warnOnceAboutWildcard(logger: CorsLogger, message: string): void {
  if (warnedAboutWildcard.has(logger)) return;
  warnedAboutWildcard.add(logger);
  logger.warn(message);
}
