/**
 * `@lib/cors/hono`: one `app.use()` line before the routes of a hono app. hono is used as
 * documented and nothing of it is changed: its routes are read from `app.routes`, each URL's are
 * asked of its own router (`app.router.match()`), and a request is answered under what every
 * route matching it allows (rule F): the entry point never predicts which handler answers.
 */
import type { Answer } from '../core/answer.js';
import { controlsOf, CorsCore, type CoreSettings, type CorsControls, type TableRef } from '../core/cors-core.js';
import { requestKind, routingMethod } from '../core/decision.js';
import { RouteRegistrationError } from '../core/errors.js';
import { faultReporter } from '../core/line-limit.js';
import type { CorsOptions } from '../core/options.js';
import { GLOBAL_METHODS } from '../core/path-table.js';
import { answerFetchRequest, emptyAnswer, readFetchHeader, withAnswer } from './fetch-writer.js';
import { type Candidate, CandidateCache, MarkersRun, markRoute, type MaybeMarked, ROUTE_OPTIONS } from '../core/route-markers.js';

export * from './common-exports.js';
import type { ExplainsRoutes } from '../diagnostics/explain.js';
import { explainAmong } from './explain-routes.js';

export type HonoCorsSettings = Omit<CoreSettings, 'matching'>;

/** What the middleware reads of hono's Context (hono's own type fits it). */
export interface HonoContext {
  readonly req: {
    readonly raw: Request;
    readonly path: string;
    readonly method: string;
    /** The path the running handler (this middleware) was registered at, in the app that runs it (deprecated in hono 4.8 for `hono/route`'s, which reads the same). */
    readonly routePath?: string;
  };
  res: Response;
}

export type HonoMiddleware = (c: HonoContext, next: () => Promise<void>) => Promise<Response | undefined>;

export interface HonoCors extends ExplainsRoutes, CorsControls<CorsOptions<Request>>, HonoMiddleware {
  /**
   * A route's own options, merged over the middleware's: `app.post('/login', cors.route({
   * allowCredentials: true }), handler)`; with `app.use('/api/*', cors.route(options))`, the
   * options of the routes below that it runs before, as hono's own `cors()` is used.
   */
  route(options: CorsOptions<Request>): HonoMiddleware;
  /** Reads the app's routes now, instead of at the first request: a bad route option then throws here. */
  mirror(): HonoCors;
}

/** A route as hono records it (`app.routes`), and as its router hands it back. */
interface RouterRoute {
  readonly path: string;
  readonly method: string;
  readonly handler: MaybeMarked<Request> & { readonly __COMPOSED_HANDLER?: unknown };
}

interface HonoApp {
  readonly routes: readonly RouterRoute[];
  readonly router: { match(method: string, path: string): [[[unknown, RouterRoute], unknown][], ...unknown[]] };
}

/** One registration (`app.get(path, a, b)`: hono's consecutive entries of one method and path), as a candidate. */
interface Registration {
  readonly entries: readonly RouterRoute[];
  readonly candidate: Candidate | undefined;
}

/**
 * Validates `options` (throwing `CorsOptionsError` on a bad one) and returns the middleware for
 * `app`. An origin function is given the `Request`.
 */
export function createCors(app: unknown, options?: CorsOptions<Request>, settings: HonoCorsSettings = {}): HonoCors {
  const core = new CorsCore(options, { ...settings, source: settings.source ?? 'createCors() of @lib/cors/hono' });
  const honoApp = app as Partial<HonoApp> | null;
  if (honoApp === null || typeof honoApp !== 'object' || !Array.isArray(honoApp.routes) || typeof honoApp.router?.match !== 'function') {
    throw new RouteRegistrationError('CORS_NOT_A_ROUTER', core.source, app, 'is not a hono app', 'pass the app: app.use(createCors(app, options))');
  }
  const base = core.routeMatchedElsewhere({}, GLOBAL_METHODS, '*', undefined, 'createCors()');
  const run = new MarkersRun(core);
  let read: { size: number; candidates: CandidateCache; paths: ReadonlySet<string> } | undefined;
  const readApp = () => {
    const routes = (honoApp as HonoApp).routes;
    read = { size: routes.length, candidates: candidatesOf(run, honoApp as HonoApp), paths: new Set(routes.map((route) => route.path)) };
    return read;
  };

  const middleware = async function honoCors(c: HonoContext, next: () => Promise<void>): Promise<Response | undefined> {
    const request = c.req.raw;
    // Read at the first request, and again where routes were added since.
    let seen = read ?? readApp();
    if ((honoApp as HonoApp).routes.length !== seen.size) seen = readApp();
    // Run by another app (a sub-app's app.route() into its parent copies this middleware under its
    // prefix): its URLs are not the routes read, so nothing is answered, never another route's policy.
    const registeredAt = c.req.routePath;
    if (registeredAt !== undefined && !seen.paths.has(registeredAt)) {
      faultReporter(core.logger)(
        `${core.source}: the middleware runs in another app than the one given to createCors() (at ${registeredAt}); give that app its own`,
      );
      await next();
      return undefined;
    }
    const method = routingMethod(c.req.method, request, readFetchHeader);
    const kind = requestKind(c.req.method, request, readFetchHeader);
    const table = run.answer(request, kind, method, seen.candidates.of(c.req.path), base);
    if (table === undefined) {
      await next();
      return undefined;
    }
    const answered = answerFetchRequest(core, table, request);
    let answer: Answer = answered instanceof Promise ? await answered : answered;
    if (answer.status !== undefined) return emptyAnswer(answer);
    await next();
    // A marker no route read showed (one hono wrapped out of sight) narrowed the answer as it ran.
    const ran = run.answeredWith(request);
    if (ran !== table && kind === 'actual') {
      const narrowed = answerFetchRequest(core, ran!, request);
      answer = narrowed instanceof Promise ? await narrowed : narrowed;
    }
    // hono has caught the application's errors into c.res by now: they carry the grant too.
    const response = withAnswer(c.res, answer);
    if (response !== c.res) {
      // Cleared first: assigned over a response, hono merges that response's headers into the new
      // one (ours holds them already), and hono 4.0 deletes from the old one's, which throws on
      // immutable headers (Response.redirect()).
      c.res = undefined as unknown as Response;
      c.res = response;
    }
    return undefined;
  } as HonoCors;
  middleware.route = (routeOptions) => {
    core.checkRoute(GLOBAL_METHODS, '(cors.route())', routeOptions, 'cors.route()');
    // Two parameters: hono takes the marker for a middleware, not for the route's handler. The
    // answer already holds every marker the routes read show; one they do not (a route of a
    // sub-app with its own error handler, which hono 4.0 wraps out of sight) narrows it as it runs.
    const marker = markRoute((c: HonoContext, next: () => Promise<void>) => {
      if (!run.knows(marker)) run.narrowedBy(marker, routeOptions, c.req.raw, c.req.method);
      return next().then(() => undefined);
    }, routeOptions);
    return marker;
  };
  Object.assign(middleware, controlsOf<CorsOptions<Request>>(core));
  middleware.mirror = () => {
    readApp();
    return middleware;
  };
  middleware.explain = (request, options) => explainAmong(run, request, (read ?? readApp()).candidates.of((request.url ?? '/').split('?')[0]!), base, options);
  return middleware;
}

/**
 * The candidates of each path: the registrations hono's router matches on it, for any method
 * the app's routes name (a method none names runs only routes of every method), in the order they
 * were declared. A marker registered for every method (`app.use('/api/*', cors.route(o))`) gives
 * its options to the routes after it that have none.
 */
function candidatesOf(run: MarkersRun, app: HonoApp): CandidateCache {
  const registrations = registrationsOf(run, app.routes);
  const byEntry = new Map<RouterRoute, number>();
  registrations.forEach(({ entries }, index) => {
    for (const entry of entries) byEntry.set(entry, index);
  });
  const methods = [...new Set(app.routes.map((route) => route.method)), 'ALL'];
  return new CandidateCache((path, visit) => {
    const matched = new Set<number>();
    for (const method of methods) {
      for (const [[, entry]] of app.router.match(method, path)[0]) {
        const index = byEntry.get(entry);
        if (index !== undefined) matched.add(index);
      }
    }
    let underMarker = false;
    for (const index of [...matched].sort((a, b) => a - b)) {
      const candidate = registrations[index]!.candidate;
      if (candidate === undefined) continue;
      visit(underMarker && candidate.kind === 'route' ? { ...candidate, underMarker } : candidate);
      // A marker on a prefix (`app.use('/api/*', cors.route(o))`) gives its options to the routes
      // below it; one on every path ('/*', as a sub-app's app.use() mounted at '/' becomes) only
      // narrows: hono has merged every sub-app's routes into one list, whose origin it cannot tell.
      if (candidate.kind === 'marker' && registrations[index]!.entries[0]!.path !== '/*') underMarker = true;
    }
  });
}

/**
 * hono's entries grouped by registration, each as a candidate: a route (its last handler cannot
 * hand on, or a marker says it is the route: `app.get('/static/*', cors.route(o), serveStatic())`)
 * with its method (every method for `app.all()`) and its markers' tables; a marker registered for
 * every method with middleware only (`app.use('/api/*', cors.route(o))`); else nothing: middleware
 * decides nothing. hono answers HEAD with the GET route, so its HEAD routes give nothing.
 */
function registrationsOf(run: MarkersRun, routes: readonly RouterRoute[]): Registration[] {
  const registrations: Registration[] = [];
  const named = [...new Set(routes.map((route) => route.method).filter((method) => method !== 'ALL'))];
  const every = [...new Set([...GLOBAL_METHODS, 'OPTIONS', ...named])];
  for (let start = 0; start < routes.length; ) {
    const { method, path } = routes[start]!;
    const same = (at: number) => at < routes.length && routes[at]!.method === method && routes[at]!.path === path;
    // A registration's markers come first (`app.get(path, cors.route(o), handler)`), its handlers after.
    let end = start;
    while (same(end) && isMarker(routes[end]!)) end++;
    while (same(end) && !isMarker(routes[end]!)) end++;
    const entries = routes.slice(start, end);
    registrations.push({
      entries,
      candidate: method === 'HEAD' ? undefined : candidateOf(run, entries, method === 'ALL' ? every : [method], method === 'ALL'),
    });
    start = end;
  }
  return registrations;
}

function candidateOf(run: MarkersRun, entries: readonly RouterRoute[], methods: readonly string[], everyMethod: boolean): Candidate | undefined {
  const markers = entries.filter(isMarker);
  const path = entries[0]!.path;
  const refs = markers.map((entry) => run.register(targetOf(entry.handler), methods, path, 'hono', everyMethod));
  const last = entries.at(-1)!;
  // A handler taking next right after its marker in a registration of one method is the route the
  // marker is for; in app.use() and app.all() (every method) it is middleware of every URL below.
  const answers = !isMarker(last) && (!isMiddleware(targetOf(last.handler)) || (markers.length > 0 && last.method !== 'ALL'));
  if (!answers) {
    // Middleware: a marker for every method among it gives its options to the routes after it;
    // one for a method alone narrows that method of the routes of its URLs.
    const [ref] = refs;
    if (ref === undefined) return undefined;
    if (entries[0]!.method === 'ALL') return { kind: 'marker', ref };
  }
  const byMethod = new Map<string, readonly TableRef[] | undefined>();
  for (const method of methods) byMethod.set(method, refs.length === 0 ? undefined : refs);
  if (entries[0]!.method === 'ALL') byMethod.set('*', refs.length === 0 ? undefined : refs);
  return { kind: 'route', methods: byMethod, passesOn: false, underMarker: false };
}

function isMarker(route: RouterRoute): boolean {
  return targetOf(route.handler)[ROUTE_OPTIONS] !== undefined;
}

/** hono's own rule (hono/utils/handler): a handler that takes `next` is a middleware. */
function isMiddleware(handler: RouterRoute['handler']): boolean {
  return handler.length > 1;
}

/** A sub-app's handler that hono wrapped (app.route() with its own error handler) is read through the wrapper. */
function targetOf(handler: RouterRoute['handler']): RouterRoute['handler'] {
  const inner = handler.__COMPOSED_HANDLER;
  return typeof inner === 'function' ? targetOf(inner as RouterRoute['handler']) : handler;
}
