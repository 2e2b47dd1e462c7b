/**
 * The engine's `node:diagnostics_channel` channels, for operators' own tools (OpenTelemetry, pino,
 * a metrics counter): `lib-cors:decision` carries each CORS decision, `lib-cors:config` each
 * configuration and reconfiguration. docs/diagnostics.md documents both messages.
 *
 * The module is taken with `process.getBuiltinModule()`, never imported: `@lib/cors/fetch` imports
 * nothing from `node:` at top level, and gets the same channels in every runtime that has them
 * (Node 22.3+, Deno, Bun); elsewhere nothing is published.
 */
import type { Answer } from '../core/answer.js';
import type { CorsCore } from '../core/cors-core.js';
import type { Decision, RequestKind } from '../core/decision.js';
import { normalisedOptions, type AnyCorsOptions } from '../core/options.js';
import type { ReasonCode } from './browser-checks.js';
import { explainDecision, type ExplainRequest } from './explain.js';
import { logRefusal } from './refusals.js';

export const DECISION_CHANNEL = 'lib-cors:decision';
export const CONFIG_CHANNEL = 'lib-cors:config';

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

/** A message of `lib-cors:config`: the engine's options when it was built, and after each reconfigure(). */
export interface CorsConfigMessage {
  readonly source: string;
  readonly event: 'configure' | 'reconfigure';
  /** The engine's own options, normalised (as options() reads them back). */
  readonly options: AnyCorsOptions;
  /** Routes registered so far (none yet when the engine is built). */
  readonly routes: number;
}

interface Channel {
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
}

interface ChannelModule {
  channel(name: string): Channel;
}

const channels = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:diagnostics_channel') as
  | ChannelModule
  | undefined;
/** Where the runtime has no channels: a channel nobody ever subscribes to. */
const SILENT: Channel = Object.freeze({ hasSubscribers: false, publish() {} });
const decisionChannel = channels?.channel(DECISION_CHANNEL) ?? SILENT;
const configChannel = channels?.channel(CONFIG_CHANNEL) ?? SILENT;

/**
 * Whether a decision is looked at (debug logging, or a subscriber): the writers ask this once per
 * request, so nothing is built when nobody looks.
 */
export function decisionsObserved(core: CorsCore): boolean {
  return core.debug || decisionChannel.hasSubscribers;
}

/** Logs (debug) and publishes (subscribers) a decision and its answer; `described` is the request as explain() reads it. */
export function observeDecision(core: CorsCore, decision: Decision, sent: Answer, request: unknown, described: ExplainRequest): void {
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

export function publishConfiguration(
  core: Pick<CorsCore, 'source'> & { readonly routeCount?: number },
  event: CorsConfigMessage['event'],
  options: AnyCorsOptions,
): void {
  if (!configChannel.hasSubscribers) return;
  const message: CorsConfigMessage = { source: core.source, event, options: normalisedOptions(options), routes: core.routeCount ?? 0 };
  configChannel.publish(message);
}
