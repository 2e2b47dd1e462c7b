/** The one CORS engine of a @lib/rest application, shared by every module that imports CorsModule. */
import { injectable } from '@lib/core';

import type { RouteInfo } from '@lib/rest';

import type { CorsCore, TableRef } from '../core/cors-core.js';
import { CorsUsageError } from '../core/errors.js';
import { mergeCorsOptions, normalisedOptions, type AnyCorsOptions, type CorsOptions } from '../core/options.js';
import type { PathTable } from '../core/path-table.js';

/**
 * The table an OPTIONS request on `url` is answered from, `table` found for its routing `method`
 * (optionsTableOnUrl()): the URL's own where routes of several paths, under several policies,
 * match it.
 */
export type TableOnUrl = (table: PathTable, method: string, url: string) => PathTable;

/**
 * The application's one engine (a providersPerApp singleton): every importing module's routes,
 * each with its own options, go into one engine, found through the host's router, so a request
 * costs one lookup whatever the number of modules that import CorsModule. `undefined` until a module with routes imports it.
 */
@injectable()
export class ApplicationCors {
  core: CorsCore | undefined;
  /** Every importing module's routes, each with its table: the engine finds them through the host's router. */
  readonly tables = new Map<RouteInfo, TableRef>();
  /** The methods of those routes, each once: a path is covered when a route of any of them matches it. */
  readonly methods: string[] = [];
  /** An OPTIONS request's table on its URL: made with the engine, for every module's routes. */
  tableOnUrl: TableOnUrl | undefined;
  /** The first importing module's `withOpts()` options: what options() reads back until a reconfigure(). */
  firstModuleOptions: AnyCorsOptions | undefined;
  /**
   * Set by reconfigure(): its options then stand in for every module's `withOpts()` options (the
   * engine's own options, under every route's), where until then each module had its own.
   */
  #reconfigured = false;
  /** Whether the options reconfigure() gave last set allowCredentials themselves (see options()). */
  #reconfiguredCredentials = false;

  /**
   * A route's whole options from its module's `withOpts()` options, or, once the application has
   * been reconfigured, from the engine's (`base`); its own layer merged over them, then `finish`
   * (CorsService's credentials, rule D). What the engine replays on each reconfigure().
   */
  routeOptions(moduleOptions: AnyCorsOptions, layer: AnyCorsOptions | undefined, finish: (options: AnyCorsOptions) => AnyCorsOptions) {
    // The last answer is kept: the routes that share this source (all those without options of
    // their own) are then given one options object, not a merged copy each.
    let last: { from: AnyCorsOptions; options: AnyCorsOptions } | undefined;
    return (base: AnyCorsOptions): AnyCorsOptions => {
      const from = this.#reconfigured ? base : moduleOptions;
      if (last?.from !== from) last = { from, options: finish(mergeCorsOptions(from, layer)) };
      return last.options;
    };
  }

  /** CorsService.reconfigure(): the new options in place of every module's `withOpts()` options; nothing changes if they fail. */
  reconfigure(options: CorsOptions): void {
    const core = this.#engine('reconfigure');
    const before = this.#reconfigured;
    this.#reconfigured = true;
    try {
      core.reconfigure(options as AnyCorsOptions);
    } catch (error) {
      this.#reconfigured = before;
      throw error;
    }
    this.#reconfiguredCredentials = (options as CorsOptions | undefined)?.allowCredentials !== undefined;
  }

  /**
   * CorsService.options(): those reconfigure() gave last, else the first module's `withOpts()`
   * options; normalised, but for allowCredentials, left out where those options leave it unset:
   * unset, it is rule D's (a path whose controller takes CorsService answers with credentials),
   * and read back as `false` it would switch rule D off when given back to reconfigure(), so
   * `reconfigure({ ...cors.options(), origin })` would drop the credentials of the login paths.
   */
  options(): CorsOptions {
    const core = this.#engine('options');
    const options = this.#reconfigured ? core.options() : normalisedOptions(this.firstModuleOptions ?? {});
    const credentialsSet = this.#reconfigured ? this.#reconfiguredCredentials : this.firstModuleOptions?.allowCredentials !== undefined;
    if (credentialsSet) return options as CorsOptions;
    const { allowCredentials: _unset, ...rest } = options;
    return Object.freeze(rest) as CorsOptions;
  }

  #engine(method: string): CorsCore {
    if (this.core === undefined) {
      throw new CorsUsageError('CORS_NO_ENGINE', `CorsService.${method}(): no module importing CorsModule has routes, so there is no engine to ask.`);
    }
    return this.core;
  }
}
