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
import type { IncomingMessage } from 'node:http';

import type { FastifyInstance, FastifyPluginCallback, FastifyReply, FastifyRequest, FastifySchema, HookHandlerDoneFunction, RouteOptions } from 'fastify';

import { controlsOf, CorsCore, findMyWayKeyFor, oneMethodList, routeLabel, type CorsControls } from '../core/cors-core.js';
import { requestKind, routingMethod } from '../core/decision.js';
import type { CorsLogger, CorsOptions } from '../core/options.js';
import { GLOBAL_METHODS } from '../core/path-table.js';
import { decisionsObserved } from '../diagnostics/channels.js';
import { CATCH_ALL, FastifyRouteIndex, findMyWayOf, LEFT_OUT, ROUTE, routerSettingsOf, type RouteEntry } from './fastify-routes.js';
import { MarkersRun } from '../core/route-markers.js';
import { readNodeHeader, respond } from './node.js';
import { headersObjectOf } from './node-writer.js';

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

/** fastify's options for `register()` itself, which reach the plugin with its own (`logLevel` is used: see below). */
const REGISTER_OPTIONS = ['prefix', 'logLevel', 'logSerializers'] as const;
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
  core.lookUpWith((url, method = 'GET') => routes.narrowedFor(url, method));
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
    // fastify may serve a prefixed plugin's '/' route at `prefix/` too, not showing it to onRoute.
    if (route.routePath === '' && route.prefix !== '') routes.addTwin(methods, `${route.prefix}/`, constraints, route);
    if (methods.includes('GET') && !methods.includes('HEAD')) lastGet = { url: route.url, declared, config: route.config, slot };
  });

  fastify.addHook('onReady', async function sealTables() {
    routes.fileTwins((method, url, constraints) => fastify.findRoute({ method: method as 'GET', url, constraints }));
    // Sealed now, so no request pays for it and the tables are complete before fastify serves.
    if (covered > 0) core.seal();
  });

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
        reply.headers(headersObjectOf(table.actualAnswer));
        return next();
      }
      // The headers are set synchronously, or once an async origin function has answered; either way next() is called.
      return respond(core, table, request, reply.raw, next as (error?: unknown) => void);
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
      // Handed on to the application's own OPTIONS route, which fastify answers.
      handedOn = true;
      next(error as Error | undefined);
    });
    // The engine answered itself (a preflight, a plain OPTIONS): fastify must not send again.
    // Still undecided means an async origin function is being asked: the engine then either
    // calls next() or ends the response, and fastify, never called back, sends nothing.
    if (!handedOn && reply.raw.writableEnded) reply.hijack();
  });

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
