import type { IncomingMessage, ServerResponse } from 'node:http';

import vary from 'vary';

import { isReflectableHeaderList } from './http-grammar.js';
import type { PathTable } from './path-table.js';

/*
 * The writers of DESIGN section 3. Hot path -- change with care: they only copy precomputed
 * values from the path table; the request contributes nothing but the already-validated
 * origin and, on preflights, a request-header list checked by isReflectableHeaderList.
 */

/** Rule A, on every response of a covered path. */
export function setAlwaysOnHeaders(table: PathTable, res: ServerResponse): void {
  if (table.constantAllowOrigin !== undefined) res.setHeader('Access-Control-Allow-Origin', table.constantAllowOrigin);
  else if (table.varyOnOrigin) appendVary(res, 'Origin');
}

/** Rule B, for a CORS request whose origin the policy allows (rule A already applied). */
export function setActualHeaders(table: PathTable, res: ServerResponse, origin: string): void {
  if (table.varyOnOrigin) res.setHeader('Access-Control-Allow-Origin', origin);
  setPairs(res, table.actualHeaders);
}

/** Rule C. `origin` is the request's origin when the policy allows it, `undefined` when not. */
export function setPreflightHeaders(table: PathTable, req: IncomingMessage, res: ServerResponse, origin: string | undefined): void {
  if (table.preflightVary !== undefined) appendVary(res, table.preflightVary);
  if (table.constantAllowOrigin !== undefined) res.setHeader('Access-Control-Allow-Origin', table.constantAllowOrigin);
  if (origin === undefined) return;
  if (table.varyOnOrigin) res.setHeader('Access-Control-Allow-Origin', origin);
  setPairs(res, table.preflightHeaders);
  const policy = table.policy;
  if (policy.reflectRequestHeaders) {
    const requested = req.headers['access-control-request-headers'];
    if (requested !== undefined && requested !== '' && isReflectableHeaderList(requested)) {
      res.setHeader('Access-Control-Allow-Headers', requested);
    }
  }
  if (policy.allowPrivateNetwork && req.headers['access-control-request-private-network'] === 'true') {
    res.setHeader('Access-Control-Allow-Private-Network', 'true');
  }
}

/**
 * Ends an answer the engine gives itself (preflight, plain OPTIONS). `Content-Length: 0` is
 * explicit even on 204: some clients (older Safari among them) otherwise wait for a body.
 */
export function endEmpty(res: ServerResponse, status: number): void {
  res.statusCode = status;
  res.setHeader('Content-Length', '0');
  res.end();
}

/** Adds to `Vary`, never replacing what a handler or an earlier middleware set. */
function appendVary(res: ServerResponse, field: string): void {
  if (res.getHeader('Vary') === undefined) res.setHeader('Vary', field);
  else vary(res, field);
}

function setPairs(res: ServerResponse, pairs: readonly string[]): void {
  for (let i = 0; i < pairs.length; i += 2) res.setHeader(pairs[i]!, pairs[i + 1]!);
}
