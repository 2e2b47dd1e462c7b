/**
 * `@lib/cors/fastify`: the CORS engine as a fastify plugin (fastify 4.28 and 5). fastify is used
 * as documented and nothing of it is changed:
 * - its `onRoute` hook shows the plugin every route declared after it; the plugin gives the
 *   route's options its table, under its `config.cors` merged over the plugin's options field by
 *   field (`config.cors: false` leaves it out), and files its path (fastify-routes.ts);
 * - an `onRequest` hook answers each request: an actual request under the table of the route
 *   fastify runs for it (`request.routeOptions.config`), or the plugin's options where fastify
 *   runs none (a 404), as `@fastify/cors` does; a preflight or a plain `OPTIONS` under what every
 *   route the URL matches for the method allows (rule F of docs/CONTRACT.md), since no route has
 *   run yet to tell which of them will;
 * - an `OPTIONS *` route brings `OPTIONS` on a path without an `OPTIONS` route of the
 *   application's to that hook; where the engine hands such a request on, fastify answers 404.
 *
 * Register it with `await` before declaring the routes it should cover: fastify shows a plugin
 * only the routes declared after it. A route declared before gets no CORS headers, and a message
 * names it at its first request (fastify lists its routes to no plugin).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';

import type { FastifyInstance, FastifyPluginCallback, FastifyReply, FastifyRequest, FastifySchema, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import type FindMyWay from 'find-my-way';
import vary from 'vary';

import { controlsOf, CorsCore, findMyWayKeyFor, oneMethodList, routeLabel, type CorsControls } from '../core/cors-core.js';
import { requestKind, routingMethod } from '../core/decision.js';
import type { CorsLogger, CorsOptions } from '../core/options.js';
import { GLOBAL_METHODS } from '../core/path-table.js';
import { narrowedTable } from '../core/narrowing.js';
import { decisionsObserved } from '../diagnostics/channels.js';
import { CATCH_ALL, FastifyRouteIndex, LEFT_OUT, ROUTE, type RouteEntry, type RouterSettings } from './fastify-routes.js';
import { MarkersRun } from './markers.js';
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
const SOURCE = '@lib/cors/fastify';

type RouteConfig = Record<PropertyKey, unknown> & { cors?: unknown };
type RegisteredRoute = RouteOptions & { routePath: string; prefix: string };

function fastifyCorsPlugin(fastify: FastifyInstance, pluginOptions: FastifyCorsOptions, done: (error?: Error) => void): void {
  const { logger, debug, ...rest } = pluginOptions ?? {};
  const options: Record<string, unknown> = { ...rest };
  const logLevel = options.logLevel as RouteOptions['logLevel'];
  for (const name of REGISTER_OPTIONS) delete options[name];
  const settings = routerSettingsOf(fastify);
  const log = logger ?? console;
  let core: CorsCore;
  try {
    // Validates the options now: a bad one fails register(), and so ready() and listen().
    core = new CorsCore(options as CorsOptions<FastifyRequest>, { logger: log, debug, matching: settings, source: SOURCE });
  } catch (error) {
    done(error as Error);
    return;
  }
  // fastify.cors: reconfigure(), options() and setDebug() of this registration's engine (the
  // first one's, where the plugin is registered more than once in one context).
  if (!fastify.hasDecorator('cors')) fastify.decorate('cors', controlsOf<CorsOptions<FastifyRequest>>(core));

  // Asked before any route of the plugin's: true only for a host strategy of the application's.
  const routes = new FastifyRouteIndex(settings, findMyWayOf(fastify), fastify.hasConstraintStrategy('host'));
  const base = core.routeMatchedElsewhere({}, GLOBAL_METHODS, '*', undefined, 'the plugin');
  const run = new MarkersRun(core);
  /** How a route's path is filed with the engine: as fastify's router files it, so that its methods share one table. */
  const pathKey = findMyWayKeyFor(settings);
  // explain() and cors-check ask what a preflight would be granted: what every route matching there allows.
  core.lookUpWith((url, method = 'GET') => {
    const tables = routes.of(url, undefined).candidates.flatMap((found) => (found.kind === 'route' ? (found.methods.get(method) ?? []) : []));
    return tables.length === 0
      ? undefined
      : narrowedTable(
          tables.map((ref) => ref.table),
          method,
        );
  });
  /** `prefix/` twins of prefixed '/' routes, looked for at onReady. */
  const twins: { methods: readonly string[]; url: string; constraints: RouteOptions['constraints']; route: RegisteredRoute }[] = [];
  /** Routes covered; with none, the engine would cover every path, so the hooks stay idle. */
  let covered = 0;
  /** Routes declared before the plugin, each named once, at its first request. */
  const unseenNamed = new Set<string>();

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
   * route is given the GET's table, which decides HEAD on the path anyway.
   */
  let lastGet: { url: string; declared: unknown; config: RouteOptions['config']; slot: RouteEntry } | undefined;

  fastify.addHook('onRoute', function coverRoute(route: RegisteredRoute) {
    const declared = route.config;
    const config = (declared ?? {}) as RouteConfig;
    if (config[ROUTE] === CATCH_ALL) return;
    const methods = Array.isArray(route.method) ? [...route.method] : oneMethodList(route.method as string);
    const headOfLastGet = lastGet !== undefined && route.method === 'HEAD' && route.url === lastGet.url && declared === lastGet.declared;
    let slot: RouteEntry;
    if (headOfLastGet) {
      route.config = lastGet!.config;
      slot = lastGet!.slot;
    } else {
      const own = config.cors;
      const routeOptions = own === undefined || own === true ? undefined : (own as CorsOptions<FastifyRequest>);
      slot = own === false ? LEFT_OUT : core.routeMatchedElsewhere(pathKey, methods, route.url, routeOptions, routeLabel);
      // A copy: the config object may be the application's, shared between routes.
      route.config = { ...config, [ROUTE]: slot } as RouteOptions['config'];
    }
    lastGet = undefined;
    if (slot !== LEFT_OUT) covered++;
    // fastify 4 takes a route's `version` option for a version constraint after onRoute.
    const version = (route as { version?: string }).version;
    const constraints = version === undefined ? route.constraints : { ...route.constraints, version };
    routes.add(methods, route.url, constraints, route);
    // fastify may serve a prefixed plugin's '/' route at `prefix/` too, with this route's config,
    // not showing it to onRoute: looked for once fastify has its routes.
    if (route.routePath === '' && route.prefix !== '') twins.push({ methods, url: `${route.prefix}/`, constraints, route });
    if (methods.includes('GET') && !methods.includes('HEAD')) lastGet = { url: route.url, declared, config: route.config, slot };
  });

  fastify.addHook('onReady', async function sealTables() {
    for (const twin of twins) {
      // The twin's own path, found as a URL: each parameter takes its own name (`:id` for `:id`),
      // where a wildcard or another route's parameter would take something else.
      const served = twin.methods.filter((method) => {
        const found = fastify.findRoute({ method: method as 'GET', url: twin.url, constraints: twin.constraints });
        return found !== null && Object.entries(found.params ?? {}).every(([name, value]) => value === `:${name}`);
      });
      if (served.length > 0) routes.add(served, twin.url, twin.constraints, twin.route);
    }
    twins.length = 0;
    // Sealed now, so no request pays for it and the tables are complete before fastify serves.
    if (covered > 0) core.seal();
  });

  /** The constant headers given last, and their answer list: most applications have one such list. */
  let lastAnswer: readonly string[] | undefined;
  let lastHeaders: Record<string, string> = {};

  fastify.addHook('onRequest', function libCorsOnRequest(request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction): void {
    const route = request.routeOptions;
    const entry = (route.config as unknown as RouteConfig | undefined)?.[ROUTE] as RouteEntry | undefined;
    if (entry === undefined && route.url !== undefined) return warnUnseen(route.method, route.url, next);
    if (entry === LEFT_OUT || covered === 0) return next();
    const raw = request.raw;
    if (raw.method !== 'OPTIONS') {
      // The route fastify runs decides (a 404: the plugin's options).
      const table = typeof entry === 'object' ? entry.table : base.table;
      // Observed (debug, a channel subscriber), every request goes through the engine, which reports it.
      if (!table.varyOnOrigin && !decisionsObserved(core)) {
        reply.headers(constantHeadersOf(table.actualAnswer));
        return next();
      }
      // The headers are set synchronously, or once an async origin function has answered; either way next() is called.
      return respond(core, table, request, reply.raw, (error?: unknown) => {
        keepEngineVary(reply.raw);
        next(error as Error | undefined);
      });
    }
    // Registered in a context and again in one inside it, both hooks run: the outer one decides,
    // also where it hands the request on (a preflight a left-out route may run), which the inner
    // one must not answer. (An actual request's table is the route's own, the same to both.)
    if (decidedByAnother(raw, run)) return next();
    const kind = requestKind(raw.method, raw, readNodeHeader);
    const method = routingMethod(raw.method, raw, readNodeHeader);
    const matched = routes.of(raw.url ?? '/', raw.headers.host ?? (raw.headers[':authority'] as string | undefined));
    // A plain OPTIONS fastify runs the application's own OPTIONS route for is that route's; a
    // preflight for a method a left-out route may run is not the plugin's to answer.
    const table =
      kind !== 'preflight' && typeof entry === 'object'
        ? entry.table
        : kind === 'preflight' && matched.leftOut.has(method)
          ? undefined
          : run.answer(raw, kind, method, matched.candidates, base);
    if (table === undefined) return next();
    let handedOn = false;
    respond(core, table, request, reply.raw, (error?: unknown) => {
      handedOn = true;
      // Handed on to the application's own OPTIONS route, which fastify answers.
      keepEngineVary(reply.raw);
      next(error as Error | undefined);
    });
    // The engine answered itself (a preflight, a plain OPTIONS): fastify must not send again.
    // Still undecided means an async origin function is being asked: the engine then either
    // calls next() or ends the response, and fastify, never called back, sends nothing.
    if (!handedOn && reply.raw.writableEnded) reply.hijack();
  });

  /** The constant headers of `answer`, made once per answer list. */
  function constantHeadersOf(answer: readonly string[]): Record<string, string> {
    if (answer === lastAnswer) return lastHeaders;
    let headers = constantHeaders.get(answer);
    if (headers === undefined) {
      headers = headersOf(answer);
      constantHeaders.set(answer, headers);
    }
    lastAnswer = answer;
    lastHeaders = headers;
    return headers;
  }

  /** A route declared before the plugin: it is no route the plugin knows, so it gets nothing, and is named once. */
  function warnUnseen(method: string | string[] | undefined, url: string, next: HookHandlerDoneFunction): void {
    const name = `${Array.isArray(method) ? method.join(',') : method} ${url}`;
    if (!unseenNamed.has(name)) {
      unseenNamed.add(name);
      log.error(
        `${SOURCE}: the route ${name} was declared before the plugin was registered, so fastify never showed it to the ` +
          'plugin: it gets no CORS headers, and a preflight on its URL is answered from the routes the plugin knows, not from it. Fix: await app.register(fastifyCors, options) before ' +
          'declaring routes and before registering the plugins that declare them (a route meant to have no CORS goes after it too, with config: { cors: false }).',
      );
    }
    next();
  }

  done();
}

/**
 * fastify writes a reply's headers over those set on the raw response (`setHeader()` each, by
 * `writeHead()` or for a stream), so a `Vary` a handler set with `reply.header()` would replace
 * the engine's: merged instead, the engine's fields first, then the handler's (the contract's rule
 * A). Done on node:http's response of this request alone, once the engine has set a Vary: an
 * `onSend` hook would be bound to every route and run on each of its requests.
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

/**
 * fastify's router options that change which route a path matches: from `routerOptions` (fastify
 * 5.5 on) where given, else the top level. fastify's `initialConfig.routerOptions` lists every
 * field, those given at the top level with their defaults: a default there defers to the top level.
 */
function routerSettingsOf(fastify: FastifyInstance): RouterSettings {
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
function findMyWayOf(fastify: FastifyInstance): typeof FindMyWay {
  try {
    const fromFastify = createRequire(require.resolve('fastify/package.json'));
    if ((fromFastify('./package.json') as { version?: string }).version === fastify.version) return fromFastify('find-my-way') as typeof FindMyWay;
  } catch {
    // fastify bundled, or not resolvable from here.
  }
  return require('find-my-way') as typeof FindMyWay;
}

/** Requests the outermost registration of the plugin has seen: registrations inside it leave them to it. */
const seenByARegistration = new WeakMap<IncomingMessage, MarkersRun>();

/** Whether another registration (an outer one, whose hook ran first) decides `raw`. */
function decidedByAnother(raw: IncomingMessage, run: MarkersRun): boolean {
  const first = seenByARegistration.get(raw);
  if (first === undefined) seenByARegistration.set(raw, run);
  return first !== undefined && first !== run;
}

/**
 * The plugin. Not encapsulated (like a `fastify-plugin` plugin): its hooks apply to the context
 * it is registered in, and to the routes declared there after it.
 */
export const fastifyCors: FastifyPluginCallback<FastifyCorsOptions> = Object.assign(fastifyCorsPlugin, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: SOURCE,
  [Symbol.for('plugin-meta')]: { fastify: '>=4.28.0', name: SOURCE },
});

export default fastifyCors;

// require('@lib/cors/fastify') is the plugin itself, as with every fastify plugin
// (`fastify.register(require('@lib/cors/fastify'))`), with `default`, `fastifyCors` and the error
// classes on it; TypeScript's and bundlers' interop still find `.default` through `__esModule`.
// (The package is CommonJS; import gets the same function through esm/fastify.mts.)
module.exports = Object.defineProperty(Object.assign(fastifyCors, exports), '__esModule', { value: true });
