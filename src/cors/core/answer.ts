/** Turns a decision into the answer's status and header pairs, which every entry point writes as they are. */
import type { Decision, HeaderReader } from './decision.js';
import { type Answer, grantedPreflight } from './path-table.js';

export type { Answer };

/** The answer of rows 1 to 5 (docs/CONTRACT.md, section 3) for `decision`; `request` is read for a preflight's own headers only. */
export function answerOf<Req>(decision: Decision, request: Req, read: HeaderReader<Req>): Answer {
  const { table, allowedOrigin } = decision;
  switch (decision.kind) {
    case 'preflight': {
      // Rule C; handed on with the grant set under preflightContinue.
      if (allowedOrigin === undefined) return table.preflightRefusal;
      const headers = grantedPreflight(
        table,
        allowedOrigin,
        read(request, 'access-control-request-headers'),
        read(request, 'access-control-request-private-network') === 'true',
      );
      return { status: table.preflightRefusal.status, headers };
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

/** `constant`, with rule B's request-dependent part after it (the echoed origin and the grant), for a dynamic policy that allows the origin. */
function withGrant(constant: Answer, allowedOrigin: string, table: Decision['table']): Answer {
  const headers = constant.headers.slice();
  headers.push('Access-Control-Allow-Origin', allowedOrigin);
  for (const value of table.grant) headers.push(value);
  return { status: constant.status, headers };
}
