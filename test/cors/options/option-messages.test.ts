/**
 * Every message of a CorsOptionsError, pinned whole: one representative mistake per way of
 * getting each code wrong, with the message it gets. A reworded message fails here, so that
 * each change of wording is a decision. Then two properties over the same table: every code is
 * covered, and every array a fix proposes is accepted when written as proposed.
 */
import t from 'tap';

import { createCors, CorsOptionsError, OPTION_ERROR_CODES } from '@lib/cors/standalone';

const quiet = { warn: () => {}, error: () => {} };

/** [what the mistake is, the options, the code, the whole message]. */
const MESSAGES: [string, unknown, string, string][] = [
  [
    'an origin without a scheme',
    { origin: 'example.com' },
    'CORS_INVALID_ORIGIN',
    'createCors(): CorsOptions.origin = "example.com" is not an origin (no scheme). Fix: write scheme and host, e.g. \'https://example.com\'',
  ],
  [
    'an origin built from an unset variable',
    { origin: 'http://localhost:undefined' },
    'CORS_INVALID_ORIGIN',
    "createCors(): CorsOptions.origin = \"http://localhost:undefined\" has the port \"undefined\", which is not a number (built from a variable that is not set?). Fix: write the port your page is served from, e.g. 'http://localhost:3000', or no port for the scheme's own: 'http://localhost'",
  ],
  [
    'a dev server on localhost without a scheme (issue 31: the fix is http://, as the dev server serves)',
    { origin: 'localhost:4200' },
    'CORS_INVALID_ORIGIN',
    'createCors(): CorsOptions.origin = "localhost:4200" is not an origin (no scheme). Fix: write scheme and host, e.g. \'http://localhost:4200\'',
  ],
  [
    'a loopback address without a scheme',
    { origin: ['127.0.0.1:8080', 'https://app.example'] },
    'CORS_INVALID_ORIGIN',
    'createCors(): CorsOptions.origin[0] = "127.0.0.1:8080" is not an origin (no scheme). Fix: write scheme and host, e.g. \'http://127.0.0.1:8080\'',
  ],
  [
    'an origin with a trailing slash',
    { origin: 'https://example.com/' },
    'CORS_INVALID_ORIGIN',
    'createCors(): CorsOptions.origin = "https://example.com/" is not a serialized origin (browsers send no path, no trailing slash, no upper case and no default port). Fix: write it as \'https://example.com\'',
  ],
  [
    'a non-special scheme with a path',
    { origin: 'chrome-extension://abc/page' },
    'CORS_INVALID_ORIGIN',
    'createCors(): CorsOptions.origin = "chrome-extension://abc/page" is not an origin browsers send. Fix: write scheme, host and optional port only, e.g. \'https://app.example.com\'',
  ],
  [
    'two origins joined by a comma (as in issue 24)',
    { origin: 'https://a.example,https://b.example' },
    'CORS_INVALID_ORIGIN',
    "createCors(): CorsOptions.origin = \"https://a.example,https://b.example\" holds 2 origins in one string, and a browser sends exactly one. Fix: use an array, one origin per element: ['https://a.example', 'https://b.example']",
  ],
  [
    'two origins joined by a space',
    { origin: 'https://a.example https://b.example' },
    'CORS_INVALID_ORIGIN',
    "createCors(): CorsOptions.origin = \"https://a.example https://b.example\" holds 2 origins in one string, and a browser sends exactly one. Fix: use an array, one origin per element: ['https://a.example', 'https://b.example']",
  ],
  [
    'two origins joined in one list element',
    { origin: ['https://a.example, https://b.example'] },
    'CORS_INVALID_ORIGIN',
    "createCors(): CorsOptions.origin[0] = \"https://a.example, https://b.example\" holds 2 origins in one string, and a browser sends exactly one. Fix: give each origin its own array element: 'https://a.example', 'https://b.example'",
  ],
  [
    'joined origins, one of them with a trailing slash',
    { origin: 'https://a.example, https://b.example/' },
    'CORS_INVALID_ORIGIN',
    'createCors(): CorsOptions.origin = "https://a.example, https://b.example/" holds 2 origins in one string, and "https://b.example/" among them is not a serialized origin (browsers send no path, no trailing slash, no upper case and no default port). Fix: write it as \'https://b.example\'; then give each origin its own array element',
  ],
  [
    'joined origins, one of them a star',
    { origin: 'https://a.example, *' },
    'CORS_INVALID_ORIGIN',
    'createCors(): CorsOptions.origin = "https://a.example, *" holds 2 origins in one string, and "*" among them stands for every origin, so it is never listed with others. Fix: use \'*\' alone, or list the origins without it; then give each origin its own array element',
  ],
  [
    'joined origins, one of them a pattern over a top-level domain',
    { origin: 'https://*.a.example, https://*.com' },
    'CORS_INVALID_ORIGIN',
    'createCors(): CorsOptions.origin = "https://*.a.example, https://*.com" holds 2 origins in one string, and "https://*.com" among them would match every sub-domain of a top-level domain. Fix: write the wildcard as the whole first label after the scheme, e.g. \'https://*.example.com\'; then give each origin its own array element',
  ],
  [
    'one origin with spaces around it',
    { origin: ' https://a.example ' },
    'CORS_INVALID_ORIGIN',
    'createCors(): CorsOptions.origin = " https://a.example " has spaces or a comma around the origin. Fix: write it as \'https://a.example\'',
  ],
  [
    'an empty origin',
    { origin: '' },
    'CORS_INVALID_ORIGIN',
    "createCors(): CorsOptions.origin = \"\" is empty (read from an environment variable that is not set?). Fix: write the origin that may read the responses, e.g. 'https://app.example.com'; false turns CORS off, and '*' lets every origin read them (the cors package read an empty origin as '*')",
  ],
  [
    'a blank origin',
    { origin: '  ' },
    'CORS_INVALID_ORIGIN',
    "createCors(): CorsOptions.origin = \"  \" is blank (read from an environment variable that is not set?). Fix: write the origin that may read the responses, e.g. 'https://app.example.com'; false turns CORS off, and '*' lets every origin read them (the cors package read an empty origin as '*')",
  ],
  [
    'an empty origin in a list',
    { origin: ['https://a.example', ''] },
    'CORS_INVALID_ORIGIN',
    'createCors(): CorsOptions.origin[1] = "" is empty (read from an environment variable that is not set?). Fix: remove it from the list, or write an origin such as \'https://app.example.com\'',
  ],
  [
    'a pattern with two wildcards',
    { origin: 'https://*.*.example.com' },
    'CORS_INVALID_ORIGIN_PATTERN',
    'createCors(): CorsOptions.origin = "https://*.*.example.com" has more than one "*". Fix: write the wildcard as the whole first label after the scheme, e.g. \'https://*.example.com\'',
  ],
  [
    'a pattern without a scheme',
    { origin: '*.example.com' },
    'CORS_INVALID_ORIGIN_PATTERN',
    'createCors(): CorsOptions.origin = "*.example.com" has no scheme. Fix: write the wildcard as the whole first label after the scheme, e.g. \'https://*.example.com\'',
  ],
  [
    'a number as origin',
    { origin: 42 },
    'CORS_INVALID_ORIGIN_POLICY',
    "createCors(): CorsOptions.origin = 42 is not a valid origin policy. Fix: use '*', an origin such as 'https://app.example.com', a pattern such as 'https://*.example.com', a RegExp, true, false, an array of origins, patterns and RegExps, or a function (origin, req) => boolean",
  ],
  [
    'true inside a list',
    { origin: ['https://a.example', true] },
    'CORS_INVALID_ORIGIN_POLICY',
    "createCors(): CorsOptions.origin[1] = true is not allowed in an origin list. Fix: list only origin strings, 'https://*.example.com' patterns, 'null' and RegExps; true, false and functions stand alone",
  ],
  [
    'an empty origin list',
    { origin: [] },
    'CORS_EMPTY_ORIGIN_LIST',
    'createCors(): CorsOptions.origin = [] allows no origin at all. Fix: list at least one origin, or use false to turn CORS off',
  ],
  [
    "'*' inside an origin list",
    { origin: ['*', 'https://a.example'] },
    'CORS_WILDCARD_IN_LIST',
    "createCors(): CorsOptions.origin[0] = \"*\" in a list means nothing: '*' already allows every origin. Fix: use origin: '*' alone, or list the origins",
  ],
  [
    "'*' among header names",
    { allowedHeaders: ['*', 'X-A'] },
    'CORS_WILDCARD_IN_LIST',
    "createCors(): CorsOptions.allowedHeaders[0] = \"*\" in a list means nothing: '*' alone already stands for every name. Fix: use allowedHeaders: '*' alone, or list the names",
  ],
  [
    'a RegExp with the g flag',
    { origin: /^https:\/\/a\.example$/g },
    'CORS_STATEFUL_REGEXP',
    'createCors(): CorsOptions.origin = /^https:\\/\\/a\\.example$/g has the g or y flag, which makes test() remember lastIndex between requests and skip matches. Fix: drop the flag: /^https:\\/\\/a\\.example$/',
  ],
  [
    'credentials under the default origin',
    { allowCredentials: true },
    'CORS_WILDCARD_WITH_CREDENTIALS',
    "createCors(): CorsOptions.origin = \"*\" (the default, as no origin is set) together with allowCredentials: true is refused by browsers (a credentialed response needs the exact origin, never '*'). Fix: list the origins that may send credentials, e.g. origin: ['https://app.example.com']; or, if your pages send no cookies and no Authorization header, leave allowCredentials out",
  ],
  [
    "credentials with allowedMethods '*'",
    { origin: 'https://a.example', allowCredentials: true, allowedMethods: '*' },
    'CORS_WILDCARD_WITH_CREDENTIALS',
    "createCors(): CorsOptions.allowedMethods = \"*\" together with allowCredentials: true is read by browsers as a method literally named '*'. Fix: list the methods, e.g. allowedMethods: ['GET', 'POST']; or leave it out: by default the methods of each path are granted",
  ],
  [
    "credentials with exposedHeaders '*'",
    { origin: 'https://a.example', allowCredentials: true, exposedHeaders: '*' },
    'CORS_WILDCARD_WITH_CREDENTIALS',
    "createCors(): CorsOptions.exposedHeaders = \"*\" together with allowCredentials: true is read by browsers as a header literally named '*'. Fix: list the header names, e.g. exposedHeaders: ['Content-Range']",
  ],
  [
    'private network under the default origin',
    { allowPrivateNetwork: true },
    'CORS_PRIVATE_NETWORK_TO_EVERY_ORIGIN',
    "createCors(): CorsOptions.origin = \"*\" (the default, as no origin is set) together with allowPrivateNetwork: true lets every public web site reach this private-network server from its visitors' browsers. Fix: list the origins that may reach it, e.g. origin: ['https://app.example.com']; or leave allowPrivateNetwork out",
  ],
  [
    'credentials for a plain http origin',
    { origin: ['https://a.example', 'http://b.example'], allowCredentials: true },
    'CORS_INSECURE_ORIGIN',
    "createCors(): CorsOptions.origin[1] = \"http://b.example\" is plain http, and with allowCredentials: true anyone on that page's network path can inject script into it and read your users' data with their cookies. Fix: serve the page over https and write 'https://b.example'; if it can only be plain http, add dangerouslyAllowInsecureOrigins: true",
  ],
  [
    'one header name as a string (allowedHeaders)',
    { allowedHeaders: 'Content-Type' },
    'CORS_INVALID_NAME_LIST',
    'createCors(): CorsOptions.allowedHeaders = "Content-Type" is one header name where an array of names is expected. Fix: put it in an array: [\'Content-Type\']',
  ],
  [
    'one header name as a string (exposedHeaders)',
    { exposedHeaders: 'Content-Range' },
    'CORS_INVALID_NAME_LIST',
    'createCors(): CorsOptions.exposedHeaders = "Content-Range" is one header name where an array of names is expected. Fix: put it in an array: [\'Content-Range\']',
  ],
  [
    'one method as a string',
    { allowedMethods: 'GET' },
    'CORS_INVALID_NAME_LIST',
    'createCors(): CorsOptions.allowedMethods = "GET" is one method where an array of names is expected. Fix: put it in an array: [\'GET\']',
  ],
  [
    'header names as a comma string',
    { exposedHeaders: 'Content-Range, X-Total-Count' },
    'CORS_INVALID_NAME_LIST',
    "createCors(): CorsOptions.exposedHeaders = \"Content-Range, X-Total-Count\" is neither '*' nor an array of names. Fix: use an array, one header name per element: ['Content-Range', 'X-Total-Count']",
  ],
  [
    'a comma string holding a name with a space',
    { exposedHeaders: 'Content-Range, X-Content- Range' },
    'CORS_INVALID_NAME_LIST',
    "createCors(): CorsOptions.exposedHeaders = \"Content-Range, X-Content- Range\" is neither '*' nor an array of names, and \"X-Content- Range\" in it is no header name: a name is one HTTP token (RFC 9110: letters, digits and !#$%&'*+-.^_`|~, no spaces). Fix: correct 'X-Content- Range', then give the header names as an array, one per element",
  ],
  [
    'one name with a space, as a string',
    { allowedHeaders: 'X-Request Id' },
    'CORS_INVALID_NAME_LIST',
    "createCors(): CorsOptions.allowedHeaders = \"X-Request Id\" is neither '*' nor an array of names, nor one header name: a name is one HTTP token (RFC 9110: letters, digits and !#$%&'*+-.^_`|~, no spaces). Fix: correct it (several names go in separate array elements), then put it in an array",
  ],
  [
    "a comma string holding '*'",
    { allowedHeaders: 'X-A, *' },
    'CORS_INVALID_NAME_LIST',
    "createCors(): CorsOptions.allowedHeaders = \"X-A, *\" is neither '*' nor an array of names, and '*' in it stands for every name. Fix: use allowedHeaders: '*' alone, or list the names without it",
  ],
  [
    'methods in lower case as a comma string',
    { allowedMethods: 'get,post' },
    'CORS_INVALID_NAME_LIST',
    "createCors(): CorsOptions.allowedMethods = \"get,post\" is neither '*' nor an array of names. Fix: use an array, one method per element: ['GET', 'POST'] (in upper case: browsers compare methods byte for byte)",
  ],
  [
    'an empty string of header names',
    { allowedHeaders: '' },
    'CORS_INVALID_NAME_LIST',
    "createCors(): CorsOptions.allowedHeaders = \"\" is empty, not an array of names. Fix: leave it out to allow the headers a preflight asks for, use [] to allow none, or list them, e.g. ['Content-Type', 'Authorization']",
  ],
  [
    'an empty string of exposed headers',
    { exposedHeaders: '' },
    'CORS_INVALID_NAME_LIST',
    'createCors(): CorsOptions.exposedHeaders = "" is empty, not an array of names. Fix: leave it out to expose no header, or list them, e.g. [\'Content-Range\']',
  ],
  [
    'an empty string of methods',
    { allowedMethods: '' },
    'CORS_INVALID_NAME_LIST',
    "createCors(): CorsOptions.allowedMethods = \"\" is empty, not an array of names. Fix: leave it out to grant the methods of each path, or list them, e.g. ['GET', 'POST']",
  ],
  [
    'a number as a list of names',
    { allowedHeaders: 42 },
    'CORS_INVALID_NAME_LIST',
    "createCors(): CorsOptions.allowedHeaders = 42 is neither '*' nor an array of names. Fix: use an array, e.g. ['Content-Type', 'Authorization']",
  ],
  [
    'a header name with a space',
    { allowedHeaders: ['X Bad'] },
    'CORS_INVALID_NAME',
    'createCors(): CorsOptions.allowedHeaders[0] = "X Bad" is not an HTTP token (RFC 9110: letters, digits and !#$%&\'*+-.^_`|~, no spaces or commas). Fix: write one header name per array element, without spaces or other separators',
  ],
  [
    'header names joined in one element',
    { exposedHeaders: ['X-A, X-B'] },
    'CORS_INVALID_NAME',
    "createCors(): CorsOptions.exposedHeaders[0] = \"X-A, X-B\" is not an HTTP token (RFC 9110: letters, digits and !#$%&'*+-.^_`|~, no spaces or commas). Fix: give each header name its own array element: 'X-A', 'X-B'",
  ],
  [
    'an empty header name',
    { exposedHeaders: [''] },
    'CORS_INVALID_NAME',
    'createCors(): CorsOptions.exposedHeaders[0] = "" is not an HTTP token (RFC 9110: letters, digits and !#$%&\'*+-.^_`|~, no spaces or commas). Fix: remove the empty element',
  ],
  [
    'a number as a header name',
    { exposedHeaders: [42] },
    'CORS_INVALID_NAME',
    "createCors(): CorsOptions.exposedHeaders[0] = 42 is not an HTTP token (RFC 9110: letters, digits and !#$%&'*+-.^_`|~, no spaces or commas). Fix: write each header name as a string, e.g. 'Content-Range'",
  ],
  [
    'a method in lower case',
    { allowedMethods: ['put'] },
    'CORS_METHOD_NOT_UPPER_CASE',
    'createCors(): CorsOptions.allowedMethods[0] = "put" is not in upper case, and browsers compare methods case-sensitively (they upper-case the standard ones first). Fix: write \'PUT\'',
  ],
  [
    'an empty method list',
    { allowedMethods: [] },
    'CORS_NO_METHOD',
    'createCors(): CorsOptions.allowedMethods = [] grants no method. Fix: list the methods, or leave the option out to grant the methods of each path',
  ],
  [
    'a negative maxAge',
    { maxAge: -1 },
    'CORS_INVALID_NUMBER',
    'createCors(): CorsOptions.maxAge = -1 is not a whole number of seconds >= 0. Fix: use e.g. 600 (ten minutes); browsers cap it (Chromium at 7200)',
  ],
  [
    'a status outside 200-299',
    { optionsSuccessStatus: 302 },
    'CORS_INVALID_NUMBER',
    'createCors(): CorsOptions.optionsSuccessStatus = 302 is not a success status (200-299). Fix: use 204 (the default), or 200 for clients that mishandle 204',
  ],
  [
    'an originTimeout of 0',
    { origin: () => true, originTimeout: 0 },
    'CORS_INVALID_NUMBER',
    'createCors(): CorsOptions.originTimeout = 0 is not a whole number of milliseconds from 1 to 60000. Fix: use e.g. 2000; a browser waits for the preflight, so keep it short',
  ],
  [
    'an originCache of size 0',
    { origin: () => true, originCache: { max: 0, ttl: 1000 } },
    'CORS_INVALID_NUMBER',
    'createCors(): CorsOptions.originCache.max = 0 is not a whole number from 1 to 1000000. Fix: use e.g. 1000',
  ],
  [
    'an originCache with a fractional ttl',
    { origin: () => true, originCache: { max: 10, ttl: 1.5 } },
    'CORS_INVALID_NUMBER',
    'createCors(): CorsOptions.originCache.ttl = 1.5 is not a whole number of milliseconds from 1 to 86400000. Fix: use e.g. 60000 (a minute)',
  ],
  [
    'an originCache that is not an object',
    { origin: () => true, originCache: 5 },
    'CORS_OPTIONS_NOT_OBJECT',
    'createCors(): CorsOptions.originCache = 5 is not an object. Fix: use e.g. { max: 1000, ttl: 60000 }: at most 1,000 origins, each kept a minute',
  ],
  [
    'a non-boolean allowCredentials',
    { allowCredentials: 'yes' },
    'CORS_INVALID_BOOLEAN',
    'createCors(): CorsOptions.allowCredentials = "yes" is not a boolean. Fix: use true or false',
  ],
  [
    'a non-boolean preflightContinue',
    { preflightContinue: 1 },
    'CORS_INVALID_BOOLEAN',
    'createCors(): CorsOptions.preflightContinue = 1 is not a boolean. Fix: use true or false',
  ],
  [
    'an originCache without an origin function',
    { origin: 'https://a.example', originCache: { max: 1, ttl: 1 } },
    'CORS_ORIGIN_CACHE_WITHOUT_FUNCTION',
    'createCors(): CorsOptions.originCache = { max, ttl } keeps the answers of an origin function, and origin is not one. Fix: leave originCache out; lists, patterns and RegExps are matched in memory already',
  ],
  [
    'options that are a string',
    'https://a.example',
    'CORS_OPTIONS_NOT_OBJECT',
    'createCors(): CorsOptions.(options) = "https://a.example" is not an object. Fix: pass an object such as { origin: \'https://app.example.com\' }, or nothing for the defaults',
  ],
  [
    'a misspelled field',
    { orgin: 'https://a.example' },
    'CORS_UNKNOWN_OPTION',
    'createCors(): CorsOptions.orgin = "https://a.example" is not a CORS option. Fix: did you mean origin? The fields are origin, allowedMethods, allowedHeaders, exposedHeaders, allowCredentials, maxAge, allowPrivateNetwork, dangerouslyAllowInsecureOrigins, preflightContinue, optionsSuccessStatus, originTimeout, originCache',
  ],
  [
    'a field nothing like ours',
    { timeoutMs: 5 },
    'CORS_UNKNOWN_OPTION',
    'createCors(): CorsOptions.timeoutMs = 5 is not a CORS option. Fix: remove it (the cors package ignores names it does not know, so it never took effect), or use one of origin, allowedMethods, allowedHeaders, exposedHeaders, allowCredentials, maxAge, allowPrivateNetwork, dangerouslyAllowInsecureOrigins, preflightContinue, optionsSuccessStatus, originTimeout, originCache',
  ],
  [
    'a response header written as an option (issue 31 corpus)',
    { 'Access-Control-Allow-Credentials': true },
    'CORS_UNKNOWN_OPTION',
    'createCors(): CorsOptions.Access-Control-Allow-Credentials = true is the name of a response header, not an option. Fix: use allowCredentials: true',
  ],
  [
    "the cors package's credentials, misspelt (issue 31 corpus)",
    { Credential: true },
    'CORS_UNKNOWN_OPTION',
    "createCors(): CorsOptions.Credential = true is not a CORS option (credentials misspelt? that is the cors package (and @fastify/cors, hono)'s name for allowCredentials). Fix: use allowCredentials: true",
  ],
  [
    "the cors package's credentials",
    { credentials: true },
    'CORS_OPTION_OF_ANOTHER_PACKAGE',
    "createCors(): CorsOptions.credentials = true is the cors package (and @fastify/cors, hono)'s name for allowCredentials. Fix: use allowCredentials: true",
  ],
  [
    "the cors package's methods as a comma string",
    { methods: 'GET,POST' },
    'CORS_OPTION_OF_ANOTHER_PACKAGE',
    "createCors(): CorsOptions.methods = \"GET,POST\" is the cors package (and @fastify/cors)'s name for allowedMethods. Fix: use allowedMethods: ['GET', 'POST']",
  ],
  [
    "the cors package's methods in lower case",
    { methods: ['get', 'put'] },
    'CORS_OPTION_OF_ANOTHER_PACKAGE',
    "createCors(): CorsOptions.methods = [\"get\", \"put\"] is the cors package (and @fastify/cors)'s name for allowedMethods. Fix: use allowedMethods: ['GET', 'PUT']",
  ],
  [
    "hono's allowHeaders with a name that is no name",
    { allowHeaders: 'X-A, X B' },
    'CORS_OPTION_OF_ANOTHER_PACKAGE',
    "createCors(): CorsOptions.allowHeaders = \"X-A, X B\" is hono's name for allowedHeaders. Fix: use allowedHeaders, and correct 'X B', then give the header names as an array, one per element",
  ],
  [
    "hono's exposeHeaders as one name",
    { exposeHeaders: 'Content-Range' },
    'CORS_OPTION_OF_ANOTHER_PACKAGE',
    "createCors(): CorsOptions.exposeHeaders = \"Content-Range\" is hono's name for exposedHeaders. Fix: use exposedHeaders: ['Content-Range']",
  ],
];

for (const [title, options, code, message] of MESSAGES) {
  t.test(title, async (t) => {
    const error = thrownBy(options);
    t.type(error, CorsOptionsError);
    t.equal((error as CorsOptionsError).code, code);
    t.equal((error as Error).message, message);
  });
}

/**
 * The warnings that name what a RegExp grants with credentials (issue 31): said whatever else is
 * said of it, anchored or not. [the options, every warning, whole].
 */
const WARNINGS: [unknown, string[]][] = [
  [
    { origin: /^/, allowCredentials: true },
    [
      'createCors(): CorsOptions.origin = /^/ is not anchored with ^ and $ around the whole pattern, so it also matches origins that merely contain it (/example\\.com$/ matches https://evilexample.com, /^https:\\/\\/a\\.com|https:\\/\\/b\\.com$/ matches https://a.com.evil.net). Anchor it, with alternatives in a group: /^https:\\/\\/(?:a|b)\\.example\\.com$/.',
      "createCors(): CorsOptions.origin: /^/ grants every origin (https://stranger.example, say), with allowCredentials: true, so those sites can read your users' data with their cookies. Match your own origins only, e.g. /^https:\\/\\/your-app\\.example\\.com$/, or list them.",
    ],
  ],
  [
    { origin: [/^https:\/\/[a-z0-9-]+\.vercel\.app$/, 'https://app.example'], allowCredentials: true },
    [
      "createCors(): CorsOptions.origin: /^https:\\/\\/[a-z0-9-]+\\.vercel\\.app$/ grants every site under vercel.app, a public suffix where anyone can register a name (https://stranger-site.vercel.app, say), with allowCredentials: true, so those sites can read your users' data with their cookies. Match your own origins only, e.g. /^https:\\/\\/your-app\\.example\\.com$/, or list them.",
    ],
  ],
  // The same RegExp without credentials grants strangers nothing they could not read anyway.
  [{ origin: [/^https:\/\/[a-z0-9-]+\.vercel\.app$/, 'https://app.example'] }, []],
  [{ origin: /^https:\/\/(?:app|admin)\.example\.com$/, allowCredentials: true }, []],
];

t.test('warnings for what a RegExp grants with credentials', async (t) => {
  for (const [options, expected] of WARNINGS) {
    const warnings: string[] = [];
    createCors(options as never, { logger: { warn: (line: string) => warnings.push(line), error: () => {} } });
    t.same(warnings, expected, String((options as { origin: unknown }).origin));
  }
});

t.test('every CorsOptionsError code has its messages pinned above', async (t) => {
  const pinned = new Set(MESSAGES.map(([, , code]) => code));
  for (const code of OPTION_ERROR_CODES) t.ok(pinned.has(code), code);
});

t.test('an array a fix proposes is accepted when written as proposed', async (t) => {
  let proposals = 0;
  for (const [title, options] of MESSAGES) {
    const error = thrownBy(options) as CorsOptionsError;
    // "Fix: use an array, one origin per element: ['https://a.example', 'https://b.example']",
    // "Fix: use allowedMethods: ['GET', 'POST']", "Fix: list the methods, e.g. allowedMethods: [...]".
    const proposal = /(?:(origin|allowedMethods|allowedHeaders|exposedHeaders): )?(\[[^\]]*\])(?: \(.*\))?$/.exec(
      error.message.slice(error.message.indexOf('. Fix: ')),
    );
    if (proposal === null || typeof options !== 'object' || options === null) continue;
    const field = proposal[1] ?? error.field.replace(/[[.].*$/, '');
    const written: Record<string, unknown> = { ...(options as Record<string, unknown>) };
    delete written[error.field.replace(/[[.].*$/, '')];
    written[field] = JSON.parse(proposal[2]!.replaceAll("'", '"'));
    t.doesNotThrow(() => createCors(written, { logger: quiet }), `${title}: ${JSON.stringify(written)}`);
    proposals++;
  }
  t.ok(proposals >= 10, `${proposals} proposals tried`);
});

function thrownBy(options: unknown): unknown {
  try {
    createCors(options as never, { logger: quiet });
  } catch (error) {
    return error;
  }
  return undefined;
}
