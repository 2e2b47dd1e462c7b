/**
 * Property-based: random origins, methods and header lists against a model of the contract
 * (docs/CONTRACT.md), written independently of the engine (origins judged by the WHATWG URL
 * parser). No response lets a browser read what the model denies, and no request throws.
 */
import t from 'tap';
import fc from 'fast-check';

import { createCors, type CorsOptions } from '@lib/cors/standalone';

import { fakeExchange } from '../../helpers/fake-http.js';

/**
 * What browsers send, at most 512 bytes: the URL parser's own serialization of the origin; for
 * schemes it gives no origin to (chrome-extension://id), scheme and a lower-case host alone.
 */
function isBrowserOrigin(origin: string): boolean {
  if (origin.length > 512) return false;
  try {
    const url = new URL(origin);
    if (url.origin !== 'null') return url.origin === origin;
    return origin === `${url.protocol}//${url.host}` && url.host === url.host.toLowerCase() && /^[a-z0-9._-]+$/.test(url.hostname);
  } catch {
    return false;
  }
}

function underExampleOrg(origin: string): boolean {
  if (!isBrowserOrigin(origin)) return false;
  const url = new URL(origin);
  return url.protocol === 'https:' && url.port === '' && url.hostname.endsWith('.example.org');
}

interface ModelPolicy {
  name: string;
  options: CorsOptions;
  allows(origin: string): boolean;
  constant?: string;
}

const policies: ModelPolicy[] = [
  { name: "'*'", options: { origin: '*' }, allows: () => true, constant: '*' },
  {
    name: 'one origin',
    options: { origin: 'https://example.com', allowCredentials: true, exposedHeaders: ['X-Total'] },
    allows: (o) => o === 'https://example.com',
    constant: 'https://example.com',
  },
  {
    name: 'a list with a pattern and a RegExp',
    options: { origin: ['https://a.example.com', 'https://*.example.org', /^https:\/\/(www\.)?example\.net$/], allowCredentials: true },
    allows: (o) => o === 'https://a.example.com' || underExampleOrg(o) || o === 'https://example.net' || o === 'https://www.example.net',
  },
  { name: 'reflection', options: { origin: true }, allows: isBrowserOrigin },
  { name: 'CORS off', options: { origin: false }, allows: () => false },
];

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The list a preflight's Access-Control-Request-Headers gets back: its names, empty elements left out (RFC 9110 5.6.1); `undefined`: not reflected. */
function reflectionOf(list: string): string | undefined {
  if (list.length === 0 || list.length > 4096) return undefined;
  const elements = list.split(',').map((name) => name.replace(/^[ \t]+|[ \t]+$/g, ''));
  const names = elements.filter((name) => name !== '');
  if (names.length === 0 || names.length > 64 || !names.every((name) => TOKEN.test(name))) return undefined;
  // A list as browsers send it comes back as it is.
  return names.length === elements.length ? list : names.join(',');
}

const label = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
const origins = fc.oneof(
  fc.constantFrom(
    'https://example.com',
    'https://a.example.com',
    'https://example.net',
    'https://www.example.net',
    'null',
    '',
    'file://',
    'https://example.com.',
    'https://EXAMPLE.com',
    'https://example.com:443',
    'http://example.com',
    'https://evilexample.com',
    'https://example.org',
    'https://x.example.org.evil.net',
    'https://example.com, https://a.example.com',
  ),
  fc
    .tuple(
      fc.constantFrom('http://', 'https://', 'HTTPS://', 'ftp://', 'chrome-extension://'),
      fc.array(label, { minLength: 1, maxLength: 4 }),
      fc.constantFrom('', '.example.org', '.example.com', '.example.net', ':8443', ':443', '/', '.', '@evil.net'),
    )
    .map(([scheme, labels, tail]) => `${scheme}${labels.join('.')}${tail}`),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const headerLists = fc.oneof(
  fc.constant(undefined),
  // The separator is drawn by fast-check too, so a failing list replays from the seed.
  fc
    .tuple(fc.array(fc.oneof(fc.stringMatching(/^[a-z-]{1,10}$/), fc.string({ maxLength: 6 })), { maxLength: 70 }), fc.constantFrom(',', ', ', ' ,\t'))
    .map(([names, separator]) => names.join(separator)),
  fc.string({ maxLength: 60 }),
);
const methods = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'HEAD');

for (const policy of policies) {
  t.test(`${policy.name}: never a grant the model denies, never a throw`, async () => {
    const cors = createCors(policy.options, { logger: { warn: () => {}, error: () => {} } }).route(['GET', 'PUT'], '/r');
    await fc.assert(
      fc.asyncProperty(
        methods,
        fc.option(origins, { nil: undefined }),
        fc.boolean(),
        headerLists,
        fc.boolean(),
        async (method, origin, preflight, requested, touched) => {
          const headers: Record<string, string> = {};
          if (origin !== undefined) headers.origin = origin;
          if (preflight) headers['access-control-request-method'] = 'PUT';
          if (requested !== undefined) headers['access-control-request-headers'] = requested;
          const exchange = fakeExchange(method, '/r', headers);
          // A header set by an earlier middleware sends preflights down the setHeader path instead of one writeHead.
          if (touched) exchange.res.setHeader('X-Earlier', '1');
          cors.handle(exchange.req, exchange.res, () => (exchange.nextCalled = true));
          const get = (name: string) => exchange.headers.get(name);
          const allowOrigin = get('access-control-allow-origin');
          // Only the policy's constant value or the request's own, model-allowed origin is ever sent.
          if (allowOrigin !== undefined && allowOrigin !== policy.constant && !(allowOrigin === origin && policy.allows(origin))) return false;
          // The browser's CORS check passes only for its own origin, or '*' without credentials.
          const credentialed = get('access-control-allow-credentials') === 'true';
          const browserReads = origin !== undefined && (allowOrigin === origin || (allowOrigin === '*' && !credentialed));
          if (browserReads && !policy.allows(origin)) return false;
          if (credentialed && policy.options.allowCredentials !== true) return false;
          // No grant header without the origin it is granted to.
          for (const name of [
            'access-control-allow-credentials',
            'access-control-allow-methods',
            'access-control-allow-headers',
            'access-control-expose-headers',
            'access-control-max-age',
          ]) {
            if (get(name) !== undefined && allowOrigin === undefined) return false;
          }
          // Rule A: an origin-dependent policy says so on every response.
          if (policy.constant === undefined && policy.name !== 'CORS off' && !String(get('vary') ?? '').includes('Origin')) return false;
          const reflected = get('access-control-allow-headers');
          if (reflected !== undefined && (requested === undefined || reflected !== reflectionOf(requested))) return false;
          // Every request is either answered or handed on, exactly one of the two.
          return exchange.ended !== exchange.nextCalled;
        },
      ),
      { numRuns: 3000 },
    );
  });
}
