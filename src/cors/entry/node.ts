/** The node:http middleware on a core: looks the path up, has the request decided once, writes the answer. Shared by the standalone entry, CorsModule and the fastify plugin. */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

import { answerOf, optionsAnswerUndecided } from '../core/answer.js';
import type { CorsCore } from '../core/cors-core.js';
import { decide, type Decision, routingMethod, tableOfMethod } from '../core/decision.js';
import type { PathTable } from '../core/path-table.js';
import { decisionsObserved, observeDecision } from '../diagnostics/channels.js';
import { endEmpty, writeAnswer } from './node-writer.js';

export type Next = (error?: unknown) => void;

export type NodeMiddleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

/** A request as node hands it over, or a framework's wrapper of it with the same `headers` (a FastifyRequest). */
export interface NodeLikeRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

/** The middleware: off the covered paths it calls `next()` and touches nothing. */
export function nodeMiddleware(core: CorsCore): NodeMiddleware {
  return function corsMiddleware(req, res, next) {
    const table = core.lookup(req.url ?? '/', routingMethod(req.method, req, readNodeHeader));
    if (table === undefined) return next();
    respond(core, table, req, res, next);
  };
}

/**
 * Decides `request` on `table` and writes the answer onto `res`; calls `next()` when the
 * application answers. `request` is what an origin function is given. Synchronous for every
 * policy but an async origin function.
 */
export function respond(core: CorsCore, table: PathTable, request: NodeLikeRequest, res: ServerResponse, next: Next): void {
  const goOn = answerRequest(core, table, request, res);
  if (goOn === true) return next();
  if (goOn === false) return;
  void goOn.then(
    // Not under the catch below: the application's own errors are not ours to swallow, they
    // surface as they would from a synchronous call.
    (go) => (go ? next() : undefined),
    (error: unknown) => {
      // Only a response already closed under us can throw here; never leave the client hanging.
      core.logger.error(`${core.source}: answering ${request.method} ${request.url} failed: ${String(error)}`);
      if (!res.headersSent) endEmpty(res, 500);
    },
  );
}

/**
 * Decides `request` on `table` and writes the answer onto `res`: `true` when the application
 * answers next, with the headers set; `false` when the engine has answered. A promise only for
 * an async origin function. `oneWriteHead`: as writeAnswer() takes it.
 */
export function answerRequest(
  core: CorsCore,
  table: PathTable,
  request: NodeLikeRequest,
  res: ServerResponse,
  oneWriteHead = true,
): boolean | Promise<boolean> {
  const method = request.method;
  // Without building the decision nobody reads, where no origin needs judging (as decide() and
  // answerOf() answer): a request with no Origin (row 5: the method's constant answer), and an
  // OPTIONS request optionsAnswerUndecided() answers.
  if (method !== 'OPTIONS') {
    if (request.headers.origin === undefined && !decisionsObserved(core)) return writeAnswer(res, tableOfMethod(table, method ?? 'GET').actual, oneWriteHead);
  } else if (!decisionsObserved(core)) {
    const answer = optionsAnswerUndecided(table, request.headers, readHeaderField);
    if (answer !== undefined) return writeAnswer(res, answer, oneWriteHead);
  }
  const decided = decide(table, request.method, request, readNodeHeader);
  if (!(decided instanceof Promise)) return write(core, decided, request, res, oneWriteHead);
  return decided.then((decision) => write(core, decision, request, res, oneWriteHead));
}

function write(core: CorsCore, decision: Decision, request: NodeLikeRequest, res: ServerResponse, oneWriteHead: boolean): boolean {
  const answer = answerOf(decision, request, readNodeHeader, core.debug);
  const goOn = writeAnswer(res, answer, oneWriteHead);
  if (decisionsObserved(core)) observeDecision(core, decision, answer, request, request);
  return goOn;
}

/** Reads a header of an IncomingMessage (node joins repeated headers but Set-Cookie into one string). */
export function readNodeHeader(request: { readonly headers: IncomingHeaders }, name: string): string | undefined {
  return readHeaderField(request.headers, name);
}

type IncomingHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Reads a header from an IncomingMessage's `headers`.
 * Hot path: each header the engine reads has its own property access, so V8 keeps each one a fast
 * named load; one `headers[name]` for every name turns megamorphic and costs a generic lookup per
 * read (bench/RESULTS.md counts it).
 */
function readHeaderField(headers: IncomingHeaders, name: string): string | undefined {
  let value: string | string[] | undefined;
  switch (name) {
    case 'origin':
      value = headers.origin;
      break;
    case 'access-control-request-method':
      value = headers['access-control-request-method'];
      break;
    case 'access-control-request-headers':
      value = headers['access-control-request-headers'];
      break;
    case 'access-control-request-private-network':
      value = headers['access-control-request-private-network'];
      break;
    default:
      value = headers[name];
  }
  return typeof value === 'string' || value === undefined ? value : value.join(', ');
}
