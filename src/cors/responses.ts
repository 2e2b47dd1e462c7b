import type { IncomingMessage, ServerResponse } from 'node:http';

import vary from 'vary';

import { isReflectableHeaderList } from './http-grammar.js';
import type { PathTable } from './path-table.js';

/*
 * The writers of the request contract (docs/CONTRACT.md, section 3). Each answer is written
 * two ways: set header by header on a response that something else already touched, or in one
 * writeHead() of a prebuilt list when nothing has (the usual case, and the faster one);
 * test/cors/writers.test.ts proves the two agree. Hot path -- change with care: they only copy
 * precomputed values from the path table; the request contributes nothing but the
 * already-validated origin and, on preflights, a request-header list checked by
 * isReflectableHeaderList.
 */

/** Rule A, on every response of rows 1, 2, 3 and 5 of a covered path. */
export function setAlwaysOnHeaders(table: PathTable, res: ServerResponse): void {
  setPairs(res, table.alwaysOn);
  if (table.varyOnOrigin) appendVary(res, 'Origin');
}

/** Rule B for an allowed origin under an origin-dependent policy (rule A already applied). */
export function setActualHeaders(table: PathTable, res: ServerResponse, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  setPairs(res, table.actualHeaders);
}

/** Rule C. `origin` is the request's origin when the policy allows it, `undefined` when not. */
export function setPreflightHeaders(table: PathTable, req: IncomingMessage, res: ServerResponse, origin: string | undefined): void {
  if (table.preflightVary !== undefined) appendVary(res, table.preflightVary);
  if (table.constantAllowOrigin !== undefined) res.setHeader('Access-Control-Allow-Origin', table.constantAllowOrigin);
  if (origin === undefined) return;
  if (table.varyOnOrigin) res.setHeader('Access-Control-Allow-Origin', origin);
  setPairs(res, table.preflightHeaders);
  const requested = reflectedRequestHeaders(table, req);
  if (requested !== undefined) res.setHeader('Access-Control-Allow-Headers', requested);
  if (grantsPrivateNetwork(table, req)) res.setHeader('Access-Control-Allow-Private-Network', 'true');
}

/**
 * Rule C, whole, for a response nothing else has touched (the usual case): one writeHead() of
 * a list built at start-up, plus at most three request-dependent pairs.
 */
export function writePreflight(table: PathTable, req: IncomingMessage, res: ServerResponse, origin: string | undefined, status: number): void {
  if (origin === undefined) {
    res.writeHead(status, table.preflightRefused as string[]);
  } else {
    const headers = table.preflightGranted.slice();
    if (table.varyOnOrigin) headers.push('Access-Control-Allow-Origin', origin);
    const requested = reflectedRequestHeaders(table, req);
    if (requested !== undefined) headers.push('Access-Control-Allow-Headers', requested);
    if (grantsPrivateNetwork(table, req)) headers.push('Access-Control-Allow-Private-Network', 'true');
    res.writeHead(status, headers);
  }
  res.end();
}

/** Rows 1 and 2, whole, for a response nothing else has touched: one writeHead() of a list built at start-up. */
export function writeOptions(table: PathTable, res: ServerResponse, origin: string | undefined): void {
  // A constant policy's answer is already whole in optionsAnswer: the same for every origin.
  if (origin === undefined || !table.varyOnOrigin) {
    res.writeHead(204, table.optionsAnswer as string[]);
  } else {
    const headers = table.optionsAnswer.slice();
    headers.push('Access-Control-Allow-Origin', origin);
    for (const value of table.actualHeaders) headers.push(value);
    res.writeHead(204, headers);
  }
  res.end();
}

/** The request's header list, when the policy reflects it and it passes validation. */
function reflectedRequestHeaders(table: PathTable, req: IncomingMessage): string | undefined {
  if (!table.policy.reflectRequestHeaders) return undefined;
  const requested = req.headers['access-control-request-headers'];
  return requested !== undefined && requested !== '' && isReflectableHeaderList(requested) ? requested : undefined;
}

function grantsPrivateNetwork(table: PathTable, req: IncomingMessage): boolean {
  return table.policy.allowPrivateNetwork && req.headers['access-control-request-private-network'] === 'true';
}

/**
 * Ends an answer the engine gives itself (preflight, plain OPTIONS) with no body. RFC 9110 8.6:
 * a 204 never carries `Content-Length`; any other status says `Content-Length: 0`.
 */
export function endEmpty(res: ServerResponse, status: number): void {
  res.statusCode = status;
  if (status === 204) res.removeHeader('Content-Length');
  else res.setHeader('Content-Length', '0');
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
