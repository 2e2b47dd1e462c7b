/** The per-path header tables: each answer of a path computed once, from its policy and methods, and shared between paths alike. */
import { reflectableHeaderList } from './http-grammar.js';
import type { CorsPolicy } from './policy.js';

/**
 * What the engine sends for one request, in no framework's terms. The entry points write it
 * (entry/node-writer.ts, entry/fetch.ts) and explain() reports it, so all three say the same.
 * Declared here because a table holds its request-independent answers ready made.
 */
export interface Answer {
  /** The status the engine answers with itself, empty body; `undefined`: the application answers, with these headers set. */
  readonly status: number | undefined;
  /**
   * Flat [name, value, ...] pairs. Often the path table's own list (writers must not change it):
   * only what depends on the request (an echoed origin, reflected headers) makes a new one.
   * A `Content-Length` pair is there for writers that send the list as it is (node's writeHead());
   * the others leave it to whoever ends the response.
   */
  readonly headers: readonly string[];
}

/**
 * Everything the engine sends for one path that does not depend on the request, computed once
 * when the routes are sealed. It is the `store` of the path's node in the find-my-way tree, so
 * one lookup answers "is the path covered, with which methods, under which policy". Rows and
 * rules A-D are those of docs/CONTRACT.md, section 3.
 */
export interface PathTable {
  /** The path as registered (`/users/:id`), or `*` when every path is covered; named in explanations. */
  readonly route: string;
  readonly policy: CorsPolicy;
  /** `Allow` for a plain OPTIONS request: the path's methods, HEAD with GET, and OPTIONS. */
  readonly allow: string;
  /** The application has its own OPTIONS route here, which answers non-preflight OPTIONS. */
  readonly explicitOptions: boolean;
  /**
   * Where the methods of the path have different policies: each method's table (HEAD with GET's
   * unless declared, OPTIONS and undeclared methods with the path's OPTIONS policy), shared by every
   * table of the path. `undefined` when one policy covers the whole path.
   */
  readonly byMethod: ReadonlyMap<string, PathTable> | undefined;
  /**
   * Another covered path, under another policy, can match some of this path's URLs (`GET
   * /users/:id` beside `PUT /users/me`): a request here is answered as its URL's
   * (core/route-overlaps.ts). False for most paths.
   */
  readonly sharesUrl: boolean;
  /** The policy depends on `Origin` (the dynamic kind): only its answers differ by origin. */
  readonly varyOnOrigin: boolean;
  /** Rule C reflects the request's validated `Access-Control-Request-Headers`. */
  readonly reflectRequestHeaders: boolean;
  /*
   * Each answer once, as flat [name, value, ...] pairs that answerOf() (core/answer.ts) hands to
   * every writer as they are. What depends on the request (an echoed origin, reflected headers)
   * is appended by answerOf() to a copy.
   */
  /** Rows 3 and 5: rule A (under a constant policy the whole of rule B; else `Vary: Origin`). */
  readonly actualAnswer: readonly string[];
  /** Rows 1 and 2: rule A and `Allow`. */
  readonly optionsAnswer: readonly string[];
  /** Rule B after an echoed origin (dynamic policies; empty otherwise). */
  readonly grant: readonly string[];
  /** Row 4, origin refused. */
  readonly preflightRefused: readonly string[];
  /** Row 4, origin allowed. */
  readonly preflightGranted: readonly string[];
  /** The last granted preflight that reflected a header list (grantedPreflight()); shared with `preflightGranted`, changed in place. */
  readonly lastReflected: ReflectedPreflight;
  /*
   * The answers that depend on nothing of the request, whole, so the hot path allocates none:
   * rows 3 and 5 (the application answers), rows 1 and 2 (the engine's 204, or the
   * application's own OPTIONS route), row 4 refused.
   */
  readonly actual: Answer;
  readonly options: Answer;
  readonly preflightRefusal: Answer;
}

/** Methods covered when no route is registered (the `cors` package's default list). */
export const GLOBAL_METHODS: readonly string[] = ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE'];

/**
 * On a path whose methods have different policies, what one policy's preflight may list: a
 * browser caches the methods of a granted preflight, then sends them with no preflight of their
 * own, so a method under another policy must never be listed (docs/CONTRACT.md, rule E).
 */
export interface MethodScope {
  /** Methods of the path (HEAD and OPTIONS included) whose requests this policy decides. */
  readonly own: ReadonlySet<string>;
  /** Methods the path declares itself; those it does not are decided by its OPTIONS policy. */
  readonly declared: ReadonlySet<string>;
  /** This policy is the path's OPTIONS policy. */
  readonly decidesUndeclared: boolean;
}

/**
 * The table of `policy` on a path of `methods`; `scope` when the path has other policies too.
 * `byMethod` is left for the route tree to set once every table of the path exists.
 */
export function buildPathTable(route: string, policy: CorsPolicy, methods: Iterable<string>, scope?: MethodScope): PathTable {
  const registered = Array.isArray(methods) ? (methods as readonly string[]) : [...methods];
  const allowed = allowList(registered);
  const allowMethods = allowedMethodsOf(policy, allowed, scope);
  // Paths with one policy and one method list share their answers: 100,000 routes then hold a
  // few lists, not 100,000 copies of them (bench --startup).
  let answers = sharedAnswers.get(policy);
  if (answers === undefined) {
    answers = new Map();
    sharedAnswers.set(policy, answers);
  }
  const key = scope === undefined ? allowed : `${allowed}\n${allowMethods}`;
  let shared = answers.get(key);
  if (shared === undefined) {
    shared = buildAnswers(policy, allowed, allowMethods, scope !== undefined);
    answers.set(key, shared);
  }
  // Every field named in the literal: after a spread V8 adds the fields one by one, out of the
  // object (a property array of its own for every path).
  return {
    route,
    policy,
    allow: allowed,
    explicitOptions: registered.includes('OPTIONS'),
    byMethod: undefined,
    sharesUrl: false,
    varyOnOrigin: shared.varyOnOrigin,
    reflectRequestHeaders: shared.reflectRequestHeaders,
    actualAnswer: shared.actualAnswer,
    optionsAnswer: shared.optionsAnswer,
    grant: shared.grant,
    preflightRefused: shared.preflightRefused,
    preflightGranted: shared.preflightGranted,
    lastReflected: shared.lastReflected,
    actual: shared.actual,
    options: shared.options,
    preflightRefusal: shared.preflightRefusal,
  };
}

/**
 * `Access-Control-Allow-Methods` of a granted preflight: `allowedMethods`, else the path's
 * methods; under a scope, only the methods this policy decides (`'*'` becomes that list too, as
 * a browser would otherwise send any method on the cached grant).
 */
function allowedMethodsOf(policy: CorsPolicy, allowed: string, scope: MethodScope | undefined): string {
  const configured = policy.allowedMethods;
  if (scope === undefined) return configured?.join(', ') ?? allowed;
  const listed =
    configured === undefined || configured.includes('*')
      ? allowed.split(', ').filter((method) => scope.own.has(method))
      : configured.filter((method) => scope.own.has(method) || (scope.decidesUndeclared && !scope.declared.has(method)));
  return listed.join(', ');
}

/*
 * On a URL that more than one covered path matches (docs/CONTRACT.md, rule E, "One URL, several
 * paths"), the URL's answers differ from the path's own: made at the first such request, kept
 * with the table they come from (a reconfigure() drops them with it).
 */
const methodAloneTables = new WeakMap<PathTable, Map<string, PathTable>>();
const allowingTables = new WeakMap<PathTable, Map<string, PathTable>>();

/**
 * The table of `method` on the path of `decider` (the table that decides `method` there), where
 * the URL's other methods may run another path's route: its preflight lists `method` alone
 * (`undefined`: no method, for one no route of the URL serves), and every preflight answer says
 * `Vary: Access-Control-Request-Method`.
 */
export function methodAloneTable(decider: PathTable, method: string | undefined): PathTable {
  return madeOnce(methodAloneTables, decider, method ?? '', () => {
    const only = new Set(method === undefined ? [] : [method]);
    return Object.freeze(buildPathTable(decider.route, decider.policy, [...only], { own: only, declared: only, decidesUndeclared: false }));
  });
}

/**
 * `optionsTable` (the path's OPTIONS table) answering a plain OPTIONS (rows 1 and 2) with `more`
 * methods in its `Allow`: those other paths matching the same URL serve.
 */
export function withMoreAllowed(optionsTable: PathTable, more: readonly string[]): PathTable {
  return withAllow(optionsTable, allowList([...optionsTable.allow.split(', ').filter((method) => method !== 'OPTIONS'), ...more]));
}

/**
 * `optionsTable` answering a plain OPTIONS with `allow` as its `Allow`: where the host's router
 * serves the URL with methods of routes the engine does not cover, the list it gives a 405.
 */
export function withAllow(optionsTable: PathTable, allow: string): PathTable {
  return madeOnce(allowingTables, optionsTable, allow, () => {
    const optionsAnswer = [...optionsTable.actualAnswer, 'Allow', allow];
    // Its preflights (one asking for OPTIONS itself) are those of any method on such a URL: that method alone.
    const preflights = methodAloneTable(optionsTable, 'OPTIONS');
    return Object.freeze({
      ...preflights,
      explicitOptions: optionsTable.explicitOptions,
      allow,
      optionsAnswer,
      options: { status: 204, headers: optionsAnswer },
    });
  });
}

/** The table `make` gives for `key`, made once per `table` and kept with it (a reconfigure() drops both). */
export function madeOnce(cache: WeakMap<PathTable, Map<string, PathTable>>, table: PathTable, key: string, make: () => PathTable): PathTable {
  let byKey = cache.get(table);
  if (byKey === undefined) {
    byKey = new Map();
    cache.set(table, byKey);
  }
  let made = byKey.get(key);
  if (made === undefined) {
    made = make();
    byKey.set(key, made);
  }
  return made;
}

type Answers = Omit<PathTable, 'route' | 'policy' | 'allow' | 'explicitOptions' | 'byMethod' | 'sharesUrl'>;

/** The answers of a policy for a path with `allowed` methods, by policy, then by `Allow`. */
const sharedAnswers = new WeakMap<CorsPolicy, Map<string, Answers>>();

function buildAnswers(policy: CorsPolicy, allowed: string, allowMethods: string, variesByMethod: boolean): Answers {
  const origin = policy.origin;
  const constantAllowOrigin = origin.kind === 'any' ? '*' : origin.kind === 'fixed' ? origin.origin : undefined;
  const varyOnOrigin = origin.kind === 'dynamic';
  const reflectRequestHeaders = policy.allowedHeaders === undefined;

  const ruleB: string[] = [];
  if (policy.allowCredentials) ruleB.push('Access-Control-Allow-Credentials', 'true');
  if (policy.exposedHeaders !== undefined && policy.exposedHeaders.length > 0) ruleB.push('Access-Control-Expose-Headers', policy.exposedHeaders.join(', '));
  const actualAnswer =
    constantAllowOrigin !== undefined ? ['Access-Control-Allow-Origin', constantAllowOrigin, ...ruleB] : varyOnOrigin ? ['Vary', 'Origin'] : [];

  const preflightVary: string[] = [];
  if (varyOnOrigin) preflightVary.push('Origin');
  if (reflectRequestHeaders) preflightVary.push('Access-Control-Request-Headers');
  if (policy.allowPrivateNetwork) preflightVary.push('Access-Control-Request-Private-Network');
  // The requested method picks the policy: caches must keep one answer per method.
  if (variesByMethod) preflightVary.push('Access-Control-Request-Method');
  const preflightRefused: string[] = [];
  if (preflightVary.length > 0) preflightRefused.push('Vary', preflightVary.join(', '));
  if (constantAllowOrigin !== undefined) preflightRefused.push('Access-Control-Allow-Origin', constantAllowOrigin);
  // RFC 9110 8.6: never a Content-Length in a 204. Written out for other statuses, because
  // node:http sends a writeHead() answer without one chunked.
  if (policy.optionsSuccessStatus !== 204) preflightRefused.push('Content-Length', '0');
  const preflightGranted = [...preflightRefused];
  if (allowMethods !== '') preflightGranted.push('Access-Control-Allow-Methods', allowMethods);
  if (policy.allowedHeaders !== undefined && policy.allowedHeaders.length > 0)
    preflightGranted.push('Access-Control-Allow-Headers', policy.allowedHeaders.join(', '));
  if (policy.maxAge !== undefined) preflightGranted.push('Access-Control-Max-Age', policy.maxAge);
  if (policy.allowCredentials) preflightGranted.push('Access-Control-Allow-Credentials', 'true');

  // The lists are never frozen, and never changed (answerOf() copies one before appending to
  // it): V8 copies a frozen array (that slice()) on a slow path, a large part of a preflight's
  // work. The tables themselves are frozen at seal.
  const optionsAnswer = [...actualAnswer, 'Allow', allowed];
  return {
    varyOnOrigin,
    reflectRequestHeaders,
    actualAnswer,
    optionsAnswer,
    grant: varyOnOrigin ? ruleB : [],
    preflightRefused,
    preflightGranted,
    lastReflected: { requestedHeaders: undefined, answer: undefined },
    actual: { status: undefined, headers: actualAnswer },
    options: { status: 204, headers: optionsAnswer },
    preflightRefusal: { status: policy.preflightContinue ? undefined : policy.optionsSuccessStatus, headers: preflightRefused },
  };
}

/**
 * A granted preflight's answer that reflected `requestedHeaders`, kept whole: a page's fetch()
 * sends the same header list each time its preflight cache runs out, so most preflights of a
 * path ask for the list the one before asked for.
 */
export interface ReflectedPreflight {
  requestedHeaders: string | undefined;
  answer: Answer | undefined;
}

/**
 * Row 4's whole answer to an allowed origin: the table's granted preflight, then what depends on
 * the request: the echoed origin (dynamic policies), the request's header list when the policy
 * reflects it and it passes validation, and the private network grant when asked for and
 * allowed. Every writer sends its list as it is, and none changes it.
 *
 * Hot path: under a constant policy, a list asked for again gets the answer made for it the last
 * time, checked and copied once: checking the list (a regular expression) and copying the pairs
 * were most of what a preflight spends and allocates here.
 */
export function grantedPreflight(table: PathTable, allowedOrigin: string, requestedHeaders: string | null | undefined, asksPrivateNetwork: boolean): Answer {
  // Small, so that V8 inlines it where the entry point's optimized code calls it (the rest did
  // not fit corsMiddleware's inlining budget, and ran unoptimized after 8,000 preflights). Only
  // a policy that reflects lists and gives every origin one answer ever keeps one.
  const last = table.lastReflected;
  if (requestedHeaders === last.requestedHeaders && last.answer !== undefined && !asksPrivateNetwork) return last.answer;
  return grantedPreflightAnew(table, allowedOrigin, requestedHeaders, asksPrivateNetwork);
}

function grantedPreflightAnew(table: PathTable, allowedOrigin: string, requestedHeaders: string | null | undefined, asksPrivateNetwork: boolean): Answer {
  const status = table.preflightRefusal.status;
  if (!table.varyOnOrigin && !asksPrivateNetwork && table.reflectRequestHeaders && typeof requestedHeaders === 'string') {
    const last = table.lastReflected;
    const reflected = requestedHeaders === '' ? undefined : reflectableHeaderList(requestedHeaders);
    if (reflected === undefined) return { status, headers: table.preflightGranted };
    const answer = { status, headers: [...table.preflightGranted, 'Access-Control-Allow-Headers', reflected] };
    last.requestedHeaders = requestedHeaders;
    last.answer = answer;
    return answer;
  }
  const headers = table.preflightGranted.slice();
  if (table.varyOnOrigin) headers.push('Access-Control-Allow-Origin', allowedOrigin);
  const reflected =
    table.reflectRequestHeaders && typeof requestedHeaders === 'string' && requestedHeaders !== '' ? reflectableHeaderList(requestedHeaders) : undefined;
  if (reflected !== undefined) headers.push('Access-Control-Allow-Headers', reflected);
  if (asksPrivateNetwork && table.policy.allowPrivateNetwork) headers.push('Access-Control-Allow-Private-Network', 'true');
  return { status, headers };
}

/** `Allow` values already made, by the method list they came from: one string for 100,000 paths alike. */
const ALLOW_LISTS = new Map<string, string>();

/** The path's methods in registration order, HEAD right after GET, OPTIONS last. */
function allowList(methods: readonly string[]): string {
  const key = methods.length === 1 ? methods[0]! : methods.join(',');
  let allow = ALLOW_LISTS.get(key);
  if (allow === undefined) {
    allow = makeAllowList(methods);
    // Bounded by the method lists an application has, but a list is the user's own: keep a few hundred.
    if (ALLOW_LISTS.size < 512) ALLOW_LISTS.set(key, allow);
  }
  return allow;
}

function makeAllowList(methods: readonly string[]): string {
  const list: string[] = [];
  for (const method of methods) {
    if (method === 'OPTIONS' || list.includes(method)) continue;
    list.push(method);
    if (method === 'GET' && !list.includes('HEAD')) list.push('HEAD');
  }
  list.push('OPTIONS');
  return list.join(', ');
}
