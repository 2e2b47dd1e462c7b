/** Judges the answer a decision got as a browser would, and says why in the engine's terms: explain() and debug mode's refusal lines. */
import type { IncomingHttpHeaders } from 'node:http';

import { answerOf, type Answer } from '../core/answer.js';
import type { CorsCore, TableRef } from '../core/cors-core.js';
import { classify, decide, type Decision, type RequestKind, requestKind, routingMethod } from '../core/decision.js';
import type { Candidate, MarkersRun } from '../core/route-markers.js';
import { isWellFormedOrigin } from '../core/http-grammar.js';
import type { PathTable } from '../core/path-table.js';
import { corsCheck, preflightCheck, reasonDocs, splitList, type CheckFailure, type ReasonCode } from './browser-checks.js';

/** A request to explain: `{ method, url, headers }`, or an IncomingMessage. */
export interface ExplainRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders | Readonly<Record<string, string | readonly string[] | undefined>>;
}

/** explain() of a middleware that reads its framework's routes (Express, Koa, hono): call cors.mirror(app) first in Express and Koa. */
export interface ExplainsRoutes {
  /** What `request` is answered, judged as a browser would, naming the routes of its URL that narrowed it (rule F). */
  explain(request: ExplainRequest, options?: ExplainOptions): Promise<Explanation>;
}

export interface ExplainOptions {
  /** The page's fetch() sends credentials (`credentials: 'include'`). Default `false`. */
  readonly credentials?: boolean;
}

export interface Explanation {
  /** The path is covered by the engine. */
  readonly covered: boolean;
  readonly kind: 'preflight' | 'options' | 'actual' | 'not-cors';
  /** The browser's verdict: the page may go on (preflight) or read the answer. */
  readonly allowed: boolean;
  readonly reason: ReasonCode;
  /**
   * The section of docs/errors.md on `reason`: what triggers it, an example, the fix. A path from
   * the package's folder (node_modules/@lib/cors, which ships the page) and from the repository's:
   * `docs/errors.md#method-not-allowed`.
   */
  readonly docs: string;
  /** The method whose policy decided (a preflight's requested method; OPTIONS for rows 1 and 2); `undefined` off the covered paths. */
  readonly method: string | undefined;
  /** The option to change for a refusal (`origin`, `allowCredentials`, `allowedMethods`, `allowedHeaders`, `route()`), else `undefined`. */
  readonly option: string | undefined;
  /** One sentence naming the option to change. */
  readonly message: string;
  /** The status the engine answers with itself; `undefined` when the application answers. */
  readonly status: number | undefined;
  /** The CORS headers the engine sends (names in lower case). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Express, Koa and hono: the routes of the URL whose different policies the answer combines
   * (docs/CONTRACT.md, rule F), where they narrowed it; else absent.
   */
  readonly routes?: readonly string[];
  /**
   * Where the policy's origin function keeps verdicts (an origin store, `@lib/cors/origin-store`):
   * whether this one was held in its cache (and how old it was) or read from the store now.
   */
  readonly originVerdict?: { readonly from: 'cache' | 'store'; readonly age: number };
}

const LOCAL_NETWORK_NOTE =
  ' Note: the request asks for private network access, which Chromium replaced with Local Network Access, a permission only the user can ' +
  'grant; no response header grants it.';

/** The explanation of a request off the covered paths: the engine adds nothing. */
export function explainUncovered(request: ExplainRequest): Explanation {
  const headers = lowerCaseHeaders(request.headers);
  const origin = headers.origin;
  const path = (request.url ?? '/').split('?')[0];
  const message =
    origin === undefined
      ? `${path} is not covered, and the request has no Origin: no CORS check applies.`
      : `${path} is not covered, so the engine adds nothing and the application's own answer decides: cover it with route() or mirror(), or register no route to cover every path.`;
  const reason = origin === undefined ? 'not-cors' : 'not-covered';
  return {
    covered: false,
    kind: kindOf(classify(request.method ?? 'GET', origin, headers['access-control-request-method'] !== undefined), origin),
    allowed: origin === undefined,
    reason,
    docs: reasonDocs(reason),
    method: undefined,
    option: origin === undefined ? undefined : 'route()',
    message: message + noteOf(headers),
    status: undefined,
    headers: {},
  };
}

/**
 * What `decision` sent (`answer`, as the entry points write it) and a browser's verdict on it.
 * Nothing is asked again: the decision is the one the request got.
 */
export function explainDecision(decision: Decision, answer: Answer, request: ExplainRequest, options: ExplainOptions = {}): Explanation {
  const headers = lowerCaseHeaders(request.headers);
  const sent = headersOf(answer);
  const note = noteOf(headers);
  const origin = decision.origin;
  const base = { covered: true, kind: kindOf(decision.kind, origin), method: decision.method, status: answer.status, headers: sent } as const;
  const route = routeOf(decision);
  if (origin === undefined) {
    return {
      ...base,
      allowed: true,
      reason: 'not-cors',
      docs: reasonDocs('not-cors'),
      option: undefined,
      message: `No Origin: not a CORS request, so the browser applies no CORS check to ${route}.${note}`,
    };
  }
  const credentials = options.credentials ?? false;
  const seen = { status: answer.status ?? 200, headers: sent };
  const requestedMethod = headers['access-control-request-method'];
  const failure =
    decision.kind === 'preflight'
      ? preflightCheck(
          origin,
          requestedMethod!,
          splitList(headers['access-control-request-headers']).map((name) => name.toLowerCase()),
          seen,
          credentials,
        )
      : corsCheck(origin, seen, credentials);
  if (failure === undefined) {
    if (decision.kind === 'preflight' && answer.status === undefined) {
      return {
        ...base,
        allowed: true,
        reason: 'preflight-continued',
        docs: reasonDocs('preflight-continued'),
        option: undefined,
        message: `preflightContinue is set for ${route}: the grant is set, and the application's answer must be a 2xx.${note}`,
      };
    }
    return {
      ...base,
      allowed: true,
      reason: 'allowed',
      docs: reasonDocs('allowed'),
      option: undefined,
      message: `${origin} may ${decision.kind === 'preflight' ? `send ${requestedMethod} to` : 'read the answers of'} ${route}.${note}`,
    };
  }
  const refusal = describe(failure, decision, requestedMethod);
  return { ...base, allowed: false, ...refusal, docs: reasonDocs(refusal.reason), message: refusal.message + note };
}

/** The route as a message names it: with the method whose policy decided, where the path has several (rule E). */
function routeOf(decision: Decision): string {
  return decision.table.byMethod === undefined ? decision.table.route : `${decision.method} ${decision.table.route}`;
}

/** The contract's kinds as explain() names them: an actual request without Origin (row 5) is `not-cors`. */
function kindOf(kind: RequestKind, origin: string | undefined): Explanation['kind'] {
  return kind === 'actual' && origin === undefined ? 'not-cors' : kind;
}

function noteOf(headers: Record<string, string>): string {
  return headers['access-control-request-private-network'] === 'true' ? LOCAL_NETWORK_NOTE : '';
}

/** The answer's pairs as the lower-cased map a browser check reads. */
function headersOf(answer: Answer): Record<string, string> {
  const flat: Record<string, string> = {};
  for (let i = 0; i < answer.headers.length; i += 2) flat[answer.headers[i]!.toLowerCase()] = answer.headers[i + 1]!;
  return flat;
}

type Refusal = Pick<Explanation, 'reason' | 'option' | 'message'>;

/** The browser's refusal in the engine's terms: the option of the deciding route to change. */
function describe(failure: CheckFailure, decision: Decision, requestedMethod: string | undefined): Refusal {
  const table: PathTable = decision.table;
  const policy = table.policy;
  const route = routeOf(decision);
  const origin = decision.origin!;
  switch (failure.code) {
    case 'origin-not-allowed':
      if (decision.reason === 'cors-off')
        return { reason: 'cors-off', option: 'origin', message: `CORS is off for ${route} (origin: false): set origin to the origins that may read it.` };
      if (origin === 'null')
        return {
          reason: 'origin-not-allowed',
          option: 'origin',
          message: `Origin "null" (a sandboxed frame, a file: page) is allowed for ${route} only when 'null' is listed in origin.`,
        };
      if (!isWellFormedOrigin(origin))
        return {
          reason: 'origin-not-allowed',
          option: 'origin',
          message: `${JSON.stringify(origin)} is not an origin a browser sends, so no origin policy of ${route} allows it.`,
        };
      return { reason: 'origin-not-allowed', option: 'origin', message: `${origin} is not allowed by origin for ${route}: add it to origin.` };
    case 'origin-mismatch': {
      const only = policy.origin.kind === 'fixed' ? policy.origin.origin : 'another origin';
      return {
        reason: 'origin-mismatch',
        option: 'origin',
        message: `${origin} is not allowed by origin for ${route}, which allows ${only} only: add ${origin} to origin (a list).`,
      };
    }
    case 'wildcard-with-credentials':
      return {
        reason: 'wildcard-with-credentials',
        option: 'origin',
        message: `${route} answers Access-Control-Allow-Origin: * (origin: '*'), which a credentialed request never accepts: list the origins in origin and set allowCredentials: true.`,
      };
    case 'credentials-not-allowed':
      return {
        reason: 'credentials-not-allowed',
        option: 'allowCredentials',
        message: `allowCredentials is not set for ${route}, and the request sends credentials: set allowCredentials: true.`,
      };
    case 'method-not-allowed':
      return policy.allowedMethods !== undefined
        ? { reason: 'method-not-allowed', option: 'allowedMethods', message: `${requestedMethod} is not in allowedMethods for ${route}.` }
        : {
            reason: 'method-not-allowed',
            option: 'route()',
            message: `${requestedMethod} is not a method ${table.route} registers (${table.allow}): register it with route(), or list it in allowedMethods.`,
          };
    case 'header-not-allowed':
      return policy.allowedHeaders !== undefined
        ? { reason: 'header-not-allowed', option: 'allowedHeaders', message: `${failure.name} is not in allowedHeaders for ${route}.` }
        : {
            reason: 'header-not-allowed',
            option: 'allowedHeaders',
            message: `The Access-Control-Request-Headers list was not reflected for ${route}: it has more than 64 names, more than 4 KiB, or a name that is not a token.`,
          };
    default:
      return { reason: failure.code, option: undefined, message: `${failure.detail} (${route}).` };
  }
}

function lowerCaseHeaders(headers: ExplainRequest['headers']): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) lower[name.toLowerCase()] = typeof value === 'string' ? value : value.join(', ');
  }
  return lower;
}

/**
 * explain() of every entry point: the decision a request like `request` gets (an async origin
 * function is asked, as the request would ask it, with `request` itself), its answer, and a
 * browser's verdict. Sends nothing.
 */
export async function explainRequest(core: CorsCore, request: ExplainRequest, options: ExplainOptions = {}): Promise<Explanation> {
  const headers = lowerCaseHeaders(request.headers);
  const read = (_request: ExplainRequest, name: string): string | undefined => headers[name];
  const table = core.lookup(request.url ?? '/', routingMethod(request.method, request, read));
  if (table === undefined) return explainUncovered(request);
  return explainOnTable(table, request, options);
}

/** A header reader over an ExplainRequest's headers, whatever their case. */
export function readExplainHeader(request: ExplainRequest): (_request: unknown, name: string) => string | undefined {
  const headers = lowerCaseHeaders(request.headers);
  return (_request, name) => headers[name];
}

/** The explanation of `request` on `table`, where the entry point knows the table (a Next.js route file's). */
export async function explainOnTable(table: PathTable, request: ExplainRequest, options: ExplainOptions = {}): Promise<Explanation> {
  const read = readExplainHeader(request);
  // What an origin store holds is read before deciding, which may read the store and keep its answer.
  const held = heldVerdicts(table, request, read(request, 'origin'));
  const decision = await decide(table, request.method ?? 'GET', request, read);
  // The policy's own answer: what debug mode adds to a refused preflight is no grant.
  const explanation = explainDecision(decision, answerOf(decision, request, read, false), request, options);
  const originVerdict = held.get(decision.table);
  if (originVerdict === undefined || decision.origin === undefined) return explanation;
  const said =
    originVerdict.from === 'cache'
      ? ` The origin's verdict was held in the origin store's cache, ${originVerdict.age} ms old.`
      : " The origin's verdict was read from the origin store.";
  return { ...explanation, originVerdict, message: explanation.message + said };
}

/** For each policy of `table` whose origin function keeps verdicts: what it holds for `origin`, or that it must read the store. */
function heldVerdicts(table: PathTable, request: ExplainRequest, origin: string | undefined): Map<PathTable, NonNullable<Explanation['originVerdict']>> {
  const held = new Map<PathTable, NonNullable<Explanation['originVerdict']>>();
  if (origin === undefined) return held;
  for (const policyTable of new Set([table, ...(table.byMethod?.values() ?? [])])) {
    const matcher = policyTable.policy.origin;
    if (matcher.kind !== 'dynamic' || matcher.heldVerdict === undefined) continue;
    held.set(policyTable, matcher.heldVerdict(origin, request) ?? { from: 'store', age: 0 });
  }
  return held;
}

/**
 * explain() of the Express, Koa and hono middlewares: `request` judged under what every route of
 * its URL (`candidates`) allows (rule F), naming the routes whose policies narrowed it.
 */
export async function explainAmongRoutes(
  run: MarkersRun,
  request: ExplainRequest,
  candidates: readonly Candidate[],
  base: TableRef,
  options?: ExplainOptions,
): Promise<Explanation> {
  const read = readExplainHeader(request);
  const found = run.tableFor(requestKind(request.method, request, read), routingMethod(request.method, request, read), candidates, base);
  if (found === undefined) return explainUncovered(request);
  const explanation = await explainOnTable(found.table, request, options);
  if (found.routes === undefined) return explanation;
  const why = ` The URL is matched by ${found.routes.join(' and ')}, and answered under what all of them allow (rule F).`;
  return { ...explanation, routes: found.routes, message: explanation.message + why };
}
