/**
 * The engine's two `node:diagnostics_channel` channels, for operators' own tools (OpenTelemetry,
 * pino, a metrics counter): `lib-cors:decision` carries each CORS decision (published by
 * diagnostics/observed-decision.ts, which judges it), `lib-cors:config` each configuration and
 * reconfiguration (published here, by the core). docs/operations.md documents both messages.
 *
 * The module is taken with `process.getBuiltinModule()`, never imported: `@lib/cors/fetch` imports
 * nothing from `node:` at top level, and gets the same channels in every runtime that has them
 * (Node 22.3+, Deno, Bun, workerd); elsewhere (Next.js's Edge runtime) nothing is published.
 */
import type { ReasonCode } from '../diagnostics/browser-checks.js';
import type { RequestKind } from './decision.js';
import { normalisedOptions, type AnyCorsOptions } from './options.js';

export const DECISION_CHANNEL = 'lib-cors:decision';
export const CONFIG_CHANNEL = 'lib-cors:config';

/** A message of `lib-cors:config`: the engine's options when it was built, and after each reconfigure(). */
export interface CorsConfigMessage {
  readonly source: string;
  readonly event: 'configure' | 'reconfigure';
  /** The engine's own options, normalised (as options() reads them back). */
  readonly options: AnyCorsOptions;
  /** Routes registered so far (none yet when the engine is built). */
  readonly routes: number;
}

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

interface Channel {
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
}

interface ChannelModule {
  channel(name: string): Channel;
}

const channels = builtinChannels();

function builtinChannels(): ChannelModule | undefined {
  try {
    return (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:diagnostics_channel') as
      | ChannelModule
      | undefined;
  } catch {
    // Next.js's Edge runtime throws on reading a Node.js API its `process` does not have.
    return undefined;
  }
}
/** Where the runtime has no channels: a channel nobody ever subscribes to. */
const SILENT: Channel = Object.freeze({ hasSubscribers: false, publish() {} });
export const decisionChannel = channels?.channel(DECISION_CHANNEL) ?? SILENT;
const configChannel = channels?.channel(CONFIG_CHANNEL) ?? SILENT;

/** Publishes a configuration of engine `source`, with `routes` registered so far, when someone subscribes. */
export function publishConfiguration(source: string, event: CorsConfigMessage['event'], options: AnyCorsOptions, routes: number): void {
  if (!configChannel.hasSubscribers) return;
  const message: CorsConfigMessage = { source, event, options: normalisedOptions(options), routes };
  configChannel.publish(message);
}
