/** Turns a decision into the answer's status and header pairs, which every entry point writes as they are. */
import { type Decision, type HeaderReader, tableOfMethod } from './decision.js';
import type { OriginMatcher } from './origin-matcher.js';
import { type Answer, grantedPreflight, type PathTable } from './path-table.js';

export type { Answer };

/**
 * The answer of rows 1 to 5 (docs/CONTRACT.md, section 3) for `decision`; `request` is read for a
 * preflight's own headers only. In debug mode a refused preflight may name the failed check (below).
 */
export function answerOf<Req>(decision: Decision, request: Req, read: HeaderReader<Req>, debug: boolean): Answer {
  const { table, allowedOrigin } = decision;
  switch (decision.kind) {
    case 'preflight': {
      // Rule C; handed on with the grant set under preflightContinue.
      if (allowedOrigin === undefined) return debug ? (disclosedRefusal(decision, request) ?? table.preflightRefusal) : table.preflightRefusal;
      return grantedPreflight(
        table,
        allowedOrigin,
        read(request, 'access-control-request-headers'),
        read(request, 'access-control-request-private-network') === 'true',
      );
    }
    case 'options': {
      // Rows 1 and 2: the application's own OPTIONS route answers, with rule A and B set.
      const constant = table.explicitOptions ? table.actual : table.options;
      // The constant answer is returned here, not by a call: the usual case stays one branch.
      return allowedOrigin === undefined || !table.varyOnOrigin ? constant : withGrant(constant, allowedOrigin, table);
    }
    case 'actual':
      // Rows 3 and 5: set before the application runs, so its own errors carry them too.
      return allowedOrigin === undefined || !table.varyOnOrigin ? table.actual : withGrant(table.actual, allowedOrigin, table);
  }
}

/**
 * An OPTIONS request's answer where no origin needs judging, as decide() and answerOf() give it,
 * for an entry point with nobody to hand a decision to: rows 1 and 2, unless a dynamic policy is
 * asked with an Origin, and row 4 under a policy with one answer for every origin (`origin: '*'`
 * or one fixed origin). `undefined` for any other: then decide(). `source` is what `read` reads
 * the headers from: node's entry hands over the headers object itself, so IncomingMessage's
 * `headers` getter runs once, not four times.
 */
export function optionsAnswerUndecided<Src>(pathTable: PathTable, source: Src, read: HeaderReader<Src>): Answer | undefined {
  const origin = read(source, 'origin') ?? undefined;
  const asked = read(source, 'access-control-request-method') ?? undefined;
  if (origin === undefined || asked === undefined) {
    // classify(): rows 1 and 2, under the OPTIONS policy; only a dynamic one adds to its constant answer.
    const table = tableOfMethod(pathTable, 'OPTIONS');
    if (origin !== undefined && table.varyOnOrigin) return undefined;
    return table.explicitOptions ? table.actual : table.options;
  }
  const table = tableOfMethod(pathTable, asked);
  const kind = table.policy.origin.kind;
  if (kind !== 'any' && kind !== 'fixed') return undefined;
  return grantedPreflight(table, origin, read(source, 'access-control-request-headers'), read(source, 'access-control-request-private-network') === 'true');
}

/** `constant`, with rule B's request-dependent part after it (the echoed origin and the grant), for a dynamic policy that allows the origin. */
function withGrant(constant: Answer, allowedOrigin: string, table: Decision['table']): Answer {
  const headers = constant.headers.slice();
  headers.push('Access-Control-Allow-Origin', allowedOrigin);
  for (const value of table.grant) headers.push(value);
  return { status: constant.status, headers };
}

/**
 * Debug mode: a preflight refused by the policy of the method it asks for, from an origin that
 * another policy of the same path allows (rule E), gets that policy's
 * `Access-Control-Allow-Origin` (and `Access-Control-Allow-Credentials` where it grants them) and
 * still no method: the browser then reports the method it was refused, where it would otherwise
 * report a missing `Access-Control-Allow-Origin`. Nothing is granted, and an origin no policy of
 * the path allows is told nothing. Policies that ask the application's origin function are not
 * asked again for this. `undefined` when there is nothing to disclose.
 */
function disclosedRefusal<Req>(decision: Decision, request: Req): Answer | undefined {
  const { table, origin } = decision;
  if (origin === undefined || table.byMethod === undefined) return undefined;
  for (const other of new Set(table.byMethod.values())) {
    if (other === table) continue;
    const allowOrigin = allowOriginOf(other.policy.origin, origin, request);
    if (allowOrigin === undefined) continue;
    const headers = table.preflightRefused.slice();
    // The answer now depends on the origin, whatever the refusing policy's own Vary said.
    const vary = headers.indexOf('Vary');
    if (vary === -1) headers.push('Vary', 'Origin');
    else if (!headers[vary + 1]!.split(', ').includes('Origin')) headers[vary + 1] = `Origin, ${headers[vary + 1]}`;
    headers.push('Access-Control-Allow-Origin', allowOrigin);
    if (other.policy.allowCredentials) headers.push('Access-Control-Allow-Credentials', 'true');
    return { status: table.preflightRefusal.status, headers };
  }
  return undefined;
}

/** The `Access-Control-Allow-Origin` a policy gives `origin`, decided without asking the application; `undefined` when it gives none. */
function allowOriginOf<Req>(matcher: OriginMatcher, origin: string, request: Req): string | undefined {
  switch (matcher.kind) {
    case 'any':
      return '*';
    case 'fixed':
      // Only to that origin: a stranger learns nothing it is not told already.
      return matcher.origin === origin ? origin : undefined;
    case 'none':
      return undefined;
    case 'dynamic':
      return matcher.asksApplication !== true && matcher.allows(origin, request) === true ? origin : undefined;
  }
}
