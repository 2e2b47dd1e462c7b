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

/**
 * The `Vary` to send where a handler may have replaced the engine's (a framework's documented step
 * before sending: Koa's after its middleware, fastify's onSend): the handler's `own` as it is
 * where it already names the engine's fields, else the engine's fields first, then its own. A
 * blank one adds nothing; one that is no list of header names is left as the handler wrote it.
 * Where no framework offers such a step (Express, node:http) the engine adds to `Vary` and never
 * wraps the response's methods: a handler that replaces `Vary` replaces it (docs/CONTRACT.md).
 */
export function varyKeepingEngine(own: unknown, engine: unknown): string {
  const fields = String(engine);
  const value = own ?? '';
  const text = (Array.isArray(value) ? value.join(', ') : String(value)).trim();
  if (text === '') return fields;
  try {
    return vary.append(text, fields) === text ? text : vary.append(fields, text);
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
