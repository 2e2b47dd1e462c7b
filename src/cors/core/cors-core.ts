/** The engine every entry point shares: the options, the covered routes and the sealed lookup, swapped whole on reconfigure(); it neither decides a request nor writes a response. */
import { publishConfiguration } from './channels.js';
import { type CorsOptionProblem, CorsOptionsError, labelText, RouteRegistrationError, type RouteLabel } from './errors.js';
import { LineLimit } from './line-limit.js';
import { mergeCorsOptions, normalisedOptions, sameOptions, type AnyCorsOptions, type CorsLogger } from './options.js';
import type { PathTable } from './path-table.js';
import { checkOptionsObject, compilePolicy, compileUserOptions, type CorsPolicy, routePathPrefix } from './policy.js';
import type { PathMatching } from './path-matching.js';
import { RouteTree, type MirrorableRouter, type PathLookup } from './route-tree.js';
import type { FindingRouter, SharedRouter } from './shared-router.js';

/** How a route() registration is named in errors: `route GET,POST /users`. */
export const routeLabel = (methods: readonly string[], path: string): string => `route ${methods.join(',')} ${path}`;

/** One frozen list per method, shared by every registration of that one method: 100,000 `GET` routes need no array each. */
const ONE_METHOD_LISTS = new Map<string, readonly string[]>();

/** The list of `method` alone, for a registration (the entry points register routes a method at a time). */
export function oneMethodList(method: string): readonly string[] {
  let list = ONE_METHOD_LISTS.get(method);
  if (list === undefined) {
    list = Object.freeze([method]);
    // Bounded by the methods the application's routes use.
    ONE_METHOD_LISTS.set(method, list);
  }
  return list;
}

export interface CoreSettings {
  /** Start-up warnings and request-time faults. Default: `console`. */
  logger?: CorsLogger | undefined;
  /** Path matching of the route tree; `mirror()` copies it from the mirrored router. */
  matching?: PathMatching | undefined;
  /** Names the options in errors and warnings. Default: `createCors()`. */
  source?: string | undefined;
  /**
   * Debug mode (also switched at run time with `setDebug()`): one bounded log line per refused
   * CORS request (diagnostics/refusals.ts), and refused preflights of an origin the path allows
   * name the failed check to the browser (core/answer.ts). Default `false`.
   */
  debug?: boolean | undefined;
}

/**
 * The table a registration decides with. Entries that keep a route's table (the framework
 * mirrors, the fastify plugin) keep this instead and read `table` once per request:
 * reconfigure() points it at the new configuration's table, so a request is answered wholly
 * under the configuration it started with.
 */
export interface TableRef {
  readonly table: PathTable;
}

/**
 * The key under which a framework files a route's path (routes of one key share their tables):
 * the key itself; how to make it from the path; or an object the framework already holds for
 * the path as it spells it (@lib/cors/koa: the RegExp of the path's first layer), compared by
 * identity. A function keeps no key a route once the routes are sealed; reconfigure() makes the
 * keys again (CorsModule: 100,000 strings otherwise). An object keeps no key of its own either.
 */
export type PathKey = string | PathKeyObject | ((path: string) => string);

/** A key object: anything but a function, which makes the key from the path. */
export type PathKeyObject = object & { call?: never };

/**
 * Keys for routeMatchedElsewhere() of frameworks that route with find-my-way (CorsModule's host,
 * fastify): from here, the module those entry points load already (a package's bundle of it then
 * needs no second module).
 */
export { findMyWayKey, findMyWayKeyFor } from './route-tree.js';

/**
 * A route's options: those merged field by field over the engine's, or, for CorsModule (whose
 * modules each have base options of their own), how to build the whole options from the engine's.
 */
export type RouteOptionsSource = AnyCorsOptions | undefined | ((base: AnyCorsOptions) => AnyCorsOptions);

/**
 * What every entry point offers for changing its engine while it serves (`Options`: its
 * CorsOptions, whose origin function takes its own kind of request).
 */
export interface CorsControls<Options> {
  /**
   * Replaces the options; route-level options keep merging over the new ones. Validates them,
   * and every route's options merged over them, in full first: a bad one throws CorsOptionsError
   * (listing every problem) and changes nothing. Each request is answered wholly under the old
   * options or wholly under the new, even one whose async origin function is pending.
   */
  reconfigure(options: Options): void;
  /** The options in force, normalised: every default with a value filled in, lists without repeats. Given to createCors(), they make the same engine. */
  options(): Options;
  /** Debug mode on or off while the server runs (see docs/diagnostics.md): refusals logged, and refused preflights that name the failed check to the browser. */
  setDebug(on: boolean): void;
}

/** The controls of `core`, for an entry point to hand out. */
export function controlsOf<Options>(core: CorsCore): CorsControls<Options> {
  return {
    reconfigure: (options) => core.reconfigure(options as AnyCorsOptions),
    options: () => core.options() as Options,
    setDebug: (on) => core.setDebug(on),
  };
}

/**
 * One route registration, kept to be replayed onto a new configuration by reconfigure(); it is
 * also the TableRef its entry point keeps (one object a route, not two).
 */
interface Registration {
  readonly kind: 'route';
  readonly methods: readonly string[];
  readonly path: string;
  readonly options: RouteOptionsSource;
  readonly label: RouteLabel;
  /** For routes matched by their framework (the framework entry points, entry/markers.ts): the key of the path as the framework spells it. */
  readonly elsewhere: PathKey | undefined;
  /** The table it decides with in the configuration in force. */
  table: PathTable;
}

/** A mirror() of a find-my-way router: its routes, each with `options`, read from the router itself. */
interface MirrorRegistration {
  readonly kind: 'mirror';
  readonly router: FindingRouter;
  readonly options: AnyCorsOptions | undefined;
}

/**
 * One configuration: the base options and policy, and the route tree built from them. Immutable
 * once sealed; reconfigure() builds a new one beside it and swaps.
 */
class Configuration {
  readonly options: AnyCorsOptions;
  readonly policy: CorsPolicy;
  readonly tree: RouteTree;
  /** Mirrored routers asked directly (shared-router.ts), while no route of the tree's own shares their paths. */
  #shared: { registration: MirrorRegistration; router: SharedRouter }[] = [];
  /** Route-level policies already compiled, by the merged options they came from: each distinct set is validated (and warned about) once. */
  readonly #routePolicies: { options: AnyCorsOptions; policy: CorsPolicy }[] = [];
  readonly #logger: CorsLogger;

  constructor(options: unknown, matching: PathMatching | undefined, source: string, logger: CorsLogger) {
    this.#logger = logger;
    // A copy: changing the caller's object later must not change routes registered later.
    const compiled = compileUserOptions(options, { source, logger });
    this.options = compiled.options;
    this.policy = compiled.policy;
    this.tree = new RouteTree(matching);
    // Route options that merge to the base ones are the base policy: one policy per set of options,
    // so the methods of a path that share options share a table (rule E).
    this.knowPolicy(this.options, this.policy);
  }

  knowPolicy(options: AnyCorsOptions, policy: CorsPolicy): void {
    this.#routePolicies.push({ options, policy });
  }

  /** The table `registration` decides with in this configuration. */
  add(registration: Registration): PathTable {
    // A route of its own may share a path with a mirrored one: the mirrored routes are copied
    // first, so that the tree merges the path's methods (and finds conflicts) as it always does.
    if (this.#shared.length > 0) {
      const shared = this.#shared;
      this.#shared = [];
      for (const { registration: mirrored } of shared) this.#copy(mirrored);
    }
    const { methods, path, label, elsewhere } = registration;
    const route = this.#routeOptions(registration.options, label, registration);
    return elsewhere === undefined
      ? this.tree.add(methods, path, route.options, route.policy, label)
      : this.tree.addMatchedElsewhere(typeof elsewhere === 'function' ? elsewhere(path) : elsewhere, methods, path, route.options, route.policy, label);
  }

  /** Checks and compiles `registration`'s options, as add() does, without covering anything. */
  check(registration: Registration): void {
    this.#routeOptions(registration.options, registration.label, registration);
  }

  /**
   * Covers a mirrored router's routes: asked directly where it is large and alone (no copy of a
   * tree that size: shared-router.ts), else copied into the tree route by route.
   */
  mirror(registration: MirrorRegistration, source: string): void {
    const { router, options } = registration;
    this.tree.adoptMatching(router, 'mirror()');
    if (this.tree.isEmpty && router.routes.length > SHARED_ROUTER_ABOVE) {
      const { SharedRouter } = require('./shared-router.js') as typeof import('./shared-router.js');
      const shared = SharedRouter.share(router, this.#routeOptions(options, source, undefined).policy);
      if (shared !== undefined) {
        this.#shared.push({ registration, router: shared });
        return;
      }
    }
    this.#copy(registration);
  }

  #copy({ router, options }: MirrorRegistration): void {
    for (const { method, path } of router.routes) {
      this.add({ kind: 'route', methods: [method], path, options, label: mirroredLabel, elsewhere: undefined, table: undefined as unknown as PathTable });
    }
  }

  /** The lookup of every covered path, the tree's and the shared routers'. */
  seal(): PathLookup {
    const shared = this.#shared.map((entry) => entry.router);
    if (shared.length === 0) return this.tree.seal(this.policy);
    const own = this.tree.isEmpty ? undefined : this.tree.seal(this.policy);
    if (own === undefined && shared.length === 1) return (url, method) => shared[0]!.lookup(url, method);
    return (url, method) => {
      const table = own?.(url, method);
      if (table !== undefined) return table;
      for (const router of shared) {
        const found = router.lookup(url, method);
        if (found !== undefined) return found;
      }
      return undefined;
    };
  }

  /**
   * A route's whole options and their policy: those of `route`, or of a mirror() when it is
   * `undefined`, which problems' paths name (`routes["GET /login"].origin[2]`, `mirror().origin`).
   * The label and the path prefix are made only where a check may report them.
   */
  #routeOptions(options: RouteOptionsSource, label: RouteLabel, route: Registration | undefined): { options: AnyCorsOptions; policy: CorsPolicy } {
    if (options === undefined) return { options: this.options, policy: this.policy };
    let merged: AnyCorsOptions;
    if (typeof options === 'function') {
      merged = options(this.options);
    } else {
      checkOptionsObject(options, sourceOf(label, route), pathPrefixOf(route));
      merged = mergeCorsOptions(this.options, options);
    }
    const known = this.#routePolicies.find((entry) => sameOptions(entry.options, merged));
    if (known !== undefined) return known;
    const policy = compilePolicy(merged, { source: sourceOf(label, route), logger: this.#logger, pathPrefix: pathPrefixOf(route) });
    this.#routePolicies.push({ options: merged, policy });
    return { options: merged, policy };
  }
}

/** The label of a route's registration (or a mirror()'s), made for a check that may report it. */
const sourceOf = (label: RouteLabel, route: Registration | undefined): string =>
  route === undefined ? labelText(label, [], '') : labelText(label, route.methods, route.path);

/** Where a route's (or a mirror()'s) options sit, as problems' paths name it. */
const pathPrefixOf = (route: Registration | undefined): string => (route === undefined ? 'mirror().' : routePathPrefix(route.methods, route.path));

/** A route of a mirror() copied into the tree, as errors name it. */
const mirroredLabel = (methods: readonly string[], path: string): string => `mirror() of ${methods.join(',')} ${path}`;

/**
 * Up to this many routes the engine copies a mirrored router into its own tree, compiled
 * (route-tree.ts): fewer instructions per request than the application's uncompiled router, for a
 * few megabytes. Past it, the tree would not be compiled anyway, and the copy is what costs.
 */
export const SHARED_ROUTER_ABOVE = 1000;

/**
 * Holds what the entry points share: options, routes, the sealed lookup. Not published: the entry
 * points (entry/, module/) import it; users reach it through them.
 */
export class CorsCore {
  readonly logger: CorsLogger;
  readonly source: string;
  /** Read per request: setDebug() switches it while the server runs. */
  debug: boolean;
  /** Refusal lines (debug), bounded per second. */
  readonly refusals: LineLimit;
  #configuration: Configuration;
  readonly #registrations: (Registration | MirrorRegistration)[] = [];
  #lookup: PathLookup | undefined;
  /** lookUpWith()'s lookup, kept across reconfigure(). */
  #external: PathLookup | undefined;

  constructor(options: AnyCorsOptions | undefined, settings: CoreSettings = {}) {
    this.logger = settings.logger ?? console;
    this.source = settings.source ?? 'createCors()';
    this.debug = settings.debug === true;
    this.refusals = new LineLimit((line) => this.logger.warn(line));
    this.#configuration = new Configuration(options ?? {}, settings.matching, this.source, this.logger);
    publishConfiguration(this.source, 'configure', this.#configuration.options, 0);
  }

  /**
   * Covers `path` for `methods`, with `options` merged field by field over the engine's own (or
   * composed from them); `label` names the registration in errors. Returns the route's table.
   */
  route(methods: readonly string[], path: string, options: RouteOptionsSource, label: RouteLabel): TableRef {
    return this.#register(methods, path, options, label, undefined);
  }

  /**
   * Covers a route that its framework matches (the framework entry points, entry/markers.ts): tables as route()
   * builds them, grouped by `key`, outside the tree.
   */
  routeMatchedElsewhere(key: PathKey, methods: readonly string[], path: string, options: RouteOptionsSource, label: RouteLabel): TableRef {
    return this.#register(methods, path, options, label, key);
  }

  /**
   * Checks the options of a route its framework never runs for `methods` (another route of its
   * path runs them first): they decide nothing, but bad options still fail at start-up.
   */
  checkRoute(methods: readonly string[], path: string, options: RouteOptionsSource, label: RouteLabel): void {
    this.#configuration.check({ kind: 'route', methods, path, options, label, elsewhere: undefined, table: undefined as unknown as PathTable });
  }

  #register(methods: readonly string[], path: string, options: RouteOptionsSource, label: RouteLabel, elsewhere: PathKey | undefined): TableRef {
    if (this.#lookup !== undefined) this.#assertOpen(labelText(label, methods, path), path);
    const registration: Registration = { kind: 'route', methods, path, options, label, elsewhere, table: undefined as unknown as PathTable };
    registration.table = this.#configuration.add(registration);
    this.#registrations.push(registration);
    return registration;
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
    const registration: MirrorRegistration = { kind: 'mirror', router: router as FindingRouter, options };
    this.#configuration.mirror(registration, source);
    this.#registrations.push(registration);
  }

  /** A policy compiled (and warned about) already, for routes whose merged options equal `options`. */
  knowPolicy(options: AnyCorsOptions, policy: CorsPolicy): void {
    this.#configuration.knowPolicy(options, policy);
  }

  /**
   * Replaces the engine's options while it serves. The new options, and every route's options
   * merged over them, are validated in full first: on any error this throws (one
   * CorsOptionsError listing every problem) and nothing changes. Then the new configuration is
   * built beside the old one and swapped in one synchronous step, so each request is answered
   * wholly under one of them: a request whose async origin function is pending finishes under the
   * configuration it started with.
   */
  reconfigure(options: AnyCorsOptions): void {
    // No default here: a config service answering nothing must not open the server to every origin.
    const next = new Configuration(options, this.#configuration.tree.matching, `${this.source}.reconfigure()`, this.logger);
    const tables: PathTable[] = [];
    // Every route is checked, so that one error lists every problem of the new options.
    const problems: CorsOptionProblem[] = [];
    for (const registration of this.#registrations) {
      try {
        if (registration.kind === 'mirror') next.mirror(registration, `${this.source}.mirror()`);
        else tables.push(next.add(registration));
      } catch (error) {
        if (!(error instanceof CorsOptionsError)) throw error;
        problems.push(...error.errors);
      }
    }
    if (problems.length > 0) throw CorsOptionsError.of(`${this.source}.reconfigure()`, problems);
    const sealed = this.#lookup === undefined ? undefined : next.seal();
    const lookup = sealed === undefined ? undefined : (this.#external ?? sealed);
    // The swap: nothing below can throw, and no request runs in between.
    this.#configuration = next;
    if (lookup !== undefined) this.#lookup = lookup;
    let index = 0;
    for (const registration of this.#registrations) if (registration.kind === 'route') registration.table = tables[index++]!;
    publishConfiguration(this.source, 'reconfigure', next.options, this.#registrations.length);
  }

  /** Switches debug mode (see CoreSettings.debug) while the server runs; the next request sees it. */
  setDebug(on: boolean): void {
    this.debug = on === true;
  }

  /** The engine's own options as in force now, normalised (what reconfigure() or the constructor was given, checked and copied). */
  options(): AnyCorsOptions {
    return normalisedOptions(this.#configuration.options);
  }

  /** Closes registration and builds the lookup; the first lookup does it if nobody did before. */
  seal(): void {
    if (this.#lookup !== undefined) return;
    const own = this.#configuration.seal();
    this.#lookup = this.#external ?? own;
  }

  /**
   * Has `lookup` find a request's table in place of the route tree: the framework's own router
   * (CorsModule: the host's), for routes registered with routeMatchedElsewhere(), whose tables it
   * reads through their TableRefs, so reconfigure() keeps it. Before the first lookup.
   */
  lookUpWith(lookup: PathLookup): void {
    this.#assertOpen(`${this.source}.lookUpWith()`, 'the lookup');
    this.#external = lookup;
  }

  /**
   * The table of a URL's path (`/path?query`), or `undefined` off the covered paths. `method`, the
   * request's, lets a shared router find the path's route at its first try.
   */
  lookup(pathAndQuery: string, method?: string): PathTable | undefined {
    if (this.#lookup === undefined) this.seal();
    return this.#lookup!(pathAndQuery, method);
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
}
