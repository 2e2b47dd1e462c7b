/** The node:http middleware on a core: looks the path up, has the request decided once, writes the answer. Shared by the standalone entry, CorsModule and the fastify plugin. */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

import { answerOf } from '../core/answer.js';
import type { CorsCore } from '../core/cors-core.js';
import { decide, type Decision } from '../core/decision.js';
import type { PathTable } from '../core/path-table.js';
import { logRefusal } from '../diagnostics/refusals.js';
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
    const table = core.lookup(req.url ?? '/');
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
  const decided = decide(table, request.method, request, readNodeHeader);
  if (!(decided instanceof Promise)) {
    if (write(core, decided, request, res)) next();
    return;
  }
  void decided.then((decision) => {
    let goOn: boolean;
    try {
      goOn = write(core, decision, request, res);
    } catch (error) {
      // Only a response already closed under us can throw here; never leave the client hanging.
      core.logger.error(`${core.source}: answering ${request.method} ${request.url} failed: ${String(error)}`);
      if (!res.headersSent) endEmpty(res, 500);
      return;
    }
    // Outside the try: the application's own errors are not ours to swallow, they surface as
    // they would from a synchronous call.
    if (goOn) next();
  });
}

function write(core: CorsCore, decision: Decision, request: NodeLikeRequest, res: ServerResponse): boolean {
  const answer = answerOf(decision, request, readNodeHeader);
  const goOn = writeAnswer(res, answer);
  if (core.debug) logRefusal(core, decision, answer, request);
  return goOn;
}

/** Reads a header of an IncomingMessage (node joins repeated headers but Set-Cookie into one string). */
function readNodeHeader(request: { readonly headers: Readonly<Record<string, string | string[] | undefined>> }, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' || value === undefined ? value : value.join(', ');
}
