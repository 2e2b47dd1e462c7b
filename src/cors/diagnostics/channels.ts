/**
 * The decisions on `lib-cors:decision` (core/channels.ts holds the channels): each judged as a
 * browser would, and logged in debug mode, only when someone looks.
 */
import type { Answer } from '../core/answer.js';
import type { CorsCore } from '../core/cors-core.js';
import type { Decision } from '../core/decision.js';
import { decisionChannel } from '../core/channels.js';
import type { ExplainRequest } from './explain.js';
import type * as ObservedDecision from './observed-decision.js';

// A require() where a decision is first observed, not an import: explain() and the browser checks
// are a seventh of the engine's code, and most processes never look at a decision.
let observed: typeof ObservedDecision | undefined;

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
