import type { IncomingMessage, ServerResponse } from 'node:http';

import { RouteRegistrationError } from './errors.js';
import { explainRequest, type ExplainOptions, type ExplainRequest, type Explanation } from './explain.js';
import { mergeCorsOptions, sameOptions, type CorsLogger, type CorsOptions } from './options.js';
import type { PathTable } from './path-table.js';
import { checkOptionsObject, compilePolicy, compileUserOptions, type CorsPolicy } from './policy.js';
import { answerOptions, answerPreflight, continueActual, type Continuation } from './request-kinds.js';
import { endEmpty } from './responses.js';
import { RouteTree, type FindMyWayRouter, type MirrorableRouter, type PathLookup, type PathMatching } from './route-tree.js';

export type Next = (error?: unknown) => void;

export interface CorsEngineSettings {
  /** Start-up warnings and request-time faults. Default: `console`. */
  logger?: CorsLogger;
  /** Path matching of the route tree; `mirror()` copies it from the mirrored router. */
  matching?: PathMatching;
  /** Names the options in errors and warnings. Default: `createCors()`. */
  source?: string;
  /**
   * Log one line per refused CORS request (its reason code, origin, path and the option to
   * change), at most REFUSAL_LINES_PER_SECOND a second with a count of the rest. Default `false`:
   * then `handle` is the plain middleware, with no extra work per request.
   */
  debug?: boolean;
}

/** The bound on refusal lines, so a flood cannot fill a disk. */
export const REFUSAL_LINES_PER_SECOND = 5;

/** Set by CorsEngine's static block; declared first, so that block finds them initialised. */
export let moduleAccess: EngineModuleAccess;
export let adapterAccess: EngineAdapterAccess;

/**
 * Classifies each request on a covered path (docs/CONTRACT.md, section 3) and answers OPTIONS and
 * preflights from the path's precomputed table; everything else goes on to `next()` with the
 * CORS headers already set, so they are also on the handler's errors.
 */
export class CorsEngine {
  readonly #logger: CorsLogger;
  readonly #source: string;
  readonly #options: CorsOptions;
  readonly #policy: CorsPolicy;
  readonly #tree: RouteTree;
  /** Route-level policies already compiled, by the merged options they came from: each distinct set is validated (and warned about) once. */
  readonly #routePolicies: { options: CorsOptions; policy: CorsPolicy }[] = [];
  #sealed = false;

  constructor(options: CorsOptions = {}, settings: CorsEngineSettings = {}) {
    this.#logger = settings.logger ?? console;
    this.#source = settings.source ?? 'createCors()';
    this.#tree = new RouteTree(settings.matching);
    // A copy: changing the caller's object later must not change routes registered later.
    const compiled = compileUserOptions(options, { source: this.#source, logger: this.#logger });
    this.#options = compiled.options;
    this.#policy = compiled.policy;
    this.handle = settings.debug === true ? this.#logRefusals() : this.#answer;
  }

  /**
   * What the engine would send for `request`, and the browser's verdict on it, with the option
   * to change when it refuses. Sends nothing and changes nothing (an async origin function is
   * asked, as a real request would ask it). Like a request, it seals the routes.
   */
  explain(request: ExplainRequest, options: ExplainOptions = {}): Promise<Explanation> {
    return explainRequest(this.#answer, this.#lookup(request.url ?? '/'), request, options);
  }

  /**
   * Covers `path` for `methods`, with `options` merged field by field over the engine's own.
   * Validates at once: bad options throw here, at start-up.
   */
  route(methods: string | readonly string[], path: string, options?: CorsOptions): this {
    const list = typeof methods === 'string' ? [methods] : methods;
    this.#route(list, path, options, routeLabel(list, path));
    return this;
  }

  #route(list: readonly string[], path: string, options: CorsOptions | undefined, label: string): PathTable {
    this.#assertOpen('route()');
    if (options === undefined) return this.#tree.add(list, path, this.#options, this.#policy, label);
    checkOptionsObject(options, label);
    const merged = mergeCorsOptions(this.#options, options);
    return this.#tree.add(list, path, merged, this.#routePolicy(merged, label), label);
  }

  /**
   * Covers every route a find-my-way router has now (call it once the application's routes
   * are registered), matching paths with that router's own settings.
   */
  mirror(instance: FindMyWayRouter, options?: CorsOptions): this {
    this.#assertOpen('mirror()');
    const router = instance as Partial<MirrorableRouter> | null;
    if (router === null || typeof router !== 'object' || !Array.isArray(router.routes)) {
      throw new RouteRegistrationError(`${this.#source}.mirror()`, router, 'is not a find-my-way router', 'pass the router returned by FindMyWay()');
    }
    if (router.routes.length === 0) {
      // Mirroring too early would silently leave no route, and so cover every path.
      throw new RouteRegistrationError(
        `${this.#source}.mirror()`,
        'the router',
        'has no routes yet',
        'call mirror() after the application has registered its routes',
      );
    }
    this.#tree.adoptMatching(router, 'mirror()');
    for (const { method, path } of router.routes) this.#route([method], path, options, `mirror() of ${method} ${path}`);
    return this;
  }

  /** The middleware. A property, already bound, so it can be passed around as it is. */
  readonly handle: (req: IncomingMessage, res: ServerResponse, next: Next) => void;

  readonly #answer = (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    const table = this.#lookup(req.url ?? '/');
    if (table === undefined) return next();
    const origin = req.headers.origin;
    if (req.method === 'OPTIONS') {
      if (origin !== undefined && req.headers['access-control-request-method'] !== undefined) {
        return this.#decide(table, origin, req, res, next, answerPreflight);
      }
      // Rows 1 and 2: only an origin-dependent policy answers an Origin with more than rule A.
      if (origin === undefined || !table.varyOnOrigin) return answerOptions(table, req, res, undefined) ? next() : undefined;
      return this.#decide(table, origin, req, res, next, answerOptions);
    }
    return this.#actual(table, req, res, next);
  };

  /** Rows 3 and 5, on a covered path: the grant set, then the application. */
  #actual(table: PathTable, req: IncomingMessage, res: ServerResponse, next: Next): void {
    const origin = req.headers.origin;
    if (origin === undefined || !table.varyOnOrigin) return continueActual(table, req, res, undefined) ? next() : undefined;
    return this.#decide(table, origin, req, res, next, continueActual);
  }

  static {
    adapterAccess = {
      lookup: (engine, pathAndQuery) => engine.#lookup(pathAndQuery),
      allows,
      route: (engine, methods, path, options) => engine.#route(methods, path, options, routeLabel(methods, path)),
      handleActual: (engine, table, req, res, next) => {
        // With debug on, every request goes through handle(), which logs refusals.
        if (engine.handle !== engine.#answer) engine.handle(req, res, next);
        else engine.#actual(table, req, res, next);
      },
    };
    // CorsModule's way in, outside the public API: routes named by their controller and module,
    // policies it already compiled, and the handler of the OPTIONS twins it adds.
    moduleAccess = {
      route: (engine, methods, path, options, source) => engine.#route(methods, path, options, source),
      knowPolicy: (engine, options, policy) => void engine.#routePolicies.push({ options, policy }),
      respondToOptions: (engine, req, res) => {
        const table = engine.#lookup(req.url ?? '/');
        if (table === undefined) return endEmpty(res, 404);
        res.setHeader('Allow', table.allow);
        const preflight = req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;
        endEmpty(res, preflight ? table.policy.optionsSuccessStatus : 204);
      },
    };
  }

  /** Replaced by the sealed tree's lookup on the first request. */
  #lookup: PathLookup = (url) => {
    this.#seal();
    return this.#lookup(url);
  };

  /** `handle` with debug on: the answer, then, for a CORS request the browser refuses, one bounded log line. */
  #logRefusals(): (req: IncomingMessage, res: ServerResponse, next: Next) => void {
    const limit = new LineLimit(this.#logger, REFUSAL_LINES_PER_SECOND);
    return (req, res, next) => {
      this.#answer(req, res, next);
      const origin = req.headers.origin;
      if (origin === undefined) return;
      const request = { method: req.method, url: req.url, headers: { ...req.headers } };
      void this.explain(request).then((explanation) => {
        if (explanation.covered && !explanation.allowed) {
          limit.write(`CORS refused [${explanation.reason}] ${req.method} ${req.url} from ${origin}: ${explanation.message}`);
        }
      });
    };
  }

  #seal(): void {
    this.#lookup = this.#tree.seal(this.#policy);
    this.#sealed = true;
  }

  #assertOpen(call: string): void {
    if (this.#sealed) {
      throw new Error(`${this.#source}: ${call} after the first request; register every route before the server starts serving.`);
    }
  }

  #routePolicy(merged: CorsOptions, source: string): CorsPolicy {
    const known = this.#routePolicies.find((entry) => sameOptions(entry.options, merged));
    if (known !== undefined) return known.policy;
    const policy = compilePolicy(merged, { source, logger: this.#logger });
    this.#routePolicies.push({ options: merged, policy });
    return policy;
  }

  /**
   * Runs `then` with the origin if the policy allows it, else with `undefined`. Synchronous for
   * every policy but an async origin function.
   */
  #decide(table: PathTable, origin: string, req: IncomingMessage, res: ServerResponse, next: Next, then: Continuation): void {
    const allowed = allows(table, origin, req);
    if (allowed === true || allowed === false) {
      if (then(table, req, res, allowed ? origin : undefined)) next();
      return;
    }
    void allowed.then((answer) => {
      let goOn: boolean;
      try {
        goOn = then(table, req, res, answer ? origin : undefined);
      } catch (error) {
        // Only a response already closed under us can throw here; never leave the client hanging.
        this.#logger.error(`${this.#source}: answering ${req.method} ${req.url} failed: ${String(error)}`);
        if (!res.headersSent) endEmpty(res, 500);
        return;
      }
      // Outside the try: the application's own errors are not ours to swallow, they surface as
      // they would from a synchronous call.
      if (goOn) next();
    });
  }
}

/** How a route() registration is named in errors. */
const routeLabel = (methods: readonly string[], path: string): string => `route ${methods.join(',')} ${path}`;

/**
 * Whether the table's policy grants `origin` its answer. Synchronous for every policy but an
 * async origin function. `req` is whatever the entry point has (an IncomingMessage, a Request),
 * handed to an origin function as it is.
 */
function allows(table: PathTable, origin: string, req: unknown): boolean | Promise<boolean> {
  const matcher = table.policy.origin;
  switch (matcher.kind) {
    case 'any':
      return true;
    case 'fixed':
      // One answer for every origin (rule A): the browser compares the fixed origin with its own.
      return true;
    case 'none':
      return false;
    case 'dynamic':
      return matcher.allows(origin, req as IncomingMessage);
  }
}

/** What the adapters (fetch.ts, fastify.ts) read of an engine beyond the public API. */
export interface EngineAdapterAccess {
  /** The table of a URL's path. */
  lookup(engine: CorsEngine, pathAndQuery: string): PathTable | undefined;
  /** The origin decision. */
  allows(table: PathTable, origin: string, request: unknown): boolean | Promise<boolean>;
  /** route(), returning the path's table: a framework that has routed a request already can hand it back to handleActual(). */
  route(engine: CorsEngine, methods: readonly string[], path: string, options: CorsOptions | undefined): PathTable;
  /** handle() of a request that is no OPTIONS, on the path of `table`, without looking the path up again. */
  handleActual(engine: CorsEngine, table: PathTable, req: IncomingMessage, res: ServerResponse, next: Next): void;
}

/** What CorsModule (src/cors/module) may do with an engine beyond the public API. */
export interface EngineModuleAccess {
  /** route(), with the registration named in errors as `source`. */
  route(engine: CorsEngine, methods: readonly string[], path: string, options: CorsOptions | undefined, source: string): void;
  /** A policy compiled (and warned about) already, for routes whose merged options equal `options`. */
  knowPolicy(engine: CorsEngine, options: CorsOptions, policy: CorsPolicy): void;
  /**
   * Answers OPTIONS on a covered path as its generated twin would: `Allow` and an empty
   * success. For a host's OPTIONS route standing in for the application's, reached when the
   * engine hands a request on (a preflight with `preflightContinue`).
   */
  respondToOptions(engine: CorsEngine, req: IncomingMessage, res: ServerResponse): void;
}

/** At most `perSecond` lines a second; the first line after a dropped one says how many were dropped. */
class LineLimit {
  #windowStart = 0;
  #written = 0;
  #dropped = 0;

  constructor(
    private readonly logger: CorsLogger,
    private readonly perSecond: number,
  ) {}

  write(line: string): void {
    const now = Date.now();
    if (now - this.#windowStart >= 1000) {
      this.#windowStart = now;
      this.#written = 0;
    }
    if (this.#written >= this.perSecond) {
      this.#dropped++;
      return;
    }
    this.#written++;
    const dropped = this.#dropped;
    this.#dropped = 0;
    this.logger.warn(dropped === 0 ? line : `${line} (${dropped} more refused requests were not logged)`);
  }
}
