/** Writes an answer (core/answer.ts) onto a node:http ServerResponse; decides nothing. */
import type { ServerResponse } from 'node:http';

import vary from 'vary';

import type { Answer } from '../core/answer.js';

/**
 * Hot path -- change with care. An answer the engine gives itself goes out in one writeHead() of
 * its pairs when nothing has touched the response (the usual case, and the faster one); else the
 * same pairs are set one by one onto what is there (test/cors/requests/writers.test.ts proves the two
 * agree). Returns `true` when the application answers next, the headers set. `oneWriteHead`
 * false: always by name, for a response whose writeHead() reads header lists otherwise than
 * node's does (Next.js's Pages API response takes them as [name, value] entries).
 */
export function writeAnswer(res: ServerResponse, answer: Answer, oneWriteHead = true): boolean {
  const status = answer.status;
  if (status === undefined) {
    setPairs(res, answer.headers);
    keepVary(res, answer.headers);
    return true;
  }
  if (oneWriteHead && res.getHeaderNames().length === 0) {
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

/** On a response the application answers, the `Vary` the engine set, kept by writeHeadKeepingVary(). */
const ENGINE_VARY = Symbol('@lib/cors Vary');
/** The writeHead() the response had before (node's own, or another middleware's wrapper), called after. */
const WRITE_HEAD = Symbol('@lib/cors writeHead');

type GuardedResponse = ServerResponse & { [ENGINE_VARY]?: string; [WRITE_HEAD]?: ServerResponse['writeHead'] };

/**
 * Where the answer depends on the request's headers (`Vary: Origin`), a cache must keep telling
 * answers apart whatever the application does to `Vary` later: a handler's setHeader('Vary',
 * 'Accept'), or a `Vary` given to writeHead(), would otherwise replace the engine's. Every way of
 * sending the headers goes through writeHead() (end() and write() call it), so that is where the
 * engine's fields are put back. The function is shared; a response only gets a property.
 */
function keepVary(res: GuardedResponse, pairs: readonly string[]): void {
  for (let i = 0; i < pairs.length; i += 2) {
    if (pairs[i] !== 'Vary') continue;
    res[ENGINE_VARY] = pairs[i + 1]!;
    if (res[WRITE_HEAD] !== undefined) return;
    res[WRITE_HEAD] = res.writeHead;
    res.writeHead = writeHeadKeepingVary as ServerResponse['writeHead'];
    return;
  }
}

function writeHeadKeepingVary(this: GuardedResponse, status: number, ...rest: unknown[]): ServerResponse {
  const fields = this[ENGINE_VARY]!;
  const headers = rest[rest.length - 1];
  if (Array.isArray(headers)) {
    keepInPairs(headers as unknown[], fields);
  } else if (headers !== null && typeof headers === 'object') {
    const name = Object.keys(headers).find((key) => key.toLowerCase() === 'vary');
    if (name !== undefined) (headers as Record<string, unknown>)[name] = withFields((headers as Record<string, unknown>)[name], fields);
  }
  const current = this.getHeader('Vary');
  if (current !== undefined) this.setHeader('Vary', withFields(current, fields));
  return (this[WRITE_HEAD] as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
}

/** writeHead()'s headers as an array: flat [name, value, ...] pairs, or [name, value] entries. */
function keepInPairs(headers: unknown[], fields: string): void {
  for (let i = 0; i < headers.length; i++) {
    const entry = headers[i];
    if (Array.isArray(entry)) {
      if (String(entry[0]).toLowerCase() === 'vary') entry[1] = withFields(entry[1], fields);
    } else if (i % 2 === 0 && String(entry).toLowerCase() === 'vary') {
      headers[i + 1] = withFields(headers[i + 1], fields);
    }
  }
}

/**
 * The application's `Vary` as it is where it already names the engine's fields (it was added to,
 * not replaced); else the engine's fields first, then the application's. A blank one adds nothing;
 * one that is no list of header names is left as the application wrote it.
 */
function withFields(value: unknown, fields: string): string {
  const own = (Array.isArray(value) ? value.join(', ') : String(value)).trim();
  if (own === '') return fields;
  try {
    return vary.append(own, fields) === own ? own : vary.append(fields, own);
  } catch {
    return String(value);
  }
}

/**
 * The headers of `answer` as an object (for fastify's `reply.headers()`), made once per answer
 * list: paths of one policy and method list share theirs, so there are a few, not one a route.
 */
export function headersObjectOf(answer: readonly string[]): Readonly<Record<string, string>> {
  // Most applications have one such list: the last one is kept at hand.
  if (answer === lastAnswer) return lastHeaders;
  let headers = headerObjects.get(answer);
  if (headers === undefined) {
    const made: Record<string, string> = {};
    for (let i = 0; i < answer.length; i += 2) made[answer[i]!] = answer[i + 1]!;
    headers = made;
    headerObjects.set(answer, headers);
  }
  lastAnswer = answer;
  lastHeaders = headers;
  return headers;
}

const headerObjects = new WeakMap<readonly string[], Readonly<Record<string, string>>>();
let lastAnswer: readonly string[] | undefined;
let lastHeaders: Readonly<Record<string, string>> = {};
