import type { IncomingMessage, ServerResponse } from 'node:http';

import vary from 'vary';

import { grantedPreflight, type PathTable } from './path-table.js';

/*
 * The writers of the request contract (docs/CONTRACT.md, section 3). The path table holds each
 * answer once; each writer derives from it in one of two ways: one writeHead() of the list when
 * nothing has touched the response (the usual case, and the faster one), or the same pairs set
 * one by one onto a response something else already touched (test/cors/writers.test.ts proves
 * the two agree). Hot path -- change with care: the request contributes nothing but the
 * already-validated origin and, on preflights, a request-header list checked by
 * isReflectableHeaderList.
 */

/** Rows 3 and 5: rule A, and for an allowed origin of a dynamic policy rule B; the handler runs next. */
export function setActualHeaders(table: PathTable, res: ServerResponse, allowedOrigin: string | undefined): void {
  setPairs(res, table.actualAnswer);
  if (allowedOrigin !== undefined && table.varyOnOrigin) {
    res.setHeader('Access-Control-Allow-Origin', allowedOrigin);
    setPairs(res, table.grant);
  }
}

/**
 * Rows 1 and 2. `allowedOrigin`: the request's origin when a dynamic policy allows it. Without
 * `answer` (an application OPTIONS route answers), only the CORS headers are set, no `Allow`.
 */
export function writeOptions(table: PathTable, res: ServerResponse, allowedOrigin: string | undefined, answer: boolean): void {
  const echo = allowedOrigin !== undefined && table.varyOnOrigin;
  if (answer && res.getHeaderNames().length === 0) {
    if (!echo) {
      res.writeHead(204, table.optionsAnswer as string[]);
    } else {
      const headers = table.optionsAnswer.slice();
      headers.push('Access-Control-Allow-Origin', allowedOrigin);
      for (const value of table.grant) headers.push(value);
      res.writeHead(204, headers);
    }
    res.end();
    return;
  }
  setPairs(res, answer ? table.optionsAnswer : table.actualAnswer);
  if (echo) {
    res.setHeader('Access-Control-Allow-Origin', allowedOrigin);
    setPairs(res, table.grant);
  }
  if (answer) endEmpty(res, 204);
}

/**
 * Row 4, rule C. `allowedOrigin` is the request's origin when the policy allows it (any origin
 * under a constant policy), `undefined` when not. Without `answer` (`preflightContinue`) the
 * headers are set and the response left to the application.
 */
export function writePreflight(table: PathTable, req: IncomingMessage, res: ServerResponse, allowedOrigin: string | undefined, answer: boolean): void {
  const status = table.policy.optionsSuccessStatus;
  const headers =
    allowedOrigin === undefined
      ? table.preflightRefused
      : grantedPreflight(table, allowedOrigin, req.headers['access-control-request-headers'], req.headers['access-control-request-private-network'] === 'true');
  if (answer && res.getHeaderNames().length === 0) {
    res.writeHead(status, headers as string[]);
    res.end();
    return;
  }
  setPairs(res, headers);
  if (answer) endEmpty(res, status);
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

/**
 * An answer's pairs onto a response something else may have touched: `Vary` is added to, never
 * replacing what a handler or an earlier middleware set; `Content-Length` is left to whoever
 * ends the response (endEmpty, or the application after preflightContinue).
 */
function setPairs(res: ServerResponse, pairs: readonly string[]): void {
  for (let i = 0; i < pairs.length; i += 2) {
    const name = pairs[i]!;
    const value = pairs[i + 1]!;
    if (name === 'Vary') {
      if (res.getHeader('Vary') === undefined) res.setHeader('Vary', value);
      else vary(res, value);
    } else if (name !== 'Content-Length') {
      res.setHeader(name, value);
    }
  }
}
