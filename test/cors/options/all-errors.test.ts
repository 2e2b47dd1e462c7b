/**
 * Every configuration error at once (issue 25, point 3): one pass over the options reports each
 * problem in CorsOptionsError.errors, so a configuration is fixed in one go. The first table pins
 * the codes and paths a configuration gets, in order; the rows after it pin the message, the
 * route prefix of a path, the combining of several checks, and that nothing is warned about
 * options that are refused.
 */
import t from 'tap';

import { createCors, CorsOptionsError, OPTION_ERROR_CODES, type CorsLogger, type CorsOptionProblem } from '@lib/cors/standalone';

/** The policy's own functions (src/cors/core/policy.ts, internal), for what the engine does not call yet. */
type PolicyCheck = { valid: true; warnings: readonly string[] } | { valid: false; problems: readonly CorsOptionProblem[] };
interface PolicyContext {
  source: string;
  logger: CorsLogger;
  pathPrefix?: string;
}
const policy = (await import(new URL('../../../../src/cors/dist/core/policy.js', import.meta.url).href)) as {
  checkPolicy(options: object, context: PolicyContext): PolicyCheck;
  checkUserOptions(options: unknown, context: PolicyContext): PolicyCheck;
  settlePolicyChecks(source: string, logger: CorsLogger, checks: readonly PolicyCheck[]): void;
  routePathPrefix(methods: readonly string[], path: string): string;
};

const quiet: CorsLogger = { warn: () => {}, error: () => {} };

/** A recording logger: what a start-up would have warned about. */
function recorder(): CorsLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message) => warnings.push(message), error: () => {} };
}

/** The error `options` get from createCors(), or a failure when they are accepted. */
function refusal(options: unknown, logger: CorsLogger = quiet): CorsOptionsError {
  try {
    createCors(Object.freeze(options) as never, { logger });
  } catch (error) {
    if (error instanceof CorsOptionsError) return error;
    throw error;
  }
  throw new Error(`accepted: ${JSON.stringify(options)}`);
}

const codesAndPaths = (error: CorsOptionsError) => error.errors.map((problem) => `${problem.code} ${problem.path}`);

/** [what the row proves, the options, every problem as `code path`, in the order validation visits them]. */
const PROBLEMS: [string, unknown, string[]][] = [
  [
    'three fields wrong are three problems, in one error',
    { origin: 'https://a.example/', maxAge: -1, allowedMethods: ['get'] },
    ['CORS_INVALID_ORIGIN origin', 'CORS_METHOD_NOT_UPPER_CASE allowedMethods[0]', 'CORS_INVALID_NUMBER maxAge'],
  ],
  [
    'every bad element of an origin list is reported, the good ones between them are not',
    { origin: ['https://a.example/', 'https://b.example', 'c.example', /^https:\/\/d\.example$/g] },
    ['CORS_INVALID_ORIGIN origin[0]', 'CORS_INVALID_ORIGIN origin[2]', 'CORS_STATEFUL_REGEXP origin[3]'],
  ],
  [
    'every bad element of every names list is reported',
    { allowedHeaders: ['X Y', 'X-Ok', ''], exposedHeaders: ['a,b'], allowedMethods: ['GET', 'put', 'patch'] },
    [
      'CORS_INVALID_NAME allowedHeaders[0]',
      'CORS_INVALID_NAME allowedHeaders[2]',
      'CORS_INVALID_NAME exposedHeaders[0]',
      'CORS_METHOD_NOT_UPPER_CASE allowedMethods[1]',
      'CORS_METHOD_NOT_UPPER_CASE allowedMethods[2]',
    ],
  ],
  [
    'unknown fields and bad values are reported together',
    { orgin: 'https://a.example', credentials: true, maxAge: 1.5, preflightContinue: 'yes' },
    ['CORS_UNKNOWN_OPTION orgin', 'CORS_OPTION_OF_ANOTHER_PACKAGE credentials', 'CORS_INVALID_NUMBER maxAge', 'CORS_INVALID_BOOLEAN preflightContinue'],
  ],
  ['options that are no object stop there: they have no fields to check', 'https://a.example', ['CORS_OPTIONS_NOT_OBJECT (options)']],
  ['an element refused as no name is not refused again as a missing method', { allowedMethods: ['x y'] }, ['CORS_INVALID_NAME allowedMethods[0]']],
  [
    "a '*' refused in a list is not refused again with credentials",
    { origin: 'https://a.example', allowCredentials: true, allowedHeaders: ['*', 'X-A'] },
    ['CORS_WILDCARD_IN_LIST allowedHeaders[0]'],
  ],
  [
    'an origin refused is not read as the default * with credentials',
    { origin: 42, allowCredentials: true, exposedHeaders: '*' },
    ['CORS_INVALID_ORIGIN_POLICY origin', 'CORS_WILDCARD_WITH_CREDENTIALS exposedHeaders'],
  ],
  [
    'both fields of originCache are checked',
    { origin: () => true, originCache: { max: 0, ttl: -1 }, optionsSuccessStatus: 404 },
    ['CORS_INVALID_NUMBER originCache.max', 'CORS_INVALID_NUMBER originCache.ttl', 'CORS_INVALID_NUMBER optionsSuccessStatus'],
  ],
];

for (const [proves, options, expected] of PROBLEMS) {
  t.test(proves, async (t) => {
    const error = refusal(options);
    t.same(codesAndPaths(error), expected);
    const [first] = error.errors;
    t.match(error, { code: first!.code, source: 'createCors()', field: first!.field, value: first!.value }, 'the error is its first problem');
    t.ok(
      error.errors.every((problem) => (OPTION_ERROR_CODES as readonly string[]).includes(problem.code) && Object.isFrozen(problem)),
      'each problem has a published code, and cannot be changed',
    );
    t.ok(Object.isFrozen(error.errors), 'the list cannot be changed');
  });
}

t.test('one problem: the message is that problem line, as before there were several', async (t) => {
  const error = refusal({ origin: 'https://example.com/' });
  const pinned =
    'createCors(): CorsOptions.origin = "https://example.com/" is not a serialized origin (browsers send no path, no trailing slash, no upper case ' +
    "and no default port). Fix: write it as 'https://example.com'";
  t.equal(error.message, pinned);
  t.equal(error.errors.length, 1);
  t.equal(error.errors[0]!.message, pinned);
  t.match(error.errors[0], { code: 'CORS_INVALID_ORIGIN', source: 'createCors()', field: 'origin', path: 'origin', value: 'https://example.com/' });
  t.match(error.errors[0], { problem: /^is not a serialized origin/, fix: "write it as 'https://example.com'" });
});

t.test('several problems: a count, then each problem line numbered', async (t) => {
  const error = refusal({ origin: 'https://a.example/', maxAge: -1, allowedMethods: ['get'] });
  const lines = error.message.split('\n');
  t.equal(lines[0], 'createCors(): 3 problems in the CORS options:');
  t.same(
    lines.slice(1),
    error.errors.map((problem, index) => `  ${index + 1}. ${problem.message}`),
  );
  t.equal(
    error.errors[1]!.message,
    'createCors(): CorsOptions.allowedMethods[0] = "get" is not in upper case, and browsers compare methods case-sensitively (they upper-case the standard ones first). Fix: write \'GET\'',
  );
  t.match(error.stack, /^CorsOptionsError: createCors\(\): 3 problems in the CORS options:\n {2}1\. /, 'a crash prints every problem');
});

t.test("a route's options: every problem, named after the route", async (t) => {
  let thrown: unknown;
  try {
    createCors({}, { logger: quiet }).route('GET', '/login', Object.freeze({ origin: ['https://a.example', 'b.example', '*'], maxAge: 'ten' }) as never);
  } catch (error) {
    thrown = error;
  }
  t.type(thrown, CorsOptionsError);
  const error = thrown as CorsOptionsError;
  t.same(codesAndPaths(error), [
    'CORS_INVALID_ORIGIN routes["GET /login"].origin[1]',
    'CORS_WILDCARD_IN_LIST routes["GET /login"].origin[2]',
    'CORS_INVALID_NUMBER routes["GET /login"].maxAge',
  ]);
  t.same(
    error.errors.map((problem) => problem.field),
    ['origin[1]', 'origin[2]', 'maxAge'],
    'the field, within the route',
  );
  t.equal(error.source, 'route GET /login');
  t.match(error.message, /^route GET \/login: 3 problems in the CORS options:\n {2}1\. route GET \/login: CorsOptions\.origin\[1\] = "b\.example"/);
});

t.test('reconfigure(): one error for the new options and every route merged over them, nothing changed', async (t) => {
  const cors = createCors({ origin: ['https://a.example', 'https://b.example'] }, { logger: quiet })
    .route('POST', '/login', { allowCredentials: true })
    .route('GET', '/feed', { allowedHeaders: ['X-A'] })
    .route('PUT', '/account', { allowCredentials: true, exposedHeaders: ['X-B'] });
  const before = cors.options();
  let thrown: unknown;
  try {
    cors.reconfigure({ origin: '*', maxAge: 'ten' as never });
  } catch (error) {
    thrown = error;
  }
  t.type(thrown, CorsOptionsError);
  t.same(codesAndPaths(thrown as CorsOptionsError), ['CORS_INVALID_NUMBER maxAge'], 'a bad base: its own problems (routes cannot be merged over it)');
  try {
    cors.reconfigure({ origin: '*' });
  } catch (error) {
    thrown = error;
  }
  t.same(
    codesAndPaths(thrown as CorsOptionsError),
    ['CORS_WILDCARD_WITH_CREDENTIALS routes["POST /login"].origin', 'CORS_WILDCARD_WITH_CREDENTIALS routes["PUT /account"].origin'],
    'every route the new options break',
  );
  t.match((thrown as Error).message, /^createCors\(\)\.reconfigure\(\): 2 problems in the CORS options:/);
  t.same(cors.options(), before, 'nothing changed');
});

t.test('a path prefix puts the route before each path, and leaves the field and the message as they are', async (t) => {
  const prefix = policy.routePathPrefix(['GET', 'POST'], '/login');
  t.equal(prefix, 'routes["GET,POST /login"].');
  const check = policy.checkPolicy(
    { origin: ['https://a.example/', 'https://b.example', 'c.example'] },
    { source: 'route GET,POST /login', logger: quiet, pathPrefix: prefix },
  );
  if (check.valid) return t.fail('accepted');
  t.same(
    check.problems.map((problem) => [problem.path, problem.field]),
    [
      ['routes["GET,POST /login"].origin[0]', 'origin[0]'],
      ['routes["GET,POST /login"].origin[2]', 'origin[2]'],
    ],
  );
  t.match(check.problems[0]!.message, /^route GET,POST \/login: CorsOptions\.origin\[0\] = /);
});

t.test('the problems of several checks make one error (reconfigure: the base and each route)', async (t) => {
  const logger = recorder();
  const base = policy.checkUserOptions({ origin: 'https://a.example', maxAge: 9000, orgin: 'x' }, { source: 'reconfigure()', logger });
  const route = policy.checkPolicy(
    { origin: ['https://a.example/'], allowedMethods: [] },
    { source: 'route GET /login', logger, pathPrefix: policy.routePathPrefix(['GET'], '/login') },
  );
  const fine = policy.checkPolicy({ origin: /example\.com$/ }, { source: 'route GET /x', logger, pathPrefix: policy.routePathPrefix(['GET'], '/x') });
  t.ok(fine.valid);
  let thrown: unknown;
  try {
    policy.settlePolicyChecks('reconfigure()', logger, [base, route, fine]);
  } catch (error) {
    thrown = error;
  }
  t.type(thrown, CorsOptionsError);
  const error = thrown as CorsOptionsError;
  t.same(codesAndPaths(error), [
    'CORS_UNKNOWN_OPTION orgin',
    'CORS_INVALID_ORIGIN routes["GET /login"].origin[0]',
    'CORS_NO_METHOD routes["GET /login"].allowedMethods',
  ]);
  t.equal(error.message.split('\n')[0], 'reconfigure(): 3 problems in the CORS options:');
  t.match(error.message, /\n {2}3\. route GET \/login: CorsOptions\.allowedMethods = \[\] grants no method\./);
  t.same(logger.warnings, [], 'nothing is warned about, not even the valid route: nothing was compiled');

  policy.settlePolicyChecks('reconfigure()', logger, [fine]);
  t.match(logger.warnings, [/route GET \/x: CorsOptions\.origin = \/example\\\.com\$\/ is not anchored/], 'valid checks: their warnings are logged then');
});

t.test('CorsOptionsError.of() of one problem is that problem, its route path kept', async (t) => {
  const check = policy.checkPolicy({ maxAge: -1 }, { source: 'route GET /x', logger: quiet, pathPrefix: policy.routePathPrefix(['GET'], '/x') });
  if (check.valid) return t.fail('accepted');
  const error = CorsOptionsError.of('reconfigure()', check.problems);
  t.equal(error.message, check.problems[0]!.message);
  t.equal(error.errors[0]!.path, 'routes["GET /x"].maxAge');
  t.throws(() => CorsOptionsError.of('reconfigure()', []), RangeError, 'no problem is no error');
});

t.test('refused options warn about nothing; the same warning is given once they are fixed', async (t) => {
  const unanchored = /^https:\/\/(app|admin).example.com$/;
  const refused = recorder();
  refusal({ origin: [unanchored, 'https://*.github.io'], allowCredentials: true, maxAge: -1 }, refused);
  t.same(refused.warnings, []);
  const accepted = recorder();
  createCors({ origin: [unanchored, 'https://*.github.io'], allowCredentials: true, maxAge: 600 }, { logger: accepted });
  t.equal(accepted.warnings.length, 2, 'the unescaped dot, and the public suffix');
});

t.test('an error made by hand (the six-argument constructor) lists itself as its one problem', async (t) => {
  const error = new CorsOptionsError('CORS_INVALID_NUMBER', 'mine', 'maxAge', -1, 'is negative', 'use 600');
  t.equal(error.message, 'mine: CorsOptions.maxAge = -1 is negative. Fix: use 600');
  t.same(error.errors, [
    { code: 'CORS_INVALID_NUMBER', source: 'mine', field: 'maxAge', path: 'maxAge', value: -1, problem: 'is negative', fix: 'use 600', message: error.message },
  ]);
});
