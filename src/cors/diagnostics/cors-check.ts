#!/usr/bin/env node
/**
 * `cors-check <url> --origin <origin> [--method M] [--header 'Name: value']... [--credentials]`;
 * `cors-check --help` (or `-h`) prints the usage, `cors-check --version` the version of @lib/cors.
 *
 * Sends what a browser would send for a fetch() from a page on <origin> (the preflight when the
 * request needs one, then the request), applies the Fetch standard's checks to the answers
 * (browser-checks.ts, the same code explain() uses), and prints each step with its verdict and,
 * for a refusal, the section of docs/errors.md on its reason (the one explain() names).
 * Works against any server. Exit 0: a browser lets the page read the answer; 1: it does not;
 * 2: a usage or network error.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

import {
  corsCheck,
  needsPreflight,
  normalizeMethod,
  preflightCheck,
  reasonDocs,
  unsafeHeaderNames,
  type CheckFailure,
  type ReasonCode,
  type SeenAnswer,
} from './browser-checks.js';

const USAGE = "usage: cors-check <url> --origin <origin> [--method M] [--header 'Name: value']... [--credentials]";

const HELP = `${USAGE}

Sends what a browser would send for a fetch() from a page on <origin> to <url>: the preflight
when the request needs one, then the request. Prints each answer's CORS headers and whether the
browser would let the page read it, with the reason when it would not and the section of the
package's docs/errors.md that explains that reason and its fix.

  --origin <origin>        the page's origin, e.g. https://app.example.com (required)
  --method <method>        the request's method (default GET)
  --header 'Name: value'   a request header the page sets; repeat for more
  --credentials            the page sends cookies (fetch with credentials: 'include')
  -h, --help               print this help
  --version                print the version

Exit status: 0 when the browser lets the page read the answer, 1 when it does not, 2 on a usage
or network error.`;

/**
 * The folder and version of the package this file ships in: its package.json, found by going up
 * from this file (dist/diagnostics/cors-check.js in the package, wherever it is installed).
 */
function ownPackage(): { folder: string; version: string } | undefined {
  for (let up = '../'; up.length <= 15; up += '../') {
    try {
      const folder = join(__dirname, up);
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === '@lib/cors' && typeof manifest.version === 'string') return { folder, version: manifest.version };
    } catch {
      // no package.json at this level, or not ours: one level up
    }
  }
  return undefined;
}

/** Where a refusal is explained: the package's own copy of docs/errors.md, a path the user can open; the same section explain() names. */
function docsOf(code: ReasonCode): string {
  const folder = ownPackage()?.folder;
  return folder === undefined ? reasonDocs(code) : join(folder, reasonDocs(code));
}

interface Check {
  url: URL;
  origin: string;
  method: string;
  headers: Record<string, string>;
  credentials: boolean;
}

class UsageError extends Error {}

/** Options that take the next argument as their value. */
const WITH_VALUE = new Set(['--origin', '--method', '--header']);

/** `--help`/`-h` or `--version` among the options (not as another option's value), whatever else is given. */
function infoAsked(args: readonly string[]): 'help' | 'version' | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--version') return 'version';
    if (WITH_VALUE.has(arg)) i++;
  }
  return undefined;
}

function parse(args: readonly string[]): Check {
  let url: URL | undefined;
  let origin: string | undefined;
  let method = 'GET';
  let credentials = false;
  const headers: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = () => {
      const next = args[++i];
      if (next === undefined) throw new UsageError(`${arg} needs a value`);
      return next;
    };
    if (arg === '--origin') origin = value();
    else if (arg === '--method') method = normalizeMethod(value());
    else if (arg === '--credentials') credentials = true;
    else if (arg === '--header') {
      const header = value();
      const colon = header.indexOf(':');
      if (colon < 1) throw new UsageError(`--header takes 'Name: value', not ${JSON.stringify(header)}`);
      headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    } else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
    else if (url === undefined) {
      try {
        url = new URL(arg);
      } catch {
        throw new UsageError(`${JSON.stringify(arg)} is not a URL`);
      }
    } else throw new UsageError(`one URL only, not also ${JSON.stringify(arg)}`);
  }
  if (url === undefined) throw new UsageError('the URL is missing');
  if (origin === undefined) throw new UsageError('--origin is missing: the page the request would come from, e.g. https://app.example.com');
  return { url, origin, method, headers, credentials };
}

/** A loopback or private address (RFC 1918, RFC 4193, link-local), or localhost. */
function isPrivateHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) {
    const [a, b] = name.split('.').map(Number) as [number, number];
    return a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  if (isIP(name) === 6) return name === '::1' || /^f[cd]/.test(name) || name.startsWith('fe80:');
  return false;
}

async function send(url: URL, method: string, headers: Record<string, string>): Promise<SeenAnswer> {
  const response = await fetch(url, { method, headers, redirect: 'manual' });
  await response.arrayBuffer();
  return { status: response.status, headers: Object.fromEntries(response.headers) };
}

/** `asked`: a preflight's requested method, whose policy decides it where a path has a policy per method (rule E). */
function report(step: string, method: string, url: URL, answer: SeenAnswer, failure: CheckFailure | undefined, asked?: string): void {
  console.log(`${step} ${method} ${url.href}${asked === undefined ? '' : ` for ${asked}`} -> ${answer.status}`);
  for (const [name, value] of Object.entries(answer.headers)) {
    if (name.startsWith('access-control-') || name === 'vary') console.log(`  ${name}: ${value}`);
  }
  if (failure === undefined) {
    console.log('  verdict: allowed');
  } else {
    console.log(`  verdict: refused [${failure.code}]: ${failure.detail}`);
    console.log(`  docs: ${docsOf(failure.code)}`);
  }
}

/**
 * An answer that echoes the page's origin differs by origin: without `Origin` in `Vary`, a shared
 * cache may hand it to a page of another origin. Most often a handler set `Vary` whole and so
 * replaced the middleware's; the browser still reads it, so the verdict stands and this is a warning.
 */
function warnUnvaried(origin: string, answer: SeenAnswer): void {
  if (answer.headers['access-control-allow-origin'] !== origin) return;
  const vary = (answer.headers.vary ?? '')
    .toLowerCase()
    .split(',')
    .map((field) => field.trim());
  if (vary.includes('origin') || vary.includes('*')) return;
  console.log(
    "  warning: the answer echoes the origin but its Vary does not name Origin, so a shared cache may give it to another origin's page. " +
      "Fix: a handler that sets Vary adds to it (res.vary('Accept') in Express, vary(res, 'Accept')) instead of replacing it.",
  );
}

async function main(args: readonly string[]): Promise<number> {
  const asked = infoAsked(args);
  if (asked !== undefined) {
    console.log(asked === 'help' ? HELP : (ownPackage()?.version ?? 'unknown'));
    return 0;
  }
  let check: Check;
  try {
    check = parse(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`cors-check: ${error.message}\n${USAGE}\n(cors-check --help for more)`);
    return 2;
  }
  const { url, origin, method, headers, credentials } = check;
  try {
    if (!isPrivateHost(new URL(origin).hostname) && isPrivateHost(url.hostname)) {
      console.log(
        'note: a public page reaching a private or local address needs Local Network Access in Chromium, a permission only the user grants; no header grants it.',
      );
    }
  } catch {
    // an opaque origin such as "null" has no host to judge
  }
  try {
    if (needsPreflight(method, headers)) {
      const names = unsafeHeaderNames(headers);
      const preflightHeaders: Record<string, string> = { Origin: origin, 'Access-Control-Request-Method': method };
      if (names.length > 0) preflightHeaders['Access-Control-Request-Headers'] = names.join(',');
      const answer = await send(url, 'OPTIONS', preflightHeaders);
      const failure = preflightCheck(origin, method, names, answer, credentials);
      report('preflight', 'OPTIONS', url, answer, failure, method);
      if (failure !== undefined) return 1;
    }
    const answer = await send(url, method, { ...headers, Origin: origin });
    const failure = corsCheck(origin, answer, credentials);
    report('request  ', method, url, answer, failure);
    warnUnvaried(origin, answer);
    return failure === undefined ? 0 : 1;
  } catch (error) {
    console.error(
      `cors-check: ${method} ${url.href} failed: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`,
    );
    return 2;
  }
}

// No top-level await: the package is CommonJS (one copy for require() and import alike).
void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
