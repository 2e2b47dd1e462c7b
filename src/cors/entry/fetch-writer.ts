/** Decides a Web-standard Request on its path's table and writes the answer as a Response (the fetch adapter, hono); decides nothing itself. */
import { answerOf, type Answer } from '../core/answer.js';
import type { CorsCore } from '../core/cors-core.js';
import { decide } from '../core/decision.js';
import type { PathTable } from '../core/path-table.js';
import { decisionsObserved, observeDecision } from '../diagnostics/channels.js';

/** The answer for `request` on `table`; a promise only for an async origin function, asked once. */
export function answerFetchRequest(core: CorsCore, table: PathTable, request: Request): Answer | Promise<Answer> {
  const decided = decide(table, request.method, request, readFetchHeader);
  if (!(decided instanceof Promise)) return answerOfDecided(core, decided, request);
  return decided.then((decision) => answerOfDecided(core, decision, request));
}

function answerOfDecided(core: CorsCore, decision: Awaited<ReturnType<typeof decide>>, request: Request): Answer {
  const answer = answerOf(decision, request, readFetchHeader, core.debug);
  if (decisionsObserved(core)) {
    observeDecision(core, decision, answer, request, { method: request.method, url: pathAndQuery(request.url), headers: Object.fromEntries(request.headers) });
  }
  return answer;
}

export function readFetchHeader(request: Request, name: string): string | null {
  return request.headers.get(name);
}

/**
 * An answer the engine gives itself, empty body (Content-Length left to the runtime, which counts
 * it). Its headers are a plain record, not a Headers: a Response takes either, and a server that
 * writes a Response to node:http (@hono/node-server) passes a record on as it is, where it would
 * copy a Headers into one. Nothing was set before, so there is no `Vary` to merge with, and an
 * answer lists each name once (its `Vary` fields in one pair).
 */
export function emptyAnswer(answer: Answer): Response {
  const headers: Record<string, string> = {};
  const list = answer.headers;
  for (let i = 0; i < list.length; i += 2) if (list[i] !== 'Content-Length') headers[list[i]!] = list[i + 1]!;
  return new Response(null, { status: answer.status, headers });
}

/** The application's Response with the answer's headers: written onto it, or onto a copy when its headers are immutable. */
export function withAnswer(response: Response, answer: Answer): Response {
  try {
    writeGrant(response.headers, answer.headers);
    return response;
  } catch (error) {
    // An immutable Headers guard throws a TypeError on its first change, before anything is written.
    if (!(error instanceof TypeError)) throw error;
  }
  const copy = new Response(response.body, response);
  writeGrant(copy.headers, answer.headers);
  return copy;
}

/**
 * The answer's pairs in place of any grant already there: an application may return one Response
 * object from several requests, which must not keep an earlier request's grant.
 */
function writeGrant(headers: Headers, list: readonly string[]): void {
  for (const name of GRANT_HEADERS) headers.delete(name);
  writePairs(headers, list);
}

const GRANT_HEADERS = ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-expose-headers'];

/** The pairs onto `headers`: `Vary` added to, never replacing what the application set. */
function writePairs(headers: Headers, list: readonly string[]): void {
  for (let i = 0; i < list.length; i += 2) {
    const name = list[i]!;
    const value = list[i + 1]!;
    if (name === 'Content-Length') continue;
    if (name !== 'Vary') {
      headers.set(name, value);
      continue;
    }
    const present = (headers.get('vary') ?? '').split(',').map((field) => field.trim().toLowerCase());
    if (present.includes('*')) continue;
    for (const field of value.split(', ')) if (!present.includes(field.toLowerCase())) headers.append('Vary', field);
  }
}

/** `/path?query` of an absolute request URL, as the route tree matches it. */
export function pathAndQuery(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  return start === -1 ? '/' : url.slice(start);
}
