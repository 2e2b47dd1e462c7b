/** RestApplication: builds the module tree, runs init hooks, registers routes, and serves them over node:http. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { getModuleDefinition, StartupError, tokenName, type Class, type Provider } from '@lib/core';

import { buildModuleTree, type RestModuleNode, type RestModuleTree } from './modules.js';
import { endWithBody, JSON_TYPE, TEXT } from './request-context.js';
import type { HttpMethod } from './http-methods.js';
import { RouteTable, type RouteEntry, type RouteMatch } from './route-table.js';
import {
  collectControllerRoutes,
  hookRoute,
  pathRoutes,
  type CompiledRoute,
  type PathRouteGroup,
  type RouteDefinition,
  type RouteHandler,
  type RouteInfo,
} from './routes.js';

/** A step in front of the router, Connect-style. */
export type PreRouterStep = (req: IncomingMessage, res: ServerResponse, next: () => void) => void | Promise<void>;

/**
 * A step between the router and the route: given the route the router found for the request
 * (`undefined` where none has a router entry for its method), so that it needs no lookup of its own.
 */
export type RouteStep = (req: IncomingMessage, res: ServerResponse, route: RouteInfo | undefined, next: () => void) => void | Promise<void>;

/** What an init hook receives, once per module that imports the hook's module. */
export interface RestInitContext {
  /** The importing module. */
  readonly module: Class;
  /** The importing module's routes, prefixes included. */
  readonly routes: readonly RouteInfo[];
  /** Adds a route to the importing module (with its route-level providers). */
  addRoute(method: string, path: string, handler: RouteHandler): void;
  /**
   * Adds a route of `method` on each of `paths` (paths of the importing module's routes), all
   * answered by `handler` and listed like addRoute()'s. They take no router entry of their own: a
   * request that no `method` route matches runs `handler` where its path matches one of these
   * paths' routes under another method (`ctx.params` are that route's). At 100,000 paths an
   * entry each would cost as much as the routes themselves.
   */
  addRouteOnPaths(method: string, paths: Iterable<string>, handler: RouteHandler): void;
  /** Runs `step` before the router for every request, in the order hooks add them. */
  addPreRouterStep(step: PreRouterStep): void;
  /**
   * Runs `step` for every request once the router has looked its route up (after every
   * pre-router step), in the order hooks add them; the route runs when the last one calls `next()`.
   */
  addRouteStep(step: RouteStep): void;
  /**
   * The route the router runs for `method` on `url` (HEAD: a GET route where no HEAD route
   * matches), among the routes with a router entry (not addRouteOnPaths()'s); `undefined` where
   * none matches. For pre-router steps: it answers once the application serves.
   */
  matchRoute(method: string, url: string): RouteInfo | undefined;
  /**
   * The `Allow` the application answers a 405 on `url` with: every method a route serves there,
   * in registration order, HEAD right after GET, OPTIONS last (docs/CONTRACT.md, section 3);
   * `undefined` where no route matches. For a step that answers OPTIONS itself, so that both say
   * one list. It answers once the application serves.
   */
  allowOn(url: string): string | undefined;
}

export interface RestApplicationOptions {
  /** Where handler errors are reported. Default: `console`. */
  logger?: { error(message: string, error?: unknown): void };
}

type Logger = NonNullable<RestApplicationOptions['logger']>;

/**
 * The application: every module, provider and route resolved and compiled by `create()`, then
 * served on a node:http server.
 */
export class RestApplication {
  readonly server: Server;
  readonly #definitions: readonly RouteDefinition[];
  #routes: readonly { method: string; path: string }[] | undefined;

  private constructor(table: RouteTable, routes: readonly RouteDefinition[], steps: Steps, served: Served, logger: Logger) {
    this.#definitions = routes;
    const { match, serve, allowOn } = buildDispatcher(table, routes, logger);
    served.allowOn = allowOn;
    // Steps run in order, the route last; a step that throws or rejects answers 500 like a handler
    // (the try sits in each step's own closure: no closure more per request).
    const routed = steps.route.reduceRight<(req: IncomingMessage, res: ServerResponse, found: RouteMatch | null) => void>(
      (next, step) => (req, res, found) => {
        let returned: unknown;
        try {
          returned = step(req, res, found?.store.definition, () => next(req, res, found));
        } catch (error) {
          return fail(res, error, `${req.method} ${req.url}`, logger);
        }
        if (returned instanceof Promise) failOnRejection(req, res, returned, logger);
      },
      serve,
    );
    // One lookup serves the route steps and the route.
    const dispatch = (req: IncomingMessage, res: ServerResponse) => routed(req, res, match(req));
    const handle = steps.preRouter.reduceRight<(req: IncomingMessage, res: ServerResponse) => void>(
      (next, step) => (req, res) => {
        let returned: unknown;
        try {
          returned = step(req, res, () => next(req, res));
        } catch (error) {
          return fail(res, error, `${req.method} ${req.url}`, logger);
        }
        if (returned instanceof Promise) failOnRejection(req, res, returned, logger);
      },
      dispatch,
    );
    this.server = createServer(handle);
  }

  /**
   * Every route served, for introspection (the HEAD that every GET route answers is not listed).
   * Made when first read: at 100,000 routes and their OPTIONS twins, 200,000 objects nobody may ask for.
   */
  get routes(): readonly { method: string; path: string }[] {
    this.#routes ??= this.#definitions.map(({ method, path }) => ({ method, path }));
    return this.#routes;
  }

  /** Resolves every module, provider and route, runs the init hooks, and checks everything once. */
  static async create(rootModule: Class, options: RestApplicationOptions = {}): Promise<RestApplication> {
    if (getModuleDefinition(rootModule)?.kind !== 'root') {
      throw new StartupError(`${tokenName(rootModule)} is not a root module: decorate it with restRootModule({...}).`);
    }
    const tree = buildModuleTree(rootModule);
    const routes: RouteDefinition[] = [];
    const steps: Steps = { preRouter: [], route: [] };
    // Filled once every hook has run; pre-router steps ask it through matchRoute().
    const table = new RouteTable();
    const served: Served = {};
    for (const node of tree.nodes) {
      const own = collectControllerRoutes(tree, node);
      routes.push(...own);
      for (const { hook, from } of tree.initHooksFor(node)) {
        await hook.onInit(initContext({ tree, node, own, all: routes, steps, from, table, served }));
      }
    }
    return new RestApplication(table, routes, steps, served, options.logger ?? console);
  }

  listen(port: number, host?: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.close((error) => (error ? reject(error) : resolve()));
      this.server.closeIdleConnections();
    });
  }
}

/** What the dispatcher answers with, filled once it is built: init hooks' steps ask it while serving. */
interface Served {
  allowOn?: (url: string) => string | undefined;
}

interface Steps {
  readonly preRouter: PreRouterStep[];
  readonly route: RouteStep[];
}

/** A step that rejects answers 500 like a handler. */
function failOnRejection(req: IncomingMessage, res: ServerResponse, returned: Promise<unknown>, logger: Logger): void {
  returned.catch((error: unknown) => fail(res, error, `${req.method} ${req.url}`, logger));
}

interface InitScope {
  readonly tree: RestModuleTree;
  readonly node: RestModuleNode;
  /** The importing module's routes, and every route so far: added routes go into both. */
  readonly own: RouteDefinition[];
  readonly all: RouteDefinition[];
  readonly steps: Steps;
  /** The module whose hook it is. */
  readonly from: RestModuleNode;
  readonly table: RouteTable;
  readonly served: Served;
}

function initContext({ tree, node, own, all, steps, from, table, served }: InitScope): RestInitContext {
  const source = `init hook of ${from.name}`;
  // Read once, shared by every route the hook adds (an OPTIONS twin per path, say).
  let providers: readonly Provider[] | undefined;
  const add = (route: RouteDefinition) => {
    own.push(route);
    all.push(route);
  };
  return {
    module: node.moduleClass,
    routes: own,
    addRoute: (method, path, handler) => {
      providers ??= tree.providersAt(node, 'providersPerRou');
      add(hookRoute(tree, node, providers, method, path, handler, source));
    },
    addRouteOnPaths: (method, paths, handler) => {
      providers ??= tree.providersAt(node, 'providersPerRou');
      for (const route of pathRoutes(tree, node, providers, own, method, paths, handler, source)) add(route);
    },
    addPreRouterStep: (step) => {
      if (typeof step !== 'function') throw new StartupError(`${source}: addPreRouterStep() takes a function (req, res, next).`);
      steps.preRouter.push(step);
    },
    addRouteStep: (step) => {
      if (typeof step !== 'function') throw new StartupError(`${source}: addRouteStep() takes a function (req, res, route, next).`);
      steps.route.push(step);
    },
    matchRoute: (method, url) => table.match(method, url)?.store.definition,
    allowOn: (url) => served.allowOn?.(url),
  };
}

interface Dispatcher {
  /** The route the router runs for the request (HEAD: the GET route where no HEAD route matches); `null` where none has a router entry. */
  match(req: IncomingMessage): RouteMatch | null;
  /** Runs the route `match()` found, or answers through a route on paths, a 404 or a 405. */
  serve(req: IncomingMessage, res: ServerResponse, found: RouteMatch | null): void;
  /** The `Allow` of a 405 on `url`; `undefined` where no route matches it (a 404). */
  allowOn(url: string): string | undefined;
}

/** The router with every route compiled, and the 404 / 405 / 500 answers. */
function buildDispatcher(table: RouteTable, routes: readonly RouteDefinition[], logger: Logger): Dispatcher {
  const methods = new Set<HttpMethod>();
  /** addRouteOnPaths() groups by method, each with its first route's rank and its compiled handler. */
  const onPaths = new Map<string, { group: PathRouteGroup; rank: number; run: CompiledRoute }[]>();
  for (const [rank, definition] of routes.entries()) {
    const { method, path, source } = definition;
    const group = definition.onPaths;
    if (group !== undefined) {
      let groups = onPaths.get(method);
      if (groups === undefined) {
        groups = [];
        onPaths.set(method, groups);
      }
      if (!groups.some((known) => known.group === group)) groups.push({ group, rank, run: definition.compile() });
      continue;
    }
    const entry: RouteEntry = { run: definition.compile(), definition, rank };
    try {
      table.add(method, path, entry);
    } catch (error) {
      // find-my-way refuses a second route of one method and pattern; only then is the first one
      // looked up, to name it (a lookup per route costs start-up time at 100,000 routes).
      const existing = table.entryAt(method, path);
      if (existing === undefined) throw error;
      throw new StartupError(`Duplicate route ${method} ${path}: ${existing.definition.source} and ${source}. Give one of them another method or path.`);
    }
    methods.add(method);
  }
  // A route on paths whose method has routes of its own must not be one of them: checked only then,
  // so that the usual case (OPTIONS twins, no OPTIONS route) costs no lookup per path.
  for (const [method, groups] of onPaths) {
    if (!methods.has(method as HttpMethod)) continue;
    for (const { group } of groups) {
      for (const path of group.paths) {
        const existing = table.entryAt(method as HttpMethod, path);
        if (existing !== undefined) {
          throw new StartupError(
            `Duplicate route ${method} ${path}: ${existing.definition.source} and ${group.source}. Give one of them another method or path.`,
          );
        }
      }
    }
  }
  table.compile();
  const routeMethods = [...methods];
  /** The route on paths that answers `method` on `url`: found through the route of another method that `url` matches. */
  const onPath = (method: string, url: string) => {
    const groups = onPaths.get(method);
    if (groups === undefined) return undefined;
    for (const other of routeMethods) {
      const found = table.find(other, url);
      if (found === null) continue;
      const { node, path } = found.store.definition;
      const on = groups.find(({ group }) => group.node === node && group.paths.has(path));
      if (on !== undefined) return { on, found };
    }
    return undefined;
  };

  // HEAD runs the GET route where no HEAD route matches (node:http drops the body): a lookup
  // on a miss instead of a HEAD twin of every GET route, which doubled the router's size.
  const match = (req: IncomingMessage) => table.match(req.method ?? '', req.url ?? '/');
  // Hot path: the compiled handler of the route found, and what it returned sent.
  const serve = (req: IncomingMessage, res: ServerResponse, matched: RouteMatch | null) => {
    const url = req.url ?? '/';
    let found = matched;
    let run: CompiledRoute;
    if (found !== null) run = found.store.run;
    else {
      const through = onPath(req.method ?? '', url);
      if (through === undefined) return answerMiss(allowOn(url), res);
      run = through.on.run;
      found = through.found;
    }
    let result: unknown;
    try {
      result = run(req, res, found.params, found.searchParams);
    } catch (error) {
      return fail(res, error, `${req.method} ${url}`, logger);
    }
    if (result instanceof Promise) {
      result.then(
        (value: unknown) => settle(req, res, value, logger),
        (error: unknown) => fail(res, error, `${req.method} ${url}`, logger),
      );
    } else if (result !== undefined) {
      settle(req, res, result, logger);
    }
  };
  const allowOn = (url: string) => allowedOn(table, methods, onPaths.keys(), onPath, url);
  return { match, serve, allowOn };
}

function settle(req: IncomingMessage, res: ServerResponse, value: unknown, logger: Logger): void {
  try {
    sendResult(res, value);
  } catch (error) {
    fail(res, error, `${req.method} ${req.url}`, logger);
  }
}

/** A route method may return what to send instead of sending it (it throws on what JSON cannot hold). */
function sendResult(res: ServerResponse, value: unknown): void {
  if (value === undefined || res.writableEnded) return;
  if (typeof value === 'string') endWithBody(res, value, TEXT, false);
  else endWithBody(res, JSON.stringify(value) ?? 'null', JSON_TYPE, false);
}

/** 405 with `Allow` when the path exists under other methods (RFC 9110 15.5.6), else 404. */
function answerMiss(allow: string | undefined, res: ServerResponse): void {
  if (allow === undefined) return sendStatus(res, 404, 'Not Found');
  res.setHeader('Allow', allow);
  sendStatus(res, 405, 'Method Not Allowed');
}

/** The methods routes serve on `url`, as `Allow` lists them; `undefined` where none does. */
function allowedOn(
  table: RouteTable,
  methods: ReadonlySet<HttpMethod>,
  onPathMethods: Iterable<string>,
  onPath: (method: string, url: string) => { on: { rank: number } } | undefined,
  url: string,
): string | undefined {
  const found = new Map<string, number>();
  for (const method of methods) {
    const route = table.find(method, url);
    if (route !== null) found.set(method, route.store.rank);
  }
  // Routes on paths answer where their path's routes match (an OPTIONS twin: listed last anyway).
  if (found.size > 0) {
    for (const method of onPathMethods) {
      if (found.has(method)) continue;
      const through = onPath(method, url);
      if (through !== undefined) found.set(method, through.on.rank);
    }
  }
  // HEAD is answered wherever GET is (see the dispatcher), with the GET route's rank.
  const get = found.get('GET');
  if (get !== undefined && !found.has('HEAD')) found.set('HEAD', get);
  return found.size === 0 ? undefined : allowHeader(found);
}

/**
 * `Allow` as the OPTIONS answer of the path gives it (docs/CONTRACT.md, section 3): methods in
 * the order their routes were registered, HEAD right after GET, OPTIONS last. `found` maps each
 * method to its route's registration rank (the implicit HEAD of a GET route shares the GET's).
 */
function allowHeader(found: ReadonlyMap<string, number>): string {
  const ranked = [...found]
    .filter(([method]) => method !== 'OPTIONS')
    .sort(([a, rankA], [b, rankB]) => rankA - rankB || Number(a === 'HEAD') - Number(b === 'HEAD'));
  const list: string[] = [];
  for (const [method] of ranked) {
    if (!list.includes(method)) list.push(method);
    if (method === 'GET' && found.has('HEAD') && !list.includes('HEAD')) list.push('HEAD');
  }
  if (found.has('OPTIONS')) list.push('OPTIONS');
  return list.join(', ');
}

function fail(res: ServerResponse, error: unknown, what: string, logger: Logger): void {
  logger.error(`${what} failed:`, error);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // A failed handler's cookies are not delivered: a half-done login must not leave a session.
  res.removeHeader('Set-Cookie');
  sendStatus(res, 500, 'Internal Server Error');
}

function sendStatus(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  endWithBody(res, text, TEXT, true);
}
