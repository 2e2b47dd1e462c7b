/** Turns a decision into the answer's status and header pairs, which every entry point writes as they are. */
import type { Decision, HeaderReader } from './decision.js';
import { grantedPreflight } from './path-table.js';

/**
 * What the engine sends for one request, in no framework's terms. The entry points write it
 * (entry/node-writer.ts, entry/fetch.ts) and explain() reports it, so all three say the same.
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

/** The answer of rows 1 to 5 (docs/CONTRACT.md, section 3) for `decision`; `request` is read for a preflight's own headers only. */
export function answerOf<Req>(decision: Decision, request: Req, read: HeaderReader<Req>): Answer {
  const { table, allowedOrigin } = decision;
  switch (decision.kind) {
    case 'preflight': {
      // Rule C; handed on with the grant set under preflightContinue.
      const headers =
        allowedOrigin === undefined
          ? table.preflightRefused
          : grantedPreflight(
              table,
              allowedOrigin,
              read(request, 'access-control-request-headers'),
              read(request, 'access-control-request-private-network') === 'true',
            );
      return { status: table.policy.preflightContinue ? undefined : table.policy.optionsSuccessStatus, headers };
    }
    case 'options':
      // Rows 1 and 2: the application's own OPTIONS route answers, with rule A and B set.
      return table.explicitOptions
        ? { status: undefined, headers: withGrant(decision, table.actualAnswer) }
        : { status: 204, headers: withGrant(decision, table.optionsAnswer) };
    case 'actual':
      // Rows 3 and 5: set before the application runs, so its own errors carry them too.
      return { status: undefined, headers: withGrant(decision, table.actualAnswer) };
  }
}

/** Rule B's request-dependent part, after `constant`: the echoed origin and the grant, for a dynamic policy that allows it. */
function withGrant(decision: Decision, constant: readonly string[]): readonly string[] {
  const { table, allowedOrigin } = decision;
  if (allowedOrigin === undefined || !table.varyOnOrigin) return constant;
  const headers = constant.slice();
  headers.push('Access-Control-Allow-Origin', allowedOrigin);
  for (const value of table.grant) headers.push(value);
  return headers;
}
