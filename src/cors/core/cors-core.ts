/** The engine every entry point shares: the options, the covered routes and the sealed lookup; it neither decides a request nor writes a response. */
import { RouteRegistrationError } from './errors.js';
import { LineLimit } from './line-limit.js';
import { mergeCorsOptions, sameOptions, type AnyCorsOptions, type CorsLogger } from './options.js';
import type { PathTable } from './path-table.js';
import { checkOptionsObject, compilePolicy, compileUserOptions, type CorsPolicy } from './policy.js';
import { RouteTree, type MirrorableRouter, type PathLookup, type PathMatching } from './route-tree.js';

/** How a route() registration is named in errors: `route GET,POST /users`. */
export const routeLabel = (methods: readonly string[], path: string): string => `route ${methods.join(',')} ${path}`;

export interface CoreSettings {
  /** Start-up warnings and request-time faults. Default: `console`. */
  logger?: CorsLogger | undefined;
  /** Path matching of the route tree; `mirror()` copies it from the mirrored router. */
  matching?: PathMatching | undefined;
  /** Names the options in errors and warnings. Default: `createCors()`. */
  source?: string | undefined;
  /** Log one bounded line per refused CORS request (diagnostics/refusals.ts). Default `false`. */
  debug?: boolean | undefined;
}

/**
 * Holds what the entry points share: options, routes, the sealed lookup. Not published: the entry
 * points (entry/, module/) import it; users reach it through them.
 */
export class CorsCore {
  readonly logger: CorsLogger;
  readonly source: string;
  readonly debug: boolean;
  /** Refusal lines (debug), bounded per second. */
  readonly refusals: LineLimit;
  readonly #options: AnyCorsOptions;
  readonly #policy: CorsPolicy;
  readonly #tree: RouteTree;
  /** Route-level policies already compiled, by the merged options they came from: each distinct set is validated (and warned about) once. */
  readonly #routePolicies: { options: AnyCorsOptions; policy: CorsPolicy }[] = [];
  #lookup: PathLookup | undefined;

  constructor(options: AnyCorsOptions | undefined, settings: CoreSettings = {}) {
    this.logger = settings.logger ?? console;
    this.source = settings.source ?? 'createCors()';
    this.debug = settings.debug === true;
    this.refusals = new LineLimit((line) => this.logger.warn(line));
    this.#tree = new RouteTree(settings.matching);
    // A copy: changing the caller's object later must not change routes registered later.
    const compiled = compileUserOptions(options ?? {}, { source: this.source, logger: this.logger });
    this.#options = compiled.options;
    this.#policy = compiled.policy;
    // Route options that merge to the base ones are the base policy: one policy per set of options,
    // so the methods of a path that share options share a table (rule E).
    this.knowPolicy(this.#options, this.#policy);
  }

  /**
   * Covers `path` for `methods`, with `options` merged field by field over the engine's own;
   * `label` names the registration in errors. Returns the path's table.
   */
  route(methods: readonly string[], path: string, options: AnyCorsOptions | undefined, label: string): PathTable {
    this.#assertOpen(label, path);
    const route = this.#routeOptions(options, label);
    return this.#tree.add(methods, path, route.options, route.policy, label);
  }

  /**
   * Covers a route that its framework matches (entry/framework-routes.ts): tables as route()
   * builds them, grouped by `key`, outside the tree.
   */
  routeMatchedElsewhere(key: string, methods: readonly string[], path: string, options: AnyCorsOptions | undefined, label: string): PathTable {
    this.#assertOpen(label, path);
    const route = this.#routeOptions(options, label);
    return this.#tree.addMatchedElsewhere(key, methods, path, route.options, route.policy, label);
  }

  /** Covers every route of a find-my-way router, matching paths with that router's own settings. */
  mirror(instance: unknown, options: AnyCorsOptions | undefined): void {
    const source = `${this.source}.mirror()`;
    this.#assertOpen(source, 'the router');
    const router = instance as Partial<MirrorableRouter> | null;
    if (router === null || typeof router !== 'object' || !Array.isArray(router.routes)) {
      throw new RouteRegistrationError('CORS_NOT_A_ROUTER', source, router, 'is not a find-my-way router', 'pass the router returned by FindMyWay()');
    }
    if (router.routes.length === 0) {
      // Mirroring too early would silently leave no route, and so cover every path.
      throw new RouteRegistrationError(
        'CORS_ROUTER_EMPTY',
        source,
        'the router',
        'has no routes yet',
        'call mirror() after the application has registered its routes',
      );
    }
    this.#tree.adoptMatching(router, 'mirror()');
    for (const { method, path } of router.routes) this.route([method], path, options, `mirror() of ${method} ${path}`);
  }

  /** A policy compiled (and warned about) already, for routes whose merged options equal `options`. */
  knowPolicy(options: AnyCorsOptions, policy: CorsPolicy): void {
    this.#routePolicies.push({ options, policy });
  }

  /** Closes registration and builds the lookup; the first lookup does it if nobody did before. */
  seal(): void {
    if (this.#lookup !== undefined) return;
    this.#lookup = this.#tree.seal(this.#policy);
  }

  /** The table of a URL's path (`/path?query`), or `undefined` off the covered paths. */
  lookup(pathAndQuery: string): PathTable | undefined {
    if (this.#lookup === undefined) this.seal();
    return this.#lookup!(pathAndQuery);
  }

  #assertOpen(label: string, path: string): void {
    if (this.#lookup !== undefined) {
      throw new RouteRegistrationError(
        'CORS_ROUTES_SEALED',
        label,
        path,
        'comes after the first request (or the framework becoming ready) sealed the route table',
        'register every route before the server starts serving',
      );
    }
  }

  /** A route's options merged field by field over the engine's own, and their policy. */
  #routeOptions(options: AnyCorsOptions | undefined, label: string): { options: AnyCorsOptions; policy: CorsPolicy } {
    if (options === undefined) return { options: this.#options, policy: this.#policy };
    checkOptionsObject(options, label);
    const merged = mergeCorsOptions(this.#options, options);
    return { options: merged, policy: this.#routePolicy(merged, label) };
  }

  #routePolicy(merged: AnyCorsOptions, source: string): CorsPolicy {
    const known = this.#routePolicies.find((entry) => sameOptions(entry.options, merged));
    if (known !== undefined) return known.policy;
    const policy = compilePolicy(merged, { source, logger: this.logger });
    this.#routePolicies.push({ options: merged, policy });
    return policy;
  }
}
