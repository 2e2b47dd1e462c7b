/** CorsService: a controller's handle on the current request's CORS answer (cookies, explain). */
import { inject, injectable, optional } from '@lib/core';
import { RequestContext } from '@lib/rest';

import { CorsUsageError } from '../core/errors.js';
import type { CorsLogger, CorsOptions } from '../core/options.js';
import type { ExplainOptions, ExplainRequest, Explanation } from '../diagnostics/explain.js';
import { setCorsCookie, type CookieOptions } from '../entry/credentials.js';
import { ApplicationCors } from './application-cors.js';
import { CORS_LOGGER } from './tokens.js';

/**
 * Puts cookies on the current response so that browsers accept them on CORS requests
 * (rule D). One per request: inject it into a controller's constructor with RequestContext.
 */
@injectable()
export class CorsService {
  constructor(
    private readonly ctx: RequestContext,
    private readonly application: ApplicationCors,
    @optional() @inject(CORS_LOGGER) private readonly logger?: CorsLogger,
  ) {}

  /**
   * The engine's explain() for `request` (by default the current one): what the application's
   * CORS answer is, the browser's verdict, and the option to change. Sends nothing.
   */
  explain(request: ExplainRequest = this.ctx.rawReq, options?: ExplainOptions): Promise<Explanation> {
    const core = this.application.core;
    if (core === undefined) {
      throw new CorsUsageError('CORS_NO_ENGINE', 'CorsService.explain(): no module importing CorsModule has routes, so there is no engine to ask.');
    }
    // Loaded at the first call, as the standalone engine's explain() loads it.
    const { explainRequest } = require('../diagnostics/explain.js') as typeof import('../diagnostics/explain.js');
    return explainRequest(core, request, options);
  }

  /**
   * Replaces the `withOpts()` options of the module whose route serves the current request (the
   * module of this controller); every other module that imports CorsModule keeps its own, and
   * route-level options keep merging over them. Validated in full first (the routes' merged
   * options too): on any error it throws and nothing changes. Requests are answered wholly under
   * the old options or wholly under the new.
   */
  reconfigure(options: CorsOptions): void {
    this.application.reconfigure(options, this.ctx.rawReq);
  }

  /**
   * The options in force for this controller's module, normalised: those reconfigure() gave it
   * last, else its `withOpts()` options. allowCredentials is left out where they leave it unset
   * (rule D decides it then), so that `reconfigure(options())` changes nothing.
   */
  options(): CorsOptions {
    return this.application.options(this.ctx.rawReq);
  }

  /** Debug mode on or off for the whole application while it serves (docs/diagnostics.md). */
  setDebug(on: boolean): void {
    this.application.core?.setDebug(on);
  }

  /**
   * Appends `Set-Cookie` (default attributes `Path=/; HttpOnly`) and
   * `Access-Control-Allow-Credentials: true`; under an origin-listing policy the response keeps
   * the exact request origin with `Vary: Origin`, under `'*'` it stays `'*'` (with one warning).
   * Throws on an invalid name or value, writing nothing.
   */
  setCookie(name: string, value: string, options?: CookieOptions): void {
    setCorsCookie(this.ctx.rawReq, this.ctx.rawRes, name, value, options, this.logger);
  }
}
