/**
 * The decisions on `lib-cors:decision` (core/channels.ts holds the channels): each judged as a
 * browser would, and logged in debug mode, only when someone looks.
 */
import type { Answer } from '../core/answer.js';
import type { CorsCore } from '../core/cors-core.js';
import type { Decision, RequestKind } from '../core/decision.js';
import { decisionChannel } from '../core/channels.js';
import type { ReasonCode } from './browser-checks.js';
import type { ExplainRequest } from './explain.js';
import type * as ObservedDecision from './observed-decision.js';

// A require() where a decision is first observed, not an import: explain() and the browser checks
// are a seventh of the engine's code, and most processes never look at a decision.
let observed: typeof ObservedDecision | undefined;

/** A message of `lib-cors:decision`: one per CORS request the engine decided, with the browser's verdict on its answer. */
export interface CorsDecisionMessage {
  /** The engine that decided, as named in its errors: `createCors() of @lib/cors/express`, `CorsModule`, ... */
  readonly source: string;
  readonly kind: RequestKind;
  /** The method whose policy decided: the request's own, or the one a preflight asks for. */
  readonly method: string;
  /** The route pattern as registered (`/users/:id`), or `*` when every path is covered. */
  readonly route: string;
  /** The request's `Origin`; `undefined` when it sent none (not a CORS request). */
  readonly origin: string | undefined;
  /** What a browser does with the answer (credentials not sent): read it, refuse it, or no CORS check at all. */
  readonly verdict: 'allowed' | 'refused' | 'not-cors';
  /** The reason, as explain() and cors-check name it (docs/errors.md has a section for each). */
  readonly reason: ReasonCode;
  /** The status the engine answered with itself; `undefined` when the application answers. */
  readonly status: number | undefined;
  /** The request as the entry point hands it to an origin function (IncomingMessage, Request, a framework's own). */
  readonly request: unknown;
}

/**
 * Whether a decision is looked at (debug logging, or a subscriber): the writers ask this once per
 * request, so nothing is built when nobody looks.
 */
export function decisionsObserved(core: CorsCore): boolean {
  return core.debug || decisionChannel.hasSubscribers;
}

/**
 * Logs (debug) and publishes (subscribers) a decision and its answer; `described` is the request as
 * explain() reads it. The judging is loaded at the first call (observed-decision.ts).
 */
export function observeDecision(core: CorsCore, decision: Decision, sent: Answer, request: unknown, described: ExplainRequest): void {
  observed ??= require('./observed-decision.js') as typeof ObservedDecision;
  observed.logAndPublish(core, decision, sent, request, described);
}
