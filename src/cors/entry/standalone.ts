/**
 * `@lib/cors/standalone`: the CORS engine as a `(req, res, next)` middleware for `node:http`
 * and Connect-style servers. Loads nothing of the dependency-injection host.
 */
import type { IncomingMessage } from 'node:http';

import { CorsCore, routeLabel, type CoreSettings, type CorsControls } from '../core/cors-core.js';
import type { CorsOptions } from '../core/options.js';
import type { FindMyWayRouter } from '../core/route-tree.js';
import type { ExplainOptions, ExplainRequest, Explanation } from '../diagnostics/explain.js';
import { nodeMiddleware, type NodeMiddleware } from './node.js';

export type { ReasonCode } from '../diagnostics/browser-checks.js';
export { setCorsCookie, type CookieOptions } from './credentials.js';
export * from './common-exports.js';
export type { PathMatching } from '../core/path-matching.js';
export type { FindMyWayRouter, MirrorableRouter } from '../core/route-tree.js';
export type { Next } from './node.js';

export type CorsEngineSettings = CoreSettings;

/**
 * The node middleware: `handle` answers preflights and plain OPTIONS of the covered paths itself
 * and sets the CORS headers of every other request before handing it on (docs/CONTRACT.md).
 * An origin function is given the IncomingMessage.
 */
export class CorsEngine implements CorsControls<CorsOptions<IncomingMessage>> {
  readonly #core: CorsCore;

  constructor(options: CorsOptions<IncomingMessage> = {}, settings: CorsEngineSettings = {}) {
    this.#core = new CorsCore(options, settings);
    this.handle = nodeMiddleware(this.#core);
  }

  /** The middleware. A property, already bound, so it can be passed around as it is. */
  readonly handle: NodeMiddleware;

  /**
   * Covers `path` for `methods`, with `options` merged field by field over the engine's own.
   * Validates at once: bad options throw here, at start-up.
   */
  route(methods: string | readonly string[], path: string, options?: CorsOptions<IncomingMessage>): this {
    const list = typeof methods === 'string' ? [methods] : methods;
    this.#core.route(list, path, options, routeLabel);
    return this;
  }

  /**
   * Covers every route a find-my-way router has now (call it once the application's routes
   * are registered), matching paths with that router's own settings.
   */
  mirror(router: FindMyWayRouter, options?: CorsOptions<IncomingMessage>): this {
    this.#core.mirror(router, options);
    return this;
  }

  /** {@inheritDoc CorsControls.reconfigure} */
  reconfigure(options: CorsOptions<IncomingMessage>): this {
    this.#core.reconfigure(options);
    return this;
  }

  /** {@inheritDoc CorsControls.options} */
  options(): CorsOptions<IncomingMessage> {
    return this.#core.options() as CorsOptions<IncomingMessage>;
  }

  /** {@inheritDoc CorsControls.setDebug} */
  setDebug(on: boolean): this {
    this.#core.setDebug(on);
    return this;
  }

  /**
   * What the engine sends for `request`, and the browser's verdict on it, with the option to
   * change when it refuses. Sends nothing and changes nothing (an async origin function is
   * asked, as a real request would ask it). Like a request, it seals the routes.
   */
  explain(request: ExplainRequest, options?: ExplainOptions): Promise<Explanation> {
    // Loaded at the first call: explain() and the browser checks are not needed to serve.
    const { explainRequest } = require('../diagnostics/explain.js') as typeof import('../diagnostics/explain.js');
    return explainRequest(this.#core, request, options);
  }
}

/**
 * Validates `options` (throwing `CorsOptionsError` on a bad one) and returns the middleware.
 * Register routes with `route()` or `mirror()` before serving; with none, every path is covered.
 */
export function createCors(options?: CorsOptions<IncomingMessage>, settings?: CorsEngineSettings): CorsEngine {
  return new CorsEngine(options, settings);
}
