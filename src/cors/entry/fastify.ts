/**
 * `@lib/cors/fastify`: the CORS engine as a fastify 5 plugin. The engine answers; this file only
 * wires it to fastify:
 * - every route fastify registers (after the plugin) is given to the engine through the
 *   `onRoute` hook, with its `config.cors` merged over the plugin's options field by field, or
 *   left out with `config.cors: false`; its table is kept in its config;
 * - an `onRequest` hook hands each request to the engine, which answers preflights and plain
 *   `OPTIONS` itself (then fastify is told with `reply.hijack()`) and sets the CORS headers of
 *   every other request on the raw response before the handler runs; fastify has routed such a
 *   request already, so the engine is given the route's path table rather than looking it up;
 * - an `OPTIONS *` route lets fastify deliver `OPTIONS` on a path that has no `OPTIONS` route of
 *   its own to that hook; when the engine hands such a request on (the path is not covered), it
 *   answers with fastify's own 404;
 * - the table of an `OPTIONS` request is that of the route fastify's own router finds for the
 *   method a preflight names (fastify-routes.ts); where that router cannot be reached, the
 *   routes are mirrored into the engine's own tree, which finds it;
 * - a request handed on with a `Vary` the engine set on the raw response (an answer that varies
 *   by origin) has that response's `setHeader()` wrapped, to merge the engine's `Vary` into one a
 *   handler set with `reply.header()`, which fastify would otherwise write over it.
 *
 * Register it with `await` before declaring the routes it should cover: fastify tells a plugin
 * only about the routes declared after it has loaded. A route of its context declared before,
 * or in a plugin registered before it, fails `ready()` (CORS_ROUTE_BEFORE_PLUGIN): it would get
 * no CORS at all.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { FastifyInstance, FastifyPluginCallback, FastifyReply, FastifyRequest, FastifySchema, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import vary from 'vary';

import { controlsOf, CorsCore, findMyWayKeyFor, oneMethodList, routeLabel, type CorsControls, type TableRef } from '../core/cors-core.js';
import { routingMethod } from '../core/decision.js';
import { decisionsObserved } from '../diagnostics/channels.js';
import { RouteRegistrationError } from '../core/errors.js';
import type { CorsLogger, CorsOptions } from '../core/options.js';
import type { PathMatching } from '../core/path-matching.js';
import { CATCH_ALL, FastifyRoutes, LEFT_OUT, ROUTE, type RouteEntry } from './fastify-routes.js';
import { readNodeHeader, respond } from './node.js';

export * from './common-exports.js';

/**
 * The plugin's options: the CORS options of every covered route, and two settings of the engine.
 * An origin function is given the FastifyRequest.
 */
export interface FastifyCorsOptions extends CorsOptions<FastifyRequest> {
  /** Start-up warnings and request-time faults. Default: `console`. */
  logger?: CorsLogger;
  /** Log one line per refused CORS request (the engine's `debug` setting). Default `false`. */
  debug?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** `@lib/cors/fastify`: change the engine's options, read them back, or switch debug mode while the server runs. */
    cors: CorsControls<CorsOptions<FastifyRequest>>;
  }
  interface FastifyContextConfig {
    /**
     * `@lib/cors/fastify`: this route's CORS options, merged field by field over the plugin's;
     * `false` leaves the route out (no CORS headers, no preflight answer for it).
     */
    cors?: CorsOptions<FastifyRequest> | boolean;
  }
}

/**
 * The actual-response headers of a constant policy (rule A: the same for every request, whatever
 * its origin) as an object for `reply.headers()`, by the answer list they are made from, which
 * paths of one policy and method list share: a few objects, not one a route.
 */
const constantHeaders = new WeakMap<readonly string[], Record<string, string>>();

/** fastify's options for `register()` itself, which reach the plugin with its own (`logLevel` is used: see below). */
const REGISTER_OPTIONS = ['prefix', 'logLevel', 'logSerializers'] as const;
const MATCHING_FIELDS = ['ignoreTrailingSlash', 'ignoreDuplicateSlashes', 'caseSensitive', 'useSemicolonDelimiter', 'maxParamLength'] as const;
const SOURCE = '@lib/cors/fastify';
/** Numbers each registration of the plugin, so that each one's onRequest hook has a name of its own. */
let registrations = 0;

type RouteConfig = Record<PropertyKey, unknown> & { cors?: unknown };
type RegisteredRoute = RouteOptions & { routePath: string; path: string; prefix: string };

function fastifyCorsPlugin(fastify: FastifyInstance, pluginOptions: FastifyCorsOptions, done: (error?: Error) => void): void {
  const { logger, debug, ...rest } = pluginOptions ?? {};
  const options: Record<string, unknown> = { ...rest };
  const logLevel = options.logLevel as RouteOptions['logLevel'];
  for (const name of REGISTER_OPTIONS) delete options[name];
  const matching = matchingOf(fastify);
  const log = logger ?? console;
  const fastifyRoutes = FastifyRoutes.of(fastify, matching);
  let core: CorsCore;
  try {
    // Validates the options now: a bad one fails register(), and so ready() and listen().
    core = new CorsCore(options as CorsOptions<FastifyRequest>, { logger: log, debug, matching, source: SOURCE });
  } catch (error) {
    done(error as Error);
    return;
  }

  // fastify.cors: reconfigure(), options() and setDebug() of this registration's engine (the
  // first one's, where the plugin is registered more than once in one context).
  if (!fastify.hasDecorator('cors')) fastify.decorate('cors', controlsOf<CorsOptions<FastifyRequest>>(core));

  /** How a route's path is filed with the engine: as fastify's router files it, so that its methods share one table. */
  const pathKey = findMyWayKeyFor(matching);
  // The engine's own lookups (explain()) through fastify's router too; with no request at hand,
  // routes constrained by host are not told apart there.
  if (fastifyRoutes !== undefined) core.lookUpWith((url, method) => fastifyRoutes.tableOf(url, method, undefined));
  /** An OPTIONS request's table: through fastify's router, else the engine's tree. */
  const tableOfOptions =
    fastifyRoutes === undefined
      ? (raw: IncomingMessage) => core.lookup(raw.url ?? '/', routingMethod(raw.method, raw, readNodeHeader))
      : (raw: IncomingMessage, entry: RouteEntry | undefined) => {
          const requested = raw.headers['access-control-request-method'];
          // A plain OPTIONS that fastify ran the application's own OPTIONS route for: that route's.
          if (requested === undefined && typeof entry === 'object') return entry.table;
          // Else fastify ran OPTIONS *: the path has no OPTIONS route to find.
          return fastifyRoutes.tableOf(raw.url ?? '/', typeof requested === 'string' ? requested : undefined, raw);
        };

  /** Routes covered; with none, the engine would cover every path, so the hooks stay idle. */
  let covered = 0;
  /**
   * `prefix + '/'` twins of the `'/'` routes of a prefixed plugin: fastify serves them beside
   * `prefix` without telling onRoute, with the `prefix` route's config (`base`, its entry). Each is
   * a path of its own, with that route's methods alone (at `prefix` other routes may add theirs).
   * Covered as soon as fastify has them (before the next route, so a HEAD twin comes after its
   * GET), or at onReady.
   */
  let twins: { methods: readonly string[]; path: string; options: CorsOptions<FastifyRequest> | undefined; base: TableRef }[] = [];
  /**
   * Routes declared before the plugin, named once each when a request reaches them: where
   * coverAndSeal could not find them (fastify's route listing unreadable).
   */
  const unseenNamed = new Set<string>();
  /**
   * Every route fastify had when the plugin loaded (`GET /path` and its constraints, as fastify
   * prints them): those of this context among them were declared before the plugin, so onRoute
   * never saw them. Usually none: the plugin is registered first.
   */
  const declaredBefore = printedRoutes(fastify, false);
  /**
   * This registration's onRequest hook, by the name fastify prints for it (see coverAndSeal). The
   * first keeps its declared name: fastify binds every hook once per route, and binding a function
   * whose name was redefined takes V8's slow path, a bound function with its own property
   * dictionary (about 290 bytes a route instead of 57: 6 MB at 10,000 routes).
   */
  const hookName = ++registrations === 1 ? 'libCorsOnRequest' : `libCorsOnRequest${registrations}`;

  // The route that lets OPTIONS on a path without an OPTIONS route reach the onRequest hook.
  // Registered before the onRoute hook, and marked, so it is never covered itself.
  fastify.route({
    method: 'OPTIONS',
    url: '*',
    // Kept out of generated API documentation (@fastify/swagger reads `hide`).
    schema: { hide: true } as FastifySchema,
    config: { [ROUTE]: CATCH_ALL },
    // register(plugin, { logLevel }) sets the log level of the requests this route receives.
    ...(logLevel !== undefined && { logLevel }),
    // Reached only when the engine handed the request on: fastify's 404, as without the plugin.
    handler: (_request, reply) => void reply.callNotFound(),
  });

  /**
   * The GET route covered last: fastify declares the HEAD route of a GET right after it, with a
   * copy of the options the GET was declared with (its config the same object), and that HEAD
   * route is given the GET's registration. The engine answers HEAD on a GET path by GET's policy
   * anyway; a registration of its own cost about 400 bytes a GET route, for nothing.
   */
  let lastGet: { url: string; declared: unknown; config: RouteOptions['config']; twinUrl: string | undefined } | undefined;

  fastify.addHook('onRoute', function coverRoute(this: FastifyInstance, route: RegisteredRoute) {
    if (twins.length > 0) coverTwins(this, false);
    const headOfLastGet = lastGet !== undefined && route.method === 'HEAD' && route.url === lastGet.url && route.config === lastGet.declared;
    const getConfig = lastGet?.config;
    // A prefixed '/' GET's HEAD comes twice: for `prefix`, then for the twin `prefix + '/'`.
    lastGet = headOfLastGet && lastGet!.twinUrl !== undefined ? { ...lastGet!, url: lastGet!.twinUrl, twinUrl: undefined } : undefined;
    if (headOfLastGet) {
      route.config = getConfig;
      return;
    }
    const config = (route.config ?? {}) as RouteConfig;
    if (config[ROUTE] === CATCH_ALL) return;
    const own = config.cors;
    if (own === false) {
      // A copy: the config object may be the application's, shared between routes.
      route.config = { ...config, [ROUTE]: LEFT_OUT } as RouteOptions['config'];
      return;
    }
    const routeOptions = own === undefined || own === true ? undefined : (own as CorsOptions<FastifyRequest>);
    const methods = Array.isArray(route.method) ? [...route.method] : oneMethodList(route.method as string);
    const declared = route.config;
    let ref: TableRef;
    if (fastifyRoutes === undefined) {
      ref = core.route(methods, route.url, routeOptions, routeLabel);
    } else {
      // fastify's router finds the route, whose config leads to its table.
      ref = core.routeMatchedElsewhere(pathKey, methods, route.url, routeOptions, routeLabel);
      fastifyRoutes.add(methods, route.url, route.constraints, ref);
    }
    route.config = { ...config, [ROUTE]: ref } as RouteOptions['config'];
    covered++;
    // A `'/'` route of a prefixed plugin comes here as `prefix` (routePath ''); fastify may add
    // its twin `prefix + '/'` next (not for a route declared as '' itself: hence the check later).
    const twinUrl =
      route.routePath === '' && route.prefix !== '' && route.method !== 'HEAD' && (route.prefixTrailingSlash ?? 'both') === 'both'
        ? `${route.prefix}/`
        : undefined;
    if (methods.includes('GET') && !methods.includes('HEAD')) lastGet = { url: route.url, declared, config: route.config, twinUrl };
    if (twinUrl !== undefined) twins.push({ methods, path: twinUrl, options: routeOptions, base: ref });
  });

  fastify.addHook('onReady', async function coverAndSeal(this: FastifyInstance) {
    refuseRoutesDeclaredBefore();
    coverTwins(this, true);
    // Sealed now, so no request pays for it and the table is complete before fastify serves.
    if (covered > 0) core.seal();
  });

  /** The constant headers given last, and their answer list: most applications have one such list. */
  let lastAnswer: readonly string[] | undefined;
  let lastHeaders: Record<string, string> = {};

  function libCorsOnRequest(request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction): void {
    const route = request.routeOptions;
    const config = route.config as unknown as RouteConfig | undefined;
    const entry = config?.[ROUTE] as RouteEntry | undefined;
    if (entry === undefined && route.url !== undefined) warnUnseen(route.method, route.url);
    if (entry === LEFT_OUT || covered === 0) return next();
    if (typeof entry === 'object' && request.raw.method !== 'OPTIONS') {
      const table = entry.table;
      // Observed (debug, a channel subscriber), every request goes through the engine, which reports it.
      if (!table.varyOnOrigin && !decisionsObserved(core)) {
        const answer = table.actualAnswer;
        if (answer !== lastAnswer) {
          let headers = constantHeaders.get(answer);
          if (headers === undefined) {
            headers = headersOf(answer);
            constantHeaders.set(answer, headers);
          }
          lastHeaders = headers;
          lastAnswer = answer;
        }
        // Given to fastify's own headers, they go out in its one writeHead(): a header set on
        // the raw response makes node:http set every other one of the answer one by one.
        reply.headers(lastHeaders);
        return next();
      }
      // An actual request on a covered route: the headers are set synchronously, or once an
      // async origin function has answered; either way next() is called.
      respond(core, table, request, reply.raw, (error?: unknown) => {
        keepEngineVary(reply.raw);
        next(error as Error | undefined);
      });
      return;
    }
    const optionsTable = tableOfOptions(request.raw, entry);
    if (optionsTable === undefined) return next();
    let handedOn = false;
    respond(core, optionsTable, request, reply.raw, (error?: unknown) => {
      handedOn = true;
      // Handed on to the application's own OPTIONS route, which fastify answers.
      keepEngineVary(reply.raw);
      next(error as Error | undefined);
    });
    // The engine answered itself (a preflight, a plain OPTIONS): fastify must not send again.
    // Still undecided means an async origin function is being asked: the engine then either
    // calls next() or ends the response, and fastify, never called back, sends nothing.
    if (!handedOn && reply.raw.writableEnded) reply.hijack();
  }
  if (libCorsOnRequest.name !== hookName) Object.defineProperty(libCorsOnRequest, 'name', { value: hookName });
  fastify.addHook('onRequest', libCorsOnRequest);

  /** Covers the twins fastify has now; at the end (`last`), drops those it never added. */
  function coverTwins(instance: FastifyInstance, last: boolean): void {
    const pending = twins;
    twins = [];
    for (const twin of pending) {
      const served = twin.methods.filter((method) => instance.hasRoute({ method: method as 'GET', url: twin.path }));
      if (served.length === 0) {
        if (!last) twins.push(twin);
      } else if (fastifyRoutes === undefined) {
        core.route(served, twin.path, twin.options, routeLabel);
      } else {
        // fastify's router finds the twin as the `prefix` route (its config a copy): FastifyRoutes tells it apart.
        fastifyRoutes.addTwin(served, twin.path, twin.base, core.routeMatchedElsewhere(pathKey, served, twin.path, twin.options, routeLabel));
      }
    }
  }

  /**
   * A route declared before the plugin loaded, in its context or below, was never mirrored: it
   * would answer with no CORS headers and leave its preflights to a 404. Found among the routes
   * fastify had when the plugin loaded: those that carry this registration's onRequest hook now
   * (fastify gives a context's hooks to its routes at start-up) are of its context; registered
   * in the root context, every route is below it, and those carrying no registration's hook
   * were declared in plugins loaded before it. Routes of sibling or parent contexts carry
   * neither and are left alone, as are those carrying another registration's hook (covered by
   * that one). If fastify's route listing cannot be read (a custom
   * buildPrettyMeta), the request-time message remains.
   */
  function refuseRoutesDeclaredBefore(): void {
    if (declaredBefore.size === 0) return;
    // The root instance is fastify's own object; every other context is created from its parent.
    const root = Object.getPrototypeOf(fastify) === Object.prototype;
    const unseen = new Map<string, string[]>();
    for (const route of printedRoutes(fastify, true).values()) {
      // `OPTIONS *`: the catch-all route of an earlier registration of the plugin (in another context).
      if (!declaredBefore.has(route.key) || route.key === 'OPTIONS *') continue;
      // A route that carries the hook of another registration too is covered by that one.
      const registrations = route.onRequest.filter((name) => /^libCorsOnRequest\d*\(\)$/.test(name));
      if (registrations.every((name) => name === `${hookName}()`) && (registrations.length > 0 || root)) {
        unseen.set(route.path, [...(unseen.get(route.path) ?? []), route.method]);
      }
    }
    if (unseen.size === 0) return;
    const names = [...unseen].map(([path, methods]) => `${methods.join(', ')} ${path}`);
    const shown = names.length > 5 ? `${names.slice(0, 5).join('; ')} and ${names.length - 5} more` : names.join('; ');
    for (const name of names) unseenNamed.add(name);
    throw new RouteRegistrationError(
      'CORS_ROUTE_BEFORE_PLUGIN',
      SOURCE,
      shown,
      `${names.length === 1 ? 'was' : 'were'} declared before the plugin was registered, so fastify never showed ${names.length === 1 ? 'it' : 'them'} to ` +
        `the plugin: ${names.length === 1 ? 'it' : 'they'} would get no CORS headers and ${names.length === 1 ? 'its' : 'their'} preflights no answer`,
      'await app.register(fastifyCors, options) before declaring routes and before registering the plugins that declare them (a route meant to ' +
        'have no CORS goes after it too, with config: { cors: false })',
    );
  }

  function warnUnseen(method: string | string[] | undefined, url: string): void {
    const name = `${Array.isArray(method) ? method.join(',') : method} ${url}`;
    if (unseenNamed.has(name)) return;
    unseenNamed.add(name);
    log.error(
      `${SOURCE}: the route ${name} was declared before the plugin was registered, so it has no CORS headers and its preflights are not answered. ` +
        'Fix: await app.register(fastifyCors, options) before declaring routes.',
    );
  }

  done();
}

/** One route as `fastify.printRoutes()` shows it. */
interface PrintedRoute {
  /** `GET /users/:id` plus its constraints: the same in every listing of the same route. */
  readonly key: string;
  readonly method: string;
  readonly path: string;
  /** The names of its onRequest hooks, as printed (`name()`); read only `withHooks`. */
  readonly onRequest: readonly string[];
}

/**
 * The routes fastify has, read from `printRoutes()`: fastify lists its routes nowhere else. The
 * tree is read as find-my-way prints it: a node per line (`├── key (GET, HEAD)`, indented four
 * characters a level), the full path being the keys from the root down; a second group of
 * routes on the same node, and each group's `• (onRequest) [...]`, on lines of their own.
 * Anything unexpected yields fewer routes, never a route that does not exist.
 */
function printedRoutes(fastify: FastifyInstance, withHooks: boolean): Map<string, PrintedRoute> {
  const routes = new Map<string, PrintedRoute>();
  let tree: string;
  try {
    tree = fastify.printRoutes(withHooks ? { commonPrefix: false, includeMeta: ['onRequest'] } : { commonPrefix: false });
  } catch {
    return routes;
  }
  const keys: string[] = [];
  let group: { path: string; methods: string[]; constraints: string } | undefined;
  let hooks: string[] = [];
  const flush = () => {
    if (group === undefined) return;
    for (const method of group.methods) {
      const key = `${method} ${group.path}${group.constraints}`;
      routes.set(key, { key, method, path: group.path, onRequest: hooks });
    }
    group = undefined;
    hooks = [];
  };
  for (const line of tree.split('\n')) {
    const match = /^((?:[│ ] {3})*)(?:([├└])── )?(.*)$/u.exec(line);
    if (match === null || match[3] === '') continue;
    const indent = match[1]!.length / 4;
    const content = match[3]!;
    const meta = /^• \(onRequest\) (.*)$/u.exec(content);
    if (meta !== null) {
      try {
        hooks = (JSON.parse(meta[1]!) as unknown[]).map(String);
      } catch {
        hooks = [];
      }
      continue;
    }
    if (content.startsWith('• ')) continue;
    flush();
    // A new node (after ├── or └──) at its depth, or another group of routes of the node above.
    const depth = match[2] === undefined ? indent - 1 : indent;
    const routesOfNode = / \(([A-Z]+(?:, [A-Z]+)*)\)( \{.*\})?$/.exec(content);
    const key = routesOfNode === null ? content : content.slice(0, routesOfNode.index);
    if (depth < 0) continue;
    keys.length = depth;
    keys.push(key);
    if (routesOfNode !== null) group = { path: keys.join(''), methods: routesOfNode[1]!.split(', '), constraints: routesOfNode[2] ?? '' };
  }
  flush();
  return routes;
}

/**
 * fastify writes a reply's headers over those set on the raw response (`setHeader()` each, by
 * `writeHead()` or for a stream), so a `Vary` a handler set with `reply.header()` would replace
 * the engine's: merged instead, the engine's fields first, then the handler's (the contract's rule
 * A; node-writer.ts's guard keeps the fields, this keeps the plugin's order, the engine's first).
 * Wrapped per request, only once the engine has set a Vary: an `onSend` hook did the same for
 * every route, bound to each one (about 110 bytes a route) and run on each of its requests.
 */
function keepEngineVary(raw: ServerResponse): void {
  const engineVary = raw.getHeader('vary');
  if (engineVary === undefined) return;
  const setHeader = raw.setHeader;
  raw.setHeader = function setHeaderKeepingVary(this: ServerResponse, name: string, value: number | string | readonly string[]) {
    return setHeader.call(this, name, typeof name === 'string' && name.toLowerCase() === 'vary' ? withEngineVary(String(engineVary), value) : value);
  };
}

function withEngineVary(engineVary: string, own: number | string | readonly string[]): number | string | readonly string[] {
  if (own === engineVary) return own;
  const fields = String(own).trim();
  try {
    return fields === '' ? engineVary : vary.append(engineVary, fields);
  } catch {
    // A Vary that is no list of header names: left as the handler set it.
    return own;
  }
}

/** Flat [name, value, ...] pairs as an object. */
function headersOf(pairs: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i < pairs.length; i += 2) headers[pairs[i]!] = pairs[i + 1]!;
  return headers;
}

/** The path matching of fastify's router, for the engine's table to match as fastify does. */
function matchingOf(fastify: FastifyInstance): PathMatching {
  const config = fastify.initialConfig as Readonly<Record<string, unknown>> & { routerOptions?: Readonly<Record<string, unknown>> };
  const matching: Record<string, unknown> = {};
  for (const field of MATCHING_FIELDS) {
    const value = config.routerOptions?.[field] ?? config[field];
    if (value !== undefined) matching[field] = value;
  }
  return matching as PathMatching;
}

/**
 * The plugin. Not encapsulated (like a `fastify-plugin` plugin): its hooks apply to the context
 * it is registered in, and to the routes declared there after it.
 */
export const fastifyCors: FastifyPluginCallback<FastifyCorsOptions> = Object.assign(fastifyCorsPlugin, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: SOURCE,
  [Symbol.for('plugin-meta')]: { fastify: '5.x', name: SOURCE },
});

export default fastifyCors;

// require('@lib/cors/fastify') is the plugin itself, as with every fastify plugin
// (`fastify.register(require('@lib/cors/fastify'))`), with `default`, `fastifyCors` and the error
// classes on it; TypeScript's and bundlers' interop still find `.default` through `__esModule`.
// (The package is CommonJS; import gets the same function through esm/fastify.mts.)
module.exports = Object.defineProperty(Object.assign(fastifyCors, exports), '__esModule', { value: true });
