/**
 * Which of the routes fastify declared a URL matches, for each method: what the fastify plugin
 * (fastify.ts) answers an `OPTIONS` request from, before any route runs. The routes are those
 * fastify's `onRoute` hook showed the plugin, filed in find-my-way (fastify's router) under
 * fastify's own router options, so a path matches here as it matches there. Decides nothing:
 * it only finds, and markers.ts narrows what it finds (rule F).
 *
 * A route constrained by host is told apart by the Host, which the preflight and the request
 * that follows share (unless the application gives fastify a host strategy of its own, which may
 * read another header: then as any other constraint). One constrained otherwise (a version, a custom strategy) is chosen by
 * headers a preflight does not carry, and find-my-way then goes past a path's other routes to
 * it, or past it to them: it is counted wherever its path matches, beside the route a request
 * without that constraint runs.
 */
import { createRequire } from 'node:module';

import type { FastifyInstance } from 'fastify';
import type Router from 'find-my-way';

import type { TableRef } from '../core/cors-core.js';
import { narrowedTable } from '../core/narrowing.js';
import type { PathMatching } from '../core/path-matching.js';
import type { PathTable } from '../core/path-table.js';
import { KEPT_PATHS } from '../core/route-overlaps.js';
import type { Candidate } from '../core/route-markers.js';

/** What the plugin decided for a route, kept in the route's config for its onRequest hook. */
export const ROUTE = Symbol('@lib/cors/fastify route');
export const LEFT_OUT = 'left out';
export const CATCH_ALL = 'catch-all';
/** A covered route's entry is the engine's reference to its table (reconfigure() replaces the table). */
export type RouteEntry = TableRef | typeof LEFT_OUT | typeof CATCH_ALL;
type Slot = TableRef | typeof LEFT_OUT;
/**
 * A route's options as onRoute gave them: its config's entry is read when a path is matched, as
 * the innermost registration of the plugin left it (each one's onRoute gives the route its entry).
 */
export interface DeclaredRoute {
  readonly config?: unknown;
}

/** The routes a path matches: as candidates for markers.ts, and the methods a left-out route may run there. */
export interface MatchedRoutes {
  readonly candidates: readonly Candidate[];
  readonly leftOut: ReadonlySet<string>;
}

/** find-my-way's settings fastify's router is made with, that change which route a path matches. */
export type RouterSettings = PathMatching & { allowUnsafeRegex?: boolean };

type AnyRouter = Router.Instance<Router.HTTPVersion.V1>;
const unusedHandler = (): void => {};

export class FastifyRouteIndex {
  readonly #settings: RouterSettings;
  /** fastify tells hosts apart with a strategy of the application's: the Host may not be what it routes by. */
  readonly #ownHostStrategy: boolean;
  readonly #createRouter: typeof Router;
  /** Routes with no constraint but the host. */
  #plain: AnyRouter | undefined;
  /** Routes with another constraint, each in a router of its own: it may run wherever its path matches. */
  readonly #constrained: AnyRouter[] = [];
  /** Every method a route serves, GET and HEAD first: the order a URL's methods are listed in. */
  readonly #methods = new Set<string>(['GET', 'HEAD']);
  #hostBound = false;
  #twins: { methods: readonly string[]; url: string; constraints: Record<string, unknown> | undefined; route: DeclaredRoute }[] = [];
  readonly #kept = new Map<string, MatchedRoutes>();

  constructor(settings: RouterSettings, createRouter: typeof Router, ownHostStrategy: boolean) {
    this.#settings = settings;
    this.#createRouter = createRouter;
    this.#ownHostStrategy = ownHostStrategy;
  }

  add(methods: readonly string[], url: string, constraints: Record<string, unknown> | undefined, route: DeclaredRoute): void {
    const host = this.#ownHostStrategy ? undefined : constraints?.host;
    const chosenElsewise = Object.keys(constraints ?? {}).some((name) => name !== 'host' || this.#ownHostStrategy);
    if (!chosenElsewise && this.#plain === undefined) this.#plain = this.#newRouter();
    const router = chosenElsewise ? this.#newRouter() : this.#plain!;
    try {
      router.on(methods as Router.HTTPMethod[], url, host === undefined ? {} : { constraints: { host } }, unusedHandler, route);
    } catch {
      // A route fastify's router refuses too, which it does right after onRoute, with its own error.
      return;
    }
    if (chosenElsewise) this.#constrained.push(router);
    if (host !== undefined) this.#hostBound = true;
    for (const method of methods) this.#methods.add(method);
    this.#kept.clear();
  }

  /** The routes `url` (a request's, query and all) matches on `host`, found once per path and kept. */
  of(url: string, host: string | undefined): MatchedRoutes {
    const end = url.indexOf('?');
    const path = end === -1 ? url : url.slice(0, end);
    const key = this.#hostBound ? `${host}\n${path}` : path;
    let found = this.#kept.get(key);
    if (found === undefined) {
      found = this.#find(path, this.#hostBound && host !== undefined ? { host } : undefined);
      if (this.#kept.size >= KEPT_PATHS) this.#kept.clear();
      this.#kept.set(key, found);
    }
    return found;
  }

  /** A prefixed plugin's '/' route, which fastify may serve at `prefix/` too: filed by fileTwins() once fastify has every route. */
  addTwin(methods: readonly string[], url: string, constraints: Record<string, unknown> | undefined, route: DeclaredRoute): void {
    this.#twins.push({ methods, url, constraints, route });
  }

  /**
   * Files each twin under the methods fastify serves it for, as `find` (fastify.findRoute) finds
   * it: where each parameter takes its own name (`:id` for `:id`), where a wildcard or another
   * route's parameter would take something else.
   */
  fileTwins(find: (method: string, url: string, constraints: Record<string, unknown> | undefined) => { params?: object } | null): void {
    for (const twin of this.#twins) {
      const served = twin.methods.filter((method) => {
        const found = find(method, twin.url, twin.constraints);
        return found !== null && Object.entries(found.params ?? {}).every(([name, value]) => value === `:${name}`);
      });
      if (served.length > 0) this.add(served, twin.url, twin.constraints, twin.route);
    }
    this.#twins = [];
  }

  /** What every route `url` matches for `method` allows (explain() and cors-check ask it); `undefined` where none does. */
  narrowedFor(url: string, method: string): PathTable | undefined {
    const tables = this.of(url, undefined).candidates.flatMap((found) => (found.kind === 'route' ? (found.methods.get(method) ?? []) : []));
    return tables.length === 0
      ? undefined
      : narrowedTable(
          tables.map((ref) => ref.table),
          method,
        );
  }

  #find(path: string, derived: { host: string } | undefined): MatchedRoutes {
    const candidates: Candidate[] = [];
    const leftOut = new Set<string>();
    for (const method of this.#methods) {
      const slots: Slot[] = [];
      for (const router of [this.#plain, ...this.#constrained]) {
        const route = router?.find(method as Router.HTTPMethod, path, derived)?.store as DeclaredRoute | undefined;
        const slot = (route?.config as Record<symbol, Slot | undefined> | undefined)?.[ROUTE];
        if (slot !== undefined) slots.push(slot);
      }
      if (slots.includes(LEFT_OUT)) leftOut.add(method);
      else if (slots.length > 0) {
        candidates.push({ kind: 'route', methods: new Map([[method, slots as TableRef[]]]), passesOn: false, underMarker: false });
      }
    }
    return { candidates, leftOut };
  }

  #newRouter(): AnyRouter {
    return this.#createRouter({ ...this.#settings, querystringParser: () => ({}) });
  }
}

/** find-my-way's settings that change which route a path matches, with fastify's defaults. */
const ROUTER_DEFAULTS = {
  ignoreTrailingSlash: false,
  ignoreDuplicateSlashes: false,
  caseSensitive: true,
  useSemicolonDelimiter: false,
  maxParamLength: 100,
  allowUnsafeRegex: false,
} as const;
const ROUTER_SETTINGS = Object.keys(ROUTER_DEFAULTS) as (keyof typeof ROUTER_DEFAULTS)[];

/**
 * fastify's router options that change which route a path matches: from `routerOptions` (fastify
 * 5.5 on) where given, else the top level. fastify's `initialConfig.routerOptions` lists every
 * field, those given at the top level with their defaults: a default there defers to the top level.
 */
export function routerSettingsOf(fastify: FastifyInstance): RouterSettings {
  const config = fastify.initialConfig as Readonly<Record<string, unknown>> & { routerOptions?: Readonly<Record<string, unknown>> };
  const settings: Record<string, unknown> = {};
  for (const field of ROUTER_SETTINGS) {
    const nested = config.routerOptions?.[field];
    const value = nested !== undefined && nested !== ROUTER_DEFAULTS[field] ? nested : (config[field] ?? nested);
    if (value !== undefined) settings[field] = value;
  }
  return settings as RouterSettings;
}

/**
 * The find-my-way fastify itself depends on, where it can be resolved from fastify's own folder
 * and that fastify is the one running (so both match a path alike, fastify 4's find-my-way 8
 * included); else this package's.
 */
export function findMyWayOf(fastify: FastifyInstance): typeof Router {
  try {
    const fromFastify = createRequire(require.resolve('fastify/package.json'));
    if ((fromFastify('./package.json') as { version?: string }).version === fastify.version) return fromFastify('find-my-way') as typeof Router;
  } catch {
    // fastify bundled, or not resolvable from here.
  }
  return require('find-my-way') as typeof Router;
}
