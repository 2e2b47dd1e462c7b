/** Classifies a request into a row of docs/CONTRACT.md and decides its origin: the one decision every entry point renders. */
import type { PathTable } from './path-table.js';

/**
 * The request kinds of docs/CONTRACT.md, section 3: `options` is rows 1 and 2, `actual` rows 3
 * and 5, `preflight` row 4.
 */
export type RequestKind = 'preflight' | 'options' | 'actual';

/**
 * How an entry point reads one request header (the name in lower case) from the request object
 * it has: an IncomingMessage, a Request, a framework's own. Absent is `undefined` or `null`.
 */
export type HeaderReader<Req> = (request: Req, name: string) => string | null | undefined;

/**
 * What the engine decided, as far as it does not depend on the page (credentials are the page's
 * to send; diagnostics/explain.ts judges those): `not-cors` without Origin, `allowed`, or the
 * origin refused by the policy's `origin` option (`cors-off` under `origin: false`).
 */
export type DecisionReason = 'not-cors' | 'allowed' | 'origin-not-allowed' | 'cors-off';

export interface Decision {
  readonly kind: RequestKind;
  /** The method whose policy decided: the request's own, a preflight's requested one, OPTIONS for rows 1 and 2. */
  readonly method: string;
  /** The table of the policy that decided. */
  readonly table: PathTable;
  /** The request's `Origin`, as sent. */
  readonly origin: string | undefined;
  /** The request's origin when the policy grants it its answer (any origin under a constant policy), else `undefined`. */
  readonly allowedOrigin: string | undefined;
  readonly reason: DecisionReason;
}

/**
 * The row and the origin verdict. Synchronous for every policy but an async origin function,
 * which is asked once, with `request` as the entry point handed it over.
 */
export function decide<Req>(pathTable: PathTable, requestMethod: string | undefined, request: Req, read: HeaderReader<Req>): Decision | Promise<Decision> {
  const origin = read(request, 'origin') ?? undefined;
  const asked = requestMethod === 'OPTIONS' ? (read(request, 'access-control-request-method') ?? undefined) : undefined;
  const kind = classify(requestMethod, origin, asked !== undefined);
  // The method picks the policy (rule E): a preflight's requested one, else the request's own.
  const method = kind === 'preflight' ? asked! : (requestMethod ?? 'GET');
  const table = tableOfMethod(pathTable, method);
  if (origin === undefined) return { kind, method, table, origin, allowedOrigin: undefined, reason: 'not-cors' };
  const matcher = table.policy.origin;
  switch (matcher.kind) {
    case 'any':
    case 'fixed':
      // One answer for every origin (rule A): the browser compares the fixed origin with its own.
      return { kind, method, table, origin, allowedOrigin: origin, reason: 'allowed' };
    case 'none':
      return { kind, method, table, origin, allowedOrigin: undefined, reason: 'cors-off' };
    case 'dynamic': {
      const verdict = matcher.allows(origin, request);
      if (verdict === true || verdict === false) return verdictOf(kind, method, table, origin, verdict);
      return verdict.then((allowed) => verdictOf(kind, method, table, origin, allowed));
    }
  }
}

/**
 * The method whose route decides a request, and which a lookup finds the route of: a preflight's
 * requested one (its answer is about that request, which on a URL that two paths match may run
 * another path's route than OPTIONS would), else the request's own. Only an OPTIONS request can
 * be a preflight, so no other has its headers read (`read` is the entry point's own reader).
 */
export function routingMethod<Req>(method: string | undefined, request: Req, read: HeaderReader<Req>): string {
  if (method !== 'OPTIONS') return method ?? 'GET';
  const requested = read(request, 'access-control-request-method') ?? undefined;
  return classify(method, read(request, 'origin') ?? undefined, requested !== undefined) === 'preflight' ? requested! : method;
}

/** The row of `request`, read with the entry point's own reader: classify() on its headers. */
export function requestKind<Req>(method: string | undefined, request: Req, read: HeaderReader<Req>): RequestKind {
  return classify(method, read(request, 'origin') ?? undefined, (read(request, 'access-control-request-method') ?? undefined) !== undefined);
}

/** The table that decides `method` on a path (rule E): the method's own, else the path's OPTIONS table. */
export function tableOfMethod(pathTable: PathTable, method: string): PathTable {
  const byMethod = pathTable.byMethod;
  return byMethod === undefined ? pathTable : (byMethod.get(method) ?? byMethod.get('OPTIONS')!);
}

/** The row of a request: a preflight is OPTIONS with Origin and Access-Control-Request-Method (Fetch never sends one without it). */
export function classify(method: string | undefined, origin: string | undefined, asksMethod: boolean): RequestKind {
  if (method !== 'OPTIONS') return 'actual';
  return origin !== undefined && asksMethod ? 'preflight' : 'options';
}

function verdictOf(kind: RequestKind, method: string, table: PathTable, origin: string, allowed: boolean): Decision {
  return allowed
    ? { kind, method, table, origin, allowedOrigin: origin, reason: 'allowed' }
    : { kind, method, table, origin, allowedOrigin: undefined, reason: 'origin-not-allowed' };
}
