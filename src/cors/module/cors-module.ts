/** CorsModule: hands each importing module's routes and options to the application's engine, and adds the OPTIONS twins; decides nothing. */
import {
  inject,
  injectable,
  Injector,
  isValueProvider,
  optional,
  providerToken,
  readDependencies,
  tokenName,
  type Class,
  type DynamicModule,
  type InitHook,
  type Provider,
} from '@lib/core';
import { restModule, type RestInitContext, type RouteInfo, type RouteStep } from '@lib/rest';

import type { IncomingMessage, ServerResponse } from 'node:http';

import { CorsCore, findMyWayKey, oneMethodList, type TableRef } from '../core/cors-core.js';
import { routingMethod, tableOfMethod } from '../core/decision.js';
import { CorsOptionsError, labelText, OptionProblems, type RouteLabel } from '../core/errors.js';
import { type PathTable, withAllow } from '../core/path-table.js';
import { SharedUrls } from '../core/route-overlaps.js';
import type { PathLookup } from '../core/route-tree.js';
import { CorsOptions, mergeCorsOptions, type AnyCorsOptions, type CorsLogger } from '../core/options.js';
import { compileUserOptions } from '../core/policy.js';
import { warnOnceAboutWildcard } from '../entry/credentials.js';
import { readNodeHeader, respond } from '../entry/node.js';
import { endEmpty } from '../entry/node-writer.js';
import { CorsService } from './cors-service.js';
import { layerCorsOptions } from './layers.js';
import { ApplicationCors, type ModuleCors, type TableOnUrl } from './application-cors.js';
import { CORS_DEBUG, CORS_LOGGER, CORS_MODULE_OPTIONS } from './tokens.js';

/**
 * Runs once for each module importing CorsModule: hands that module's routes, with their
 * route-level options, to the application's engine; adds the OPTIONS twins; puts the engine in
 * front of the router (once). No CORS decision is made here.
 */
@injectable()
class CorsInitHook implements InitHook<RestInitContext> {
  constructor(
    private readonly application: ApplicationCors,
    @optional() @inject(CORS_MODULE_OPTIONS) private readonly options?: CorsOptions,
    @optional() @inject(CORS_LOGGER) private readonly logger?: CorsLogger,
    @optional() @inject(CORS_DEBUG) private readonly debug?: boolean,
  ) {}

  onInit(context: RestInitContext): void {
    const moduleName = tokenName(context.module);
    const logger = this.logger ?? console;
    // The module's own options are checked (and warned about) here, once, under their own name.
    const { options: baseOptions, policy: basePolicy } = compileUserOptions(this.options ?? {}, {
      source: `CorsModule.withOpts() imported by ${moduleName}`,
      logger,
    });
    if (context.routes.length === 0) return;
    let core = this.application.core;
    if (core === undefined) {
      core = this.application.core = new CorsCore({}, { logger, source: 'CorsModule', debug: this.debug });
      // The host's router finds a request's route, the route its table: no second tree of the paths.
      core.lookUpWith(hostLookup(context, this.application.tables, this.application.methods));
      this.application.tableOnUrl = urlTables(context, this.application.tables, this.application.methods);
      this.application.matchRoute = context.matchRoute;
      context.addRouteStep(routeStep(core, context, this.application.tables, this.application.tableOnUrl));
    }
    core.knowPolicy(baseOptions, basePolicy);
    const module: ModuleCors = { options: baseOptions };

    const credentialed = credentialedPaths(context.routes);
    const wildcardCookieRoutes: string[] = [];
    const explicitOptions = new Set<string>();
    const paths = new Set<string>();
    // Rule D, for these options now and for those of each reconfigure(): the engine replays this.
    const credentialsFinish = (options: AnyCorsOptions): AnyCorsOptions =>
      options.allowCredentials === undefined && acceptsCredentials(options.origin) ? mergeCorsOptions(options, { allowCredentials: true }) : options;
    const asGiven = (options: AnyCorsOptions): AnyCorsOptions => options;
    // Routes without options of their own share one options source per finish: not a closure each.
    const shared = new Map<typeof asGiven, ReturnType<ApplicationCors['routeOptions']>>();
    const { tables, modules, methods } = this.application;
    // Labels are made only for an error message: two functions a controller, not a string a route.
    const labels = new Map<Class | undefined, { plain: RouteLabel; credentialed: RouteLabel }>();
    const labelsOf = (controller: Class | undefined) => {
      let made = labels.get(controller);
      if (made === undefined) {
        const by = `${controller === undefined ? 'a route added by an init hook' : tokenName(controller)} in ${moduleName}`;
        made = {
          plain: (methods, path) => `${methods.join(',')} ${path} (${by})`,
          credentialed: (methods, path) =>
            `${methods.join(',')} ${path} (${by}; answers with credentials, its path having a controller that takes CorsService)`,
        };
        labels.set(controller, made);
      }
      return made;
    };
    // The routes of a controller share their providers: most have no CorsOptions among them.
    const withLayers = new Map<readonly Provider[], boolean>();
    for (const route of context.routes) {
      const routeLabels = labelsOf(route.controller);
      let source = routeLabels.plain;
      let hasLayers = withLayers.get(route.providers);
      if (hasLayers === undefined) {
        hasLayers = route.providers.some((provider) => providerToken(provider) === CorsOptions);
        withLayers.set(route.providers, hasLayers);
      }
      const layer = hasLayers ? routeOptions(route, labelText(source, [route.method], route.path)) : undefined;
      const credentials = credentialed.has(route.path);
      const finish = credentials ? credentialsFinish : asGiven;
      const options = layer === undefined ? baseOptions : mergeCorsOptions(baseOptions, layer);
      if (credentials) {
        if (finish(options) !== options) {
          source = routeLabels.credentialed;
        } else if (options.origin === undefined || options.origin === '*') {
          wildcardCookieRoutes.push(`${route.method} ${route.path}`);
        }
      }
      let optionsSource = layer === undefined ? shared.get(finish) : undefined;
      if (optionsSource === undefined) {
        optionsSource = this.application.routeOptions(module, layer, finish);
        if (layer === undefined) shared.set(finish, optionsSource);
      }
      tables.set(route, core.routeMatchedElsewhere(findMyWayKey, oneMethodList(route.method), route.path, optionsSource, source));
      modules.set(route, module);
      if (!methods.includes(route.method)) methods.push(route.method);
      paths.add(route.path);
      if (route.method === 'OPTIONS') explicitOptions.add(route.path);
    }
    if (wildcardCookieRoutes.length > 0) {
      const one = wildcardCookieRoutes.length === 1;
      const routes = one ? wildcardCookieRoutes[0] : `${wildcardCookieRoutes.slice(0, -1).join(', ')} and ${wildcardCookieRoutes.at(-1)}`;
      warnOnceAboutWildcard(
        logger,
        `CorsModule in ${moduleName}: ${routes} ${one ? 'belongs to a controller that takes' : 'belong to controllers that take'} CorsService to set ` +
          `cookies, but ${one ? 'its' : 'their'} CORS origin is '*', and browsers refuse credentials under '*'. List the origins that may send ` +
          `credentials, e.g. CorsModule.withOpts({ origin: ['https://app.example.com'] }).`,
      );
    }
    const engine = core;
    const tableOnUrl = this.application.tableOnUrl!;
    for (const path of explicitOptions) paths.delete(path);
    // Listed as routes (the specification's twins), served through each path's own routes.
    if (paths.size > 0) context.addRouteOnPaths('OPTIONS', paths, (ctx) => respondToOptions(engine, context, tableOnUrl, ctx.rawReq, ctx.rawRes));
  }
}

/**
 * The engine's lookup through the host's router: the route `method` runs (a preflight's, the
 * one it asks for), else, where no route serves the method there, a route of any method the
 * modules' routes have, as the path's table answers for every method; `undefined` where the path
 * is no importing module's, and where the route that runs `method` is another module's: a
 * module without CorsModule gets no CORS answer, and no grant for its routes.
 */
function hostLookup(context: RestInitContext, tables: ReadonlyMap<RouteInfo, TableRef>, methods: readonly string[]): PathLookup {
  return (url, method) => {
    const route = method === undefined ? undefined : context.matchRoute(method, url);
    if (route !== undefined) return tables.get(route)?.table;
    for (const other of methods) {
      if (other === method) continue;
      const table = tableOfRoute(context, tables, other, url);
      if (table !== undefined) return table;
    }
    return undefined;
  };
}

/** The table of the route the host's router runs for `method` on `url`, where that route is an importing module's. */
function tableOfRoute(context: RestInitContext, tables: ReadonlyMap<RouteInfo, TableRef>, method: string, url: string): PathTable | undefined {
  const route = context.matchRoute(method, url);
  return route === undefined ? undefined : tables.get(route)?.table;
}

/** TableOnUrl for the modules' routes, each matched as the host's router matches it. */
function urlTables(context: RestInitContext, tables: ReadonlyMap<RouteInfo, TableRef>, methods: readonly string[]): TableOnUrl {
  const sharedUrls = new SharedUrls(() => [...tables.keys()].map((other) => other.path), {});
  return (table, method, url) => sharedUrls.tableOn(table, method, url, methods, (other) => tableOfRoute(context, tables, other, url));
}

/**
 * The engine between the host's router and the route: the route the router found leads to its
 * table, with no lookup of the engine's own; only where it is no importing module's (a preflight,
 * a method the path lacks) does the engine look through the path's other routes.
 */
function routeStep(core: CorsCore, context: RestInitContext, tables: ReadonlyMap<RouteInfo, TableRef>, tableOnUrl: TableOnUrl): RouteStep {
  let sealed = false;
  return (req, res, route, next) => {
    // Sealing drops what registration needed; the engine's own lookup would have done it here.
    if (!sealed) {
      core.seal();
      sealed = true;
    }
    if (route !== undefined) {
      const ref = tables.get(route);
      // A route of a module that does not import CorsModule: whatever covered path shares its URL,
      // the route that runs decides, and it asked for no CORS.
      return ref === undefined ? next() : respond(core, ref.table, req, res, next);
    }
    // The router has just shown that the request's own method leads to no table here, so the
    // engine asks for the path's routes of the other methods; a preflight, for the route of the
    // method it asks for first (on a URL two paths share, that may be another path's).
    const url = req.url ?? '/';
    const method = req.method === 'OPTIONS' ? routingMethod(req.method, req, readNodeHeader) : undefined;
    // A plain OPTIONS ran the path's generated OPTIONS route, which has no table: the other methods' are looked through.
    const table = core.lookup(url, method === 'OPTIONS' ? undefined : method);
    if (table === undefined) return next();
    // An OPTIONS request on a URL that routes of several paths match is answered as that URL's.
    respond(
      core,
      method === undefined ? table : method === 'OPTIONS' ? hostAllowed(context, tableOnUrl(table, method, url), url) : tableOnUrl(table, method, url),
      req,
      res,
      next,
    );
  };
}

/**
 * `table` answering a plain OPTIONS with the `Allow` the host gives a 405 on `url`: one list,
 * whichever answers, where routes of modules without CorsModule serve the URL too.
 */
function hostAllowed(context: RestInitContext, table: PathTable, url: string): PathTable {
  const allow = context.allowOn(url);
  return allow === undefined || allow === table.allow ? table : withAllow(table, allow);
}

/**
 * Answers OPTIONS on a covered path as its generated twin: `Allow` and an empty success. Reached
 * only when the engine hands the request on (a preflight with `preflightContinue`).
 */
function respondToOptions(core: CorsCore, context: RestInitContext, tableOnUrl: TableOnUrl, req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const table = core.lookup(url);
  if (table === undefined) return endEmpty(res, 404);
  // Every method the URL is served with, as a plain OPTIONS there is answered.
  res.setHeader('Allow', hostAllowed(context, tableOnUrl(table, 'OPTIONS', url), url).allow);
  if (req.headers.origin === undefined || req.headers['access-control-request-method'] === undefined) return endEmpty(res, 204);
  // A preflight's status is that of the policy that decided it, found as routeStep() found it.
  const method = routingMethod('OPTIONS', req, readNodeHeader);
  const decided = tableOfMethod(tableOnUrl(core.lookup(url, method) ?? table, method, url), method);
  endEmpty(res, decided.policy.optionsSuccessStatus);
}

/**
 * Paths with a route whose controller takes CorsService: they answer with credentials (rule D),
 * preflights included. Per path, because a browser caches one CORS answer per URL.
 */
function credentialedPaths(routes: readonly RouteInfo[]): Set<string> {
  const paths = new Set<string>();
  // Read once per controller: its routes may be thousands.
  const takesService = new Map<Class, boolean>();
  for (const route of routes) {
    const controller = route.controller;
    if (controller === undefined) continue;
    let takes = takesService.get(controller);
    if (takes === undefined) {
      takes = readDependencies(controller).some((dependency) => dependency.token === CorsService);
      takesService.set(controller, takes);
    }
    if (takes) paths.add(route.path);
  }
  return paths;
}

/** A policy that names origins (not '*', not CORS off) can grant credentials to them. */
function acceptsCredentials(origin: AnyCorsOptions['origin']): boolean {
  return origin !== undefined && origin !== '*' && origin !== false;
}

/** The route's `CorsOptions` providers, module's first then controller's, merged field by field. */
function routeOptions(route: RouteInfo, source: string): AnyCorsOptions | undefined {
  const layers = route.providers
    .filter((provider) => providerToken(provider) === CorsOptions)
    .map((provider) => (isValueProvider(provider) ? provider.useValue : Injector.create([provider], route.injector).get(CorsOptions)));
  return layers.length === 0 ? undefined : layerCorsOptions(layers, source);
}

/**
 * CORS and OPTIONS for the routes of the module that imports it: every route gets an OPTIONS
 * twin on its path, with the defaults, `withOpts()` options, or route-level `CorsOptions`
 * provided in `providersPerRou` (module's, then a controller's).
 */
@restModule({ initHooks: [CorsInitHook], providersPerApp: [ApplicationCors], providersPerReq: [CorsService], exports: [CorsService] })
// biome-ignore lint/complexity/noStaticOnlyClass: a module is a decorated class, imported by name (the specification's API)
export class CorsModule {
  static withOpts(options: CorsOptions): DynamicModule {
    // A missing configuration section (withOpts(config.cors)) must not serve the defaults ('*').
    if (options === undefined || options === null) {
      const problems = new OptionProblems('CorsModule.withOpts()');
      problems.report(
        'CORS_OPTIONS_NOT_OBJECT',
        '(options)',
        options,
        'is not an options object (a configuration section that is not set?), and would serve the defaults: every origin',
        "pass the options, e.g. CorsModule.withOpts({ origin: ['https://app.example.com'] }); or import CorsModule itself for the defaults",
      );
      throw CorsOptionsError.of('CorsModule.withOpts()', problems.list);
    }
    return { module: CorsModule, providersPerMod: [{ token: CORS_MODULE_OPTIONS, useValue: options }] };
  }
}
