/**
 * A decision someone looks at (debug mode, a subscriber on `lib-cors:decision`), judged as a
 * browser would: loaded by channels.ts at the first such decision, with explain() and the browser
 * checks it needs, so that an engine nobody watches never loads them.
 */
import type { Answer } from '../core/answer.js';
import { type CorsDecisionMessage, decisionChannel } from '../core/channels.js';
import type { CorsCore } from '../core/cors-core.js';
import type { Decision } from '../core/decision.js';
import { explainDecision, type ExplainRequest } from './explain.js';
import { logRefusal } from './refusals.js';

/** Logs (debug) and publishes (subscribers) a decision and its answer; `described` is the request as explain() reads it. */
export function logAndPublish(core: CorsCore, decision: Decision, sent: Answer, request: unknown, described: ExplainRequest): void {
  // A refused preflight is judged as the policy refused it, not by the headers debug mode added to
  // name the failed check to the browser.
  const answer = decision.kind === 'preflight' && decision.allowedOrigin === undefined ? decision.table.preflightRefusal : sent;
  if (core.debug) logRefusal(core, decision, answer, described);
  if (!decisionChannel.hasSubscribers) return;
  const explanation = explainDecision(decision, answer, described);
  const message: CorsDecisionMessage = {
    source: core.source,
    kind: decision.kind,
    method: decision.method,
    route: decision.table.route,
    origin: decision.origin,
    verdict: decision.origin === undefined ? 'not-cors' : explanation.allowed ? 'allowed' : 'refused',
    reason: explanation.reason,
    status: sent.status,
    request,
  };
  decisionChannel.publish(message);
}
