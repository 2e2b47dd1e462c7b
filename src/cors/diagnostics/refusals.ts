/** Debug mode: one bounded log line for each CORS request a browser refuses, judged from the decision the request got. */
import type { Answer } from '../core/answer.js';
import type { CorsCore } from '../core/cors-core.js';
import type { Decision } from '../core/decision.js';
import { explainDecision, type ExplainRequest } from './explain.js';

/** Logs `decision` if a browser refuses its answer; nothing is asked again (no origin function, no second pass). */
export function logRefusal(core: CorsCore, decision: Decision, answer: Answer, request: ExplainRequest): void {
  if (decision.origin === undefined) return;
  const explanation = explainDecision(decision, answer, request);
  if (explanation.allowed) return;
  core.refusals.line(
    `CORS refused [${explanation.reason}] ${request.method} ${request.url} from ${decision.origin}: ${explanation.message} See ${explanation.docs}`,
    'refused requests',
  );
}
