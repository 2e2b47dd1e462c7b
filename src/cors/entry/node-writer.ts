/** Writes an answer (core/answer.ts) onto a node:http ServerResponse; decides nothing. */
import type { ServerResponse } from 'node:http';

import vary from 'vary';

import type { Answer } from '../core/answer.js';

/**
 * Hot path -- change with care. An answer the engine gives itself goes out in one writeHead() of
 * its pairs when nothing has touched the response (the usual case, and the faster one); else the
 * same pairs are set one by one onto what is there (test/cors/writers.test.ts proves the two
 * agree). Returns `true` when the application answers next, the headers set.
 */
export function writeAnswer(res: ServerResponse, answer: Answer): boolean {
  const status = answer.status;
  if (status === undefined) {
    setPairs(res, answer.headers);
    return true;
  }
  if (res.getHeaderNames().length === 0) {
    res.writeHead(status, answer.headers as string[]);
    res.end();
    return false;
  }
  setPairs(res, answer.headers);
  endEmpty(res, status);
  return false;
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
