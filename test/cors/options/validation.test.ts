/**
 * Bad options fail at start-up with one error type whose message names the field, the value
 * and the fix; doubtful ones warn once. One case per rejected form.
 */
import t from 'tap';

import { createCors, CorsOptions, CorsOptionsError } from '@lib/cors/standalone';

import { captureLogger, deepFreeze, serve } from '../../helpers/http.js';

const rejected: [string, unknown, RegExp][] = [
  [
    'an origin without a scheme',
    { origin: 'example.com' },
    /CorsOptions\.origin = "example\.com" is not an origin \(no scheme\)\. Fix: write scheme and host, e\.g\. 'https:\/\/example\.com'/,
  ],
  ['a host and port without a scheme', { origin: 'localhost:3000' }, /origin = "localhost:3000" is not an origin \(no scheme\)/],
  [
    'an origin with a path',
    { origin: 'https://example.com/app' },
    /origin = "https:\/\/example\.com\/app" is not a serialized origin.*Fix: write it as 'https:\/\/example\.com'/,
  ],
  ['an origin with a trailing slash', { origin: 'https://example.com/' }, /Fix: write it as 'https:\/\/example\.com'/],
  [
    'an origin in upper case',
    { origin: 'https://EXAMPLE.com' },
    /origin = "https:\/\/EXAMPLE\.com" is not a serialized origin.*write it as 'https:\/\/example\.com'/,
  ],
  [
    'an origin with its default port',
    { origin: ['https://a.test', 'https://example.com:443'] },
    /origin\[1\] = "https:\/\/example\.com:443" .*write it as 'https:\/\/example\.com'/,
  ],
  ['an origin with a query', { origin: 'http://a.test?x=1' }, /write it as 'http:\/\/a\.test'/],
  ['a non-special scheme with a path', { origin: 'chrome-extension://abc/page' }, /is not an origin browsers send/],
  ['an empty origin list', { origin: [] }, /origin = \[\] allows no origin at all\. Fix: list at least one origin, or use false to turn CORS off$/],
  ["'*' inside a list", { origin: ['https://a.test', '*'] }, /origin\[1\] = "\*" in a list means nothing/],
  ['true inside a list', { origin: ['https://a.test', true] }, /origin\[1\] = true is not allowed in an origin list/],
  ['a number as origin', { origin: 42 }, /origin = 42 is not a valid origin policy/],
  [
    'a wildcard glued to a label',
    { origin: 'https://*example.com' },
    /"https:\/\/\*example\.com" puts "\*" somewhere other than the whole first label\. Fix: write the wildcard as the whole first label/,
  ],
  ['a wildcard pattern without a scheme', { origin: '*.example.com' }, /"\*\.example\.com" has no scheme/],
  ['a pattern with two wildcards', { origin: 'https://*.*.example.com' }, /has more than one "\*"/],
  ['a wildcard in the middle', { origin: 'https://api.*.example.com' }, /puts "\*" somewhere other than the whole first label/],
  ['a wildcard over a top-level domain', { origin: 'https://*.com' }, /would match every sub-domain of a top-level domain/],
  ['a wildcard pattern with a path', { origin: 'https://*.example.com/' }, /does not give a serialized origin/],
  ['a RegExp with the g flag', { origin: /^https:\/\/a\.test$/g }, /has the g or y flag.*Fix: drop the flag: \/\^https:\\\/\\\/a\\\.test\$\/$/],
  ['a RegExp with the y flag', { origin: [/^https:\/\/a\.test$/iy] }, /origin\[0\] = .* has the g or y flag.*drop the flag: .*\/i$/],
  [
    'credentials with the default origin',
    { allowCredentials: true },
    /origin = "\*" \(the default, as no origin is set\) together with allowCredentials: true is refused by browsers.*Fix: list the origins.*or.*leave allowCredentials out$/,
  ],
  ["credentials with origin '*'", { origin: '*', allowCredentials: true }, /together with allowCredentials/],
  [
    "credentials with allowedHeaders '*'",
    { origin: 'https://a.test', allowCredentials: true, allowedHeaders: '*' },
    /allowedHeaders = "\*" together with allowCredentials: true .*Fix: list the header names, e\.g\. allowedHeaders: \['Content-Type', 'Authorization'\]; or leave it out: by default the headers each preflight asks for are allowed$/,
  ],
  [
    "credentials with exposedHeaders ['*']",
    { origin: 'https://a.test', allowCredentials: true, exposedHeaders: ['*'] },
    /exposedHeaders = "\*" together with allowCredentials/,
  ],
  [
    "credentials with allowedMethods '*'",
    { origin: 'https://a.test', allowCredentials: true, allowedMethods: '*' },
    /allowedMethods = "\*" together with allowCredentials/,
  ],
  ['a header name with a space', { allowedHeaders: ['X-Ok', 'X Bad'] }, /allowedHeaders\[1\] = "X Bad" is not an HTTP token/],
  [
    'header names joined by a comma',
    { exposedHeaders: ['X-A, X-B'] },
    /exposedHeaders\[0\] = "X-A, X-B" is not an HTTP token.*Fix: give each header name its own array element: 'X-A', 'X-B'$/,
  ],
  ['a method with a slash', { allowedMethods: ['GET', 'PO/ST'] }, /allowedMethods\[1\] = "PO\/ST" is not an HTTP token/],
  [
    'a comma-joined string instead of an array',
    { allowedMethods: 'GET,POST' },
    /allowedMethods = "GET,POST" is neither '\*' nor an array of names\. Fix: use an array, one method per element: \['GET', 'POST'\]$/,
  ],
  [
    'a single name instead of an array',
    { allowedHeaders: 'X-A' },
    /allowedHeaders = "X-A" is one header name where an array of names is expected\. Fix: put it in an array: \['X-A'\]$/,
  ],
  ["'*' among names", { allowedHeaders: ['*', 'X-A'] }, /allowedHeaders\[0\] = "\*" in a list means nothing/],
  ['an empty method list', { allowedMethods: [] }, /allowedMethods = \[\] grants no method/],
  [
    'a method in lower case, which browsers upper-case before comparing',
    { allowedMethods: ['GET', 'put'] },
    /allowedMethods\[1\] = "put" is not in upper case, and browsers compare methods case-sensitively.*Fix: write 'PUT'$/,
  ],
  ['a method in mixed case', { allowedMethods: ['Patch'] }, /allowedMethods\[0\] = "Patch" is not in upper case.*Fix: write 'PATCH'$/],
  ['a negative maxAge', { maxAge: -1 }, /maxAge = -1 is not a whole number of seconds >= 0\. Fix: use e\.g\. 600/],
  ['a fractional maxAge', { maxAge: 1.5 }, /maxAge = 1\.5 is not a whole number/],
  ['maxAge as a string', { maxAge: '600' }, /maxAge = "600" is not a whole number/],
  ['a status outside 200-299', { optionsSuccessStatus: 302 }, /optionsSuccessStatus = 302 is not a success status \(200-299\)/],
  ['a non-boolean allowCredentials', { allowCredentials: 'yes' }, /allowCredentials = "yes" is not a boolean/],
  [
    'a misspelled field',
    { orgin: 'https://a.test' },
    /CorsOptions\.orgin = "https:\/\/a\.test" is not a CORS option\. Fix: did you mean origin\? The fields are origin, allowedMethods/,
  ],
  ['a field in the wrong case', { MaxAge: 600 }, /CorsOptions\.MaxAge = 600 is not a CORS option\. Fix: did you mean maxAge\?/],
  ['a field nothing like ours', { timeoutMs: 5 }, /CorsOptions\.timeoutMs = 5 is not a CORS option\. Fix: remove it .*, or use one of origin, allowedMethods/],
  [
    "the cors package's credentials",
    { origin: 'https://a.test', credentials: true },
    /CorsOptions\.credentials = true is the cors package \(and @fastify\/cors, hono\)'s name for allowCredentials\. Fix: use allowCredentials: true$/,
  ],
  [
    "the cors package's methods, as a comma string",
    { methods: 'GET,POST' },
    /CorsOptions\.methods = "GET,POST" is the cors package \(and @fastify\/cors\)'s name for allowedMethods\. Fix: use allowedMethods: \['GET', 'POST'\]$/,
  ],
  [
    "hono's allowHeaders",
    { allowHeaders: ['X-A'] },
    /CorsOptions\.allowHeaders = \["X-A"\] is hono's name for allowedHeaders\. Fix: use allowedHeaders: \['X-A'\]$/,
  ],
  [
    'a comma-joined header string',
    { exposedHeaders: 'X-A, X-B' },
    /exposedHeaders = "X-A, X-B" is neither '\*' nor an array of names\. Fix: use an array, one header name per element: \['X-A', 'X-B'\]$/,
  ],
  ['options that are not an object', 'https://a.test', /CorsOptions\.\(options\) = "https:\/\/a\.test" is not an object/],
];

for (const [title, options, message] of rejected) {
  t.test(`refuses ${title}`, async (t) => {
    const { logger } = captureLogger();
    const error = catchError(() => createCors(deepFreeze(options) as CorsOptions, { logger }));
    t.type(error, CorsOptionsError);
    t.match((error as Error).message, /^createCors\(\): /);
    t.match((error as Error).message, message);
  });
}

const accepted: [string, CorsOptions][] = [
  ['a port that is not the default', { origin: 'https://example.com:8443' }],
  ['an IPv6 origin', { origin: 'http://[::1]:3000' }],
  ['an extension origin', { origin: ['chrome-extension://abcdefghijklmnop'] }],
  ["'null' listed explicitly", { origin: ['null', 'https://a.test'] }],
  ['a pattern with a port', { origin: 'https://*.example.com:8443' }],
  ['maxAge 0 (no caching)', { maxAge: 0 }],
  ['an empty header list (no custom headers)', { allowedHeaders: [] }],
  ['a RegExp with grouped alternatives', { origin: /^https:\/\/(?:a|b)\.test$/ }],
  ['a RegExp with | and ) inside a class', { origin: /^https:\/\/[a|)]\.test$/ }],
  ['a RegExp ending in an escaped backslash and $', { origin: [/^https:\/\/a\.test\\$/] }],
  ['a RegExp with a dot inside a class', { origin: /^https:\/\/[a-z.]+\.example\.com$/ }],
  ['a wildcard under a registrable domain of a public suffix', { origin: 'https://*.me.github.io' }],
  ['methods in upper case beyond the standard six', { allowedMethods: ['PATCH', 'PROPFIND'] }],
];
for (const [title, options] of accepted) {
  t.test(`accepts ${title}`, async (t) => {
    const { logger, warnings } = captureLogger();
    t.doesNotThrow(() => createCors(deepFreeze(options), { logger }));
    t.same(warnings, []);
  });
}

const warned: [string, CorsOptions, RegExp][] = [
  [
    'an unanchored RegExp',
    { origin: /example\.com$/ },
    /CorsOptions\.origin = \/example\\\.com\$\/ is not anchored with \^ and \$.*https:\/\/evilexample\.com.*Anchor it/,
  ],
  [
    'a RegExp whose alternation escapes the anchors',
    { origin: /^https:\/\/a\.test|https:\/\/b\.test$/ },
    /is not anchored with \^ and \$ around the whole pattern.*with alternatives in a group/,
  ],
  ['a RegExp ending in an escaped $', { origin: /^https:\/\/a\.test\$/ }, /is not anchored/],
  [
    'reflection with credentials',
    { origin: true, allowCredentials: true },
    /origin = true with allowCredentials: true lets every web site read your users' data.*List the trusted origins/,
  ],
  ['maxAge beyond what browsers honour', { maxAge: 86400 }, /maxAge = 86400 is above what Chromium honours \(7200 s/],
  [
    'a wildcard over a private public suffix',
    { origin: 'https://*.github.io' },
    /CorsOptions\.origin = "https:\/\/\*\.github\.io" grants every sub-domain of github\.io, a public suffix: anyone can register a name there.*e\.g\. 'https:\/\/your-app\.github\.io'/,
  ],
  [
    'a wildcard over a country suffix',
    { origin: ['https://a.test', 'https://*.co.uk'] },
    /CorsOptions\.origin\[1\] = "https:\/\/\*\.co\.uk" grants every sub-domain of co\.uk, a public suffix/,
  ],
  ['a wildcard over a hosting suffix', { origin: 'https://*.vercel.app' }, /sub-domain of vercel\.app, a public suffix/],
  [
    'an anchored RegExp whose dot matches any character',
    { origin: /^https:\/\/(app|admin).example.com$/ },
    /CorsOptions\.origin = .* has an unescaped "\." outside a character class.*also grants https:\/\/appxexample\.com.*Write a literal dot as \\\./,
  ],
];
for (const [title, options, message] of warned) {
  t.test(`warns once about ${title}`, async (t) => {
    const { logger, warnings } = captureLogger();
    createCors(options, { logger }).route('GET', '/a').route('GET', '/b');
    t.equal(warnings.length, 1);
    t.match(warnings[0], message);
  });
}

t.test('route options are validated where they are given, naming the route', async (t) => {
  const cors = createCors({ origin: 'https://a.test' });
  const error = catchError(() => cors.route('GET', '/users', { maxAge: -5 }));
  t.type(error, CorsOptionsError);
  t.match((error as Error).message, /^route GET \/users: CorsOptions\.maxAge = -5/);
  // Merged over the middleware's options: credentials meet the inherited '*'.
  t.match(
    catchError(() => createCors().route('GET', '/x', { allowCredentials: true })),
    { message: /^route GET \/x: CorsOptions\.origin = "\*" \(the default, as no origin is set\) together with allowCredentials/ },
  );
});

t.test('route() refuses what is not a route, naming it', async (t) => {
  const cors = createCors();
  t.throws(() => cors.route('GET', '/a', null as never), {
    name: 'CorsOptionsError',
    message: /^route GET \/a: CorsOptions\.\(options\) = null is not an object/,
  });
  t.throws(() => cors.route('GET', '/a', JSON.parse('{"__proto__": {"origin": true}}') as CorsOptions), {
    message: /CorsOptions\.__proto__ = .* is not a CORS option/,
  });
  t.throws(() => cors.route('get', '/a'), {
    name: 'RouteRegistrationError',
    message: /^route get \/a: \/a is given the method "get", not in upper case.*Fix: write "GET"/,
  });
  t.throws(() => cors.route([], '/a'), { name: 'RouteRegistrationError', message: /\/a is given no method/ });
});

t.test('a custom source names where the options came from', async (t) => {
  t.match(
    catchError(() => createCors({ maxAge: -1 }, { source: 'module AppModule' })),
    { message: /^module AppModule: CorsOptions\.maxAge/ },
  );
});

t.test('the options object is never mutated', async (t) => {
  const options = deepFreeze({ origin: ['https://a.test'], allowedMethods: ['GET', 'POST'] });
  const cors = createCors(options);
  cors.route('PUT', '/x', deepFreeze({ exposedHeaders: ['X-A'] }));
  t.same(options, { origin: ['https://a.test'], allowedMethods: ['GET', 'POST'] });
});

t.test('changing the options object after createCors() changes nothing', async (t) => {
  const origins = ['https://a.test', 'https://b.test'];
  const options: CorsOptions = { origin: origins };
  const routeOptions: CorsOptions = { maxAge: 1 };
  const cors = createCors(options).route('GET', '/first', routeOptions);
  options.origin = 'https://evil.test';
  origins.push('https://evil.test');
  routeOptions.maxAge = 2;
  cors.route('GET', '/second', { exposedHeaders: ['X-A'] }).route('GET', '/third', routeOptions);
  const server = await serve((req, res) => cors.handle(req, res, () => res.end()));
  t.teardown(server.close);
  for (const path of ['/first', '/second', '/third']) {
    const answer = await server.send('OPTIONS', path, { Origin: 'https://evil.test', 'Access-Control-Request-Method': 'GET' });
    t.notOk('access-control-allow-origin' in answer.headers, `${path}: the later change granted nothing`);
  }
  const third = await server.send('OPTIONS', '/third', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'GET' });
  t.equal(third.headers['access-control-max-age'], '2', 'the route options are read when route() is called');
});

function catchError(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

t.test('a CorsOptions instance is accepted as options (it is also the DI token)', async (t) => {
  const options = Object.assign(new CorsOptions(), { origin: 'https://a.test', maxAge: 5 });
  t.doesNotThrow(() => createCors(options).route('GET', '/', new CorsOptions()));
});
