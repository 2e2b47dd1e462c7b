import type { CorsPolicy } from './policy.js';

/**
 * Everything the engine sends for one path that does not depend on the request, computed once
 * when the routes are sealed. It is the `store` of the path's node in the find-my-way tree, so
 * one lookup answers "is the path covered, with which methods, under which policy". Rows and
 * rules A-D are those of docs/CONTRACT.md, section 3.
 */
export interface PathTable {
  readonly policy: CorsPolicy;
  /** `Allow` for a plain OPTIONS request: the path's methods, HEAD with GET, and OPTIONS. */
  readonly allow: string;
  /** The application has its own OPTIONS route here, which answers non-preflight OPTIONS. */
  readonly explicitOptions: boolean;
  /** Rule A: an `Access-Control-Allow-Origin` that does not depend on the request ('*' or one origin). */
  readonly constantAllowOrigin: string | undefined;
  /** Rule A: the policy depends on `Origin`, so every response of the path varies on it. */
  readonly varyOnOrigin: boolean;
  /**
   * Rule A: what every response of rows 1, 2, 3 and 5 carries, whatever its `Origin`, as flat
   * [name, value, ...] pairs. Under a constant policy that is the whole of rule B, so a cached
   * answer fits every origin; otherwise nothing (`Vary: Origin` is added by the writers).
   */
  readonly alwaysOn: readonly string[];
  /** Rule B after an echoed, allowed origin (origin-dependent policies only): flat pairs. */
  readonly actualHeaders: readonly string[];
  /** Rule C after an allowed origin, except the reflected request headers: flat pairs. */
  readonly preflightHeaders: readonly string[];
  /** Rule C: what a preflight answer depends on, already joined. */
  readonly preflightVary: string | undefined;
  /** A whole refused preflight answer for a response nothing else has touched: flat pairs. */
  readonly preflightRefused: readonly string[];
  /** A whole granted preflight answer but for the echoed origin and reflected headers: flat pairs. */
  readonly preflightGranted: readonly string[];
  /** A whole answer to OPTIONS without a preflight (rule A, `Allow`), but for rule B's pairs: flat pairs. */
  readonly optionsAnswer: readonly string[];
}

/** Methods covered when no route is registered (the `cors` package's default list). */
export const GLOBAL_METHODS: readonly string[] = ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE'];

export function buildPathTable(policy: CorsPolicy, methods: Iterable<string>): PathTable {
  const registered = [...methods];
  const allowed = allowList(registered);
  const origin = policy.origin;
  const constantAllowOrigin = origin.kind === 'any' ? '*' : origin.kind === 'fixed' ? origin.origin : undefined;
  const varyOnOrigin = origin.kind === 'dynamic';

  const grant: string[] = [];
  if (policy.allowCredentials) grant.push('Access-Control-Allow-Credentials', 'true');
  if (policy.exposeHeaders !== undefined) grant.push('Access-Control-Expose-Headers', policy.exposeHeaders);
  const alwaysOn = constantAllowOrigin === undefined ? [] : ['Access-Control-Allow-Origin', constantAllowOrigin, ...grant];
  const actualHeaders = varyOnOrigin ? grant : [];

  const preflightHeaders: string[] = ['Access-Control-Allow-Methods', policy.allowMethods ?? allowed];
  if (!policy.reflectRequestHeaders && policy.allowHeaders !== undefined) {
    preflightHeaders.push('Access-Control-Allow-Headers', policy.allowHeaders);
  }
  if (policy.maxAge !== undefined) preflightHeaders.push('Access-Control-Max-Age', policy.maxAge);
  if (policy.allowCredentials) preflightHeaders.push('Access-Control-Allow-Credentials', 'true');

  const preflightVary: string[] = [];
  if (varyOnOrigin) preflightVary.push('Origin');
  if (policy.reflectRequestHeaders) preflightVary.push('Access-Control-Request-Headers');
  if (policy.allowPrivateNetwork) preflightVary.push('Access-Control-Request-Private-Network');

  const preflightRefused: string[] = [];
  if (preflightVary.length > 0) preflightRefused.push('Vary', preflightVary.join(', '));
  if (constantAllowOrigin !== undefined) preflightRefused.push('Access-Control-Allow-Origin', constantAllowOrigin);
  // RFC 9110 8.6: never a Content-Length in a 204. Written out for other statuses, because
  // node:http sends a writeHead() answer without one chunked.
  if (policy.optionsSuccessStatus !== 204) preflightRefused.push('Content-Length', '0');
  const preflightGranted = [...preflightRefused, ...preflightHeaders];
  const optionsAnswer = [...alwaysOn];
  if (varyOnOrigin) optionsAnswer.push('Vary', 'Origin');
  optionsAnswer.push('Allow', allowed);

  // Not frozen here: the route tree adds methods to a path in place, then freezes at seal. The
  // lists are never frozen: V8 copies a frozen array (the writers' slice()) on a slow path,
  // which cost 8,500 instructions per preflight, an eighth of the whole request.
  return {
    policy,
    allow: allowed,
    explicitOptions: registered.includes('OPTIONS'),
    constantAllowOrigin,
    varyOnOrigin,
    alwaysOn,
    actualHeaders,
    preflightHeaders,
    preflightVary: preflightVary.length === 0 ? undefined : preflightVary.join(', '),
    preflightRefused,
    preflightGranted,
    optionsAnswer,
  };
}

/** The path's methods in registration order, HEAD right after GET, OPTIONS last. */
function allowList(methods: readonly string[]): string {
  const list: string[] = [];
  for (const method of methods) {
    if (method === 'OPTIONS' || list.includes(method)) continue;
    list.push(method);
    if (method === 'GET' && !list.includes('HEAD')) list.push('HEAD');
  }
  list.push('OPTIONS');
  return list.join(', ');
}
