/** The one CORS engine of a @lib/rest application, shared by every module that imports CorsModule. */
import { injectable } from '@lib/core';

import type { RouteInfo } from '@lib/rest';

import type { IncomingMessage } from 'node:http';

import type { CorsCore, TableRef } from '../core/cors-core.js';
import { CorsUsageError } from '../core/errors.js';
import { mergeCorsOptions, normalisedOptions, type AnyCorsOptions, type CorsOptions } from '../core/options.js';
import type { PathTable } from '../core/path-table.js';
import { checkOptionsObject } from '../core/policy.js';

/**
 * The table an OPTIONS request on `url` is answered from, `table` found for its routing `method`
 * (optionsTableOnUrl()): the URL's own where routes of several paths, under several policies,
 * match it.
 */
export type TableOnUrl = (table: PathTable, method: string, url: string) => PathTable;

/** One module importing CorsModule: the options its routes merge over, which reconfigure() replaces for it alone. */
export interface ModuleCors {
  /** Its `withOpts()` options, checked and copied, or those reconfigure() gave it last. */
  options: AnyCorsOptions;
}

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
  /** The module each of those routes belongs to: CorsService's options() and reconfigure() are its. */
  readonly modules = new Map<RouteInfo, ModuleCors>();
  /** The methods of those routes, each once: a path is covered when a route of any of them matches it. */
  readonly methods: string[] = [];
  /** An OPTIONS request's table on its URL: made with the engine, for every module's routes. */
  tableOnUrl: TableOnUrl | undefined;
  /** The host's router (RestInitContext.matchRoute()): the route, and so the module, of a request. */
  matchRoute: ((method: string, url: string) => RouteInfo | undefined) | undefined;

  /**
   * A route's whole options: its module's options, its own layer merged over them, then `finish`
   * (CorsService's credentials, rule D). What the engine replays on each reconfigure(), reading
   * the module's options as they are then.
   */
  routeOptions(module: ModuleCors, layer: AnyCorsOptions | undefined, finish: (options: AnyCorsOptions) => AnyCorsOptions) {
    // The last answer is kept: the routes that share this source (all those without options of
    // their own) are then given one options object, not a merged copy each.
    let last: { from: AnyCorsOptions; options: AnyCorsOptions } | undefined;
    return (): AnyCorsOptions => {
      const from = module.options;
      if (last?.from !== from) last = { from, options: finish(mergeCorsOptions(from, layer)) };
      return last.options;
    };
  }

  /**
   * CorsService.reconfigure(): `options` in place of the `withOpts()` options of the module whose
   * route serves `req`; the other modules keep theirs. Nothing changes if they fail.
   */
  reconfigure(options: CorsOptions, req: IncomingMessage): void {
    const core = this.#engine('reconfigure');
    const module = this.#moduleOf(req, 'reconfigure');
    // No default here: a config service answering nothing must not open the module to every origin.
    checkOptionsObject(options, 'CorsService.reconfigure()');
    const before = module.options;
    module.options = mergeCorsOptions({}, options as AnyCorsOptions);
    try {
      // Every route's options are built again from their modules' as they now are, and checked.
      core.reconfigure(core.options());
    } catch (error) {
      module.options = before;
      throw error;
    }
  }

  /**
   * CorsService.options(): the options of the module whose route serves `req` (its `withOpts()`
   * ones, or what reconfigure() gave it last); normalised, but for allowCredentials, left out
   * where those options leave it unset: unset, it is rule D's (a path whose controller takes
   * CorsService answers with credentials), and read back as `false` it would switch rule D off
   * when given back to reconfigure(), so `reconfigure({ ...cors.options(), origin })` would drop
   * the credentials of the login paths.
   */
  options(req: IncomingMessage): CorsOptions {
    this.#engine('options');
    const { options } = this.#moduleOf(req, 'options');
    const normalised = normalisedOptions(options);
    if (options.allowCredentials !== undefined) return normalised as CorsOptions;
    const { allowCredentials: _unset, ...rest } = normalised;
    return Object.freeze(rest) as CorsOptions;
  }

  #engine(method: string): CorsCore {
    if (this.core === undefined) {
      throw new CorsUsageError('CORS_NO_ENGINE', `CorsService.${method}(): no module importing CorsModule has routes, so there is no engine to ask.`);
    }
    return this.core;
  }

  #moduleOf(req: IncomingMessage, method: string): ModuleCors {
    const route = this.matchRoute?.(req.method ?? '', req.url ?? '/');
    const module = route === undefined ? undefined : this.modules.get(route);
    if (module === undefined) {
      throw new CorsUsageError(
        'CORS_NO_ENGINE',
        `CorsService.${method}(): the route serving ${req.method} ${req.url} is of no module that imports CorsModule, so no module's options are ` +
          'there to read or replace. Call it from a controller of a module that imports CorsModule.',
      );
    }
    return module;
  }
}
