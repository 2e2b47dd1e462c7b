/**
 * Property-based, through the frameworks' own routers: random route sets (statics, parameters,
 * trailing wildcards, and routes of routers mounted at a prefix: `express.Router()`, a nested
 * @koa/router router, some strict and case-sensitive; routes of every method, and HEAD routes,
 * which both frameworks leave HEAD to when declared before a GET route of their path and pass over
 * when declared after it), each route under one of a few policies,
 * served by Express 5, Express 4 and Koa with @koa/router over HTTP, its routers as they come, with
 * `exclusive: true` (the last matched layer runs alone) and with `exclusive: 'specificity'` (the
 * first with the fewest parameters), and in Koa the routers' own middleware (`router.use()`), which
 * an exclusive router may run alone, no route then. Each handler names its route,
 * so every request shows which route the framework ran: the answer must carry that route's policy,
 * a preflight must list no method that runs under another policy on its URL, and `Allow` no method
 * the URL is not served with (docs/CONTRACT.md, rule E, "One URL, several paths"). Each policy
 * answers one fixed origin, so `Access-Control-Allow-Origin` names the policy that decided.
 * Nothing here models how a framework matches: which route runs is read from the answers. Only the
 * order routes are declared in, which routes share a path, and which of the routes seen running on
 * a URL the router's rule picks for a method, are worked out here.
 */
import { once } from 'node:events';
import { connect } from 'node:net';

import Router from '@koa/router';
import express5 from 'express';
import express4 from 'express4';
import fc from 'fast-check';
import Koa from 'koa';
import t, { type Test } from 'tap';

import { createCors as createExpressCors } from '@lib/cors/express';
import { createCors as createKoaCors } from '@lib/cors/koa';

import { type Answer, serve } from '../../helpers/http.js';
import { KOA_SPECIFICITY, KOA_WILDCARD } from '../../helpers/installed-versions.js';

const METHODS = ['GET', 'PUT', 'DELETE', 'POST'] as const;
/**
 * What a route is declared with: a method, HEAD (`app.head()`, `router.head()`), or every method
 * (`app.all()`, `router.all()`).
 */
const ROUTE_METHODS = [...METHODS, 'HEAD', 'ALL'] as const;
/**
 * In Koa, a router's own middleware too (`router.use(path, middleware)`), which hands on: it serves
 * no request itself, and has no policy, but an exclusive router counts it among the layers it
 * chooses the one to run from.
 */
const KOA_ROUTE_METHODS = [...ROUTE_METHODS, 'USE'] as const;
type Method = (typeof KOA_ROUTE_METHODS)[number];
/**
 * Every method a request is sent with: PATCH, which only a route of every method runs; HEAD, which
 * runs the first route of HEAD, GET or every method the framework tries.
 */
const PROBED = [...METHODS, 'PATCH', 'HEAD'] as const;
const POLICIES = [0, 1, 2].map((index) => `https://p${index}.test`);
const STRANGER = 'https://x.test';
const URL_SEGMENTS = ['a', 'me', '7'];
const quiet = { warn: () => {}, error: () => {} };
/** Route sets per framework: each run starts a server and sends some 350 requests. */
const RUNS = 50;

/** A segment of a declared path: a static one, or a parameter. */
type Segment = 'a' | 'me' | 'param';

interface RouteSpec {
  /**
   * The router the route is declared on, mounted at a static prefix or a parameter, one of two
   * there: router 0 with the defaults, router 1 strict and case-sensitive (STRICT); `undefined` for
   * a route of the application itself.
   */
  readonly mount: { readonly at: Segment; readonly router: 0 | 1 } | undefined;
  /** The path's segments under the mount; none is `/`. */
  readonly segments: readonly Segment[];
  /** Whether the last segment is a trailing wildcard instead. */
  readonly wildcard: boolean;
  readonly method: Method;
  readonly policy: number;
}

/**
 * @koa/router's `exclusive` option: `false` runs every layer matching a request in turn, each
 * handing on with next() (as Express runs its routes); `true` runs the last alone; 'specificity'
 * the first of those with the fewest parameters (its _buildMiddlewareChain()).
 */
type Exclusive = false | true | 'specificity';

/** A framework, as the property sets it up. */
interface Framework {
  /** What its routes are declared with. */
  readonly methods: readonly Method[];
  /** How its router runs the routes matching a request: Express's always as `false`. */
  readonly exclusive: Exclusive;
  /**
   * Its entry point answers a request under what every route matching it allows (rule F: Express),
   * never predicting which one runs: an answer then names the policy of the route that ran, or
   * none where another matching route's policy differs. Off every route, the middleware's options
   * (here `'*'`) answer actual requests, as `cors` does.
   */
  readonly narrows: boolean;
  /** The application of `routes`, the CORS middleware first, as a node:http listener. */
  start(routes: readonly RouteSpec[]): Parameters<typeof serve>[0];
  /**
   * What makes two routes one path in the framework, as the engine keys a path's table: in
   * Express a router's own path, each router apart; @koa/router copies a nested router's routes
   * into its parent, prefix and all, so there the whole path (parameters alike whatever their name).
   */
  pathKey(spec: RouteSpec): string;
}

/**
 * A path in a framework's syntax. Parameters are named by position, so one path is spelled alike
 * wherever it is declared (routes of one path share their table) and no path repeats a name.
 */
function pathOf(spec: Pick<RouteSpec, 'segments' | 'wildcard'>, wildcard: string): string {
  const spelled = spec.segments.map((segment, index) => (segment === 'param' ? `:p${index}` : segment));
  if (spec.wildcard) spelled[spelled.length - 1] = wildcard;
  return `/${spelled.join('/')}`;
}

const prefixOf = (mount: NonNullable<RouteSpec['mount']>): string => (mount.at === 'param' ? '/:m' : `/${mount.at}`);

/** Which router a mounted route is declared on. */
const routerOf = (mount: NonNullable<RouteSpec['mount']>): string => `${prefixOf(mount)}#${mount.router}`;

/** The route's label in messages, the same in every framework; a middleware's, which has no policy, without one. */
const labelOf = (spec: RouteSpec): string =>
  `${spec.method} ${spec.mount === undefined ? '' : `[${routerOf(spec.mount)}]`}${pathOf(spec, '*')}${spec.method === 'USE' ? '' : ` p${spec.policy}`}`;

/**
 * The route's parameters, as @koa/router counts them for 'specificity' (a layer's `paramNames`):
 * its own, the trailing wildcard's (one, named), and the mount's.
 */
function parametersOf(spec: RouteSpec): number {
  const last = spec.segments.length - 1;
  const own = spec.segments.filter((segment, index) => segment === 'param' && !(spec.wildcard && index === last)).length;
  return own + (spec.wildcard ? 1 : 0) + (spec.mount?.at === 'param' ? 1 : 0);
}

/** Whether `spec` is a route that runs for `method` where its path matches: HEAD runs a GET route too. */
const serves = (spec: RouteSpec, method: string): boolean => spec.method === method || spec.method === 'ALL' || (method === 'HEAD' && spec.method === 'GET');

/** The route's own path in its router. */
const routerPathKey = (spec: RouteSpec): string => `${spec.mount === undefined ? '' : routerOf(spec.mount)} ${pathOf(spec, '*')}`;

/** The options of the routers mounted as router 1: trailing slashes and case then tell paths apart. */
const STRICT = { express: { strict: true, caseSensitive: true }, koa: { strict: true, sensitive: true } };

/**
 * The whole path, prefix and all, its parameters alike, and its router's options, which its
 * pattern is compiled with. A router's `/` under a prefix is the prefix itself, or with a strict
 * router the prefix and `/` (@koa/router's Layer._applyPrefix()).
 */
function wholePathKey(spec: RouteSpec): string {
  const strict = spec.mount?.router === 1;
  const whole = pathOf({ segments: spec.mount === undefined ? spec.segments : [spec.mount.at, ...spec.segments], wildcard: spec.wildcard }, '*');
  return `${strict ? 'strict ' : ''}${whole}${strict && spec.segments.length === 0 ? '/' : ''}`.replace(/:p\d/g, ':');
}

const segment = fc.constantFrom<Segment>('a', 'me', 'param');

const mount = fc.record({ at: segment, router: fc.constantFrom<0 | 1>(0, 1) });

/** On the application: one to three segments. Under a mount, which takes one segment: none to two. */
const routeSpec = (methods: readonly Method[]): fc.Arbitrary<RouteSpec> =>
  fc.option(mount, { nil: undefined, freq: 2 }).chain((mount) =>
    fc
      .record({
        mount: fc.constant(mount),
        segments: fc.array(segment, { minLength: mount === undefined ? 1 : 0, maxLength: mount === undefined ? 3 : 2 }),
        wildcard: fc.boolean(),
        method: fc.constantFrom(...methods),
        policy: fc.nat({ max: POLICIES.length - 1 }),
      })
      .map((spec) => ({ ...spec, wildcard: spec.wildcard && spec.segments.length > 0 })),
  );

/**
 * A route, perhaps on the path of a route declared before it (`samePathAs`, an index counted round
 * the routes before): random paths seldom meet, and which of a path's routes answers a method (a
 * HEAD route or a GET route for HEAD, a named route or a route of every method) is decided only
 * among routes of one path.
 */
const routeEntry = (methods: readonly Method[]) =>
  fc.record({
    spec: routeSpec(methods),
    samePathAs: fc.oneof({ arbitrary: fc.constant(null), weight: 1 }, { arbitrary: fc.nat(), weight: 1 }),
  });

/**
 * Route sets the engine accepts, one route of a method on a path. It refuses (CORS_ROUTE_CONFLICT)
 * a method declared twice on one path under different policies, and so a route of every method
 * declared before a route of its path that names a method under another policy: which of the two
 * decides would depend on whether the first hands the request on. Declared after, it leaves that
 * method to the route before it. A HEAD route and a GET route of one path are no conflict: the
 * first declared answers HEAD. Under an exclusive router the engine refuses none of that: it runs one route alone,
 * which no next() decides, so the route of every method and the named route each run for the
 * methods the router gives them.
 */
const routeSets = (framework: Framework) =>
  fc
    .array(routeEntry(framework.methods), { minLength: 1, maxLength: 8 })
    .map((entries) => {
      const routes: RouteSpec[] = [];
      for (const { spec, samePathAs } of entries) {
        const model = samePathAs === null || routes.length === 0 ? spec : routes[samePathAs % routes.length]!;
        const route = { ...spec, mount: model.mount, segments: model.segments, wildcard: model.wildcard };
        const key = `${route.method} ${framework.pathKey(route)}`;
        if (!routes.some((other) => `${other.method} ${framework.pathKey(other)}` === key)) routes.push(route);
      }
      return routes;
    })
    .filter((routes) => {
      if (framework.exclusive !== false) return true;
      const order = frameworkOrder(routes);
      return !order.some(
        (every, index) =>
          every.method === 'ALL' &&
          order
            .slice(index + 1)
            .some(
              (named) =>
                named.method !== 'ALL' && named.method !== 'USE' && framework.pathKey(named) === framework.pathKey(every) && named.policy !== every.policy,
            ),
      );
    });

/** A route of the application's `/a` or `/a/:p1`, or of `/me` on a strict router mounted at `/a`. */
const routeOn = (path: '/a' | '/a/:p1' | '[/a#1]/me', method: Method, policy: number): RouteSpec =>
  path === '[/a#1]/me'
    ? { mount: { at: 'a', router: 1 }, segments: ['me'], wildcard: false, method, policy }
    : { mount: undefined, segments: path === '/a' ? ['a'] : ['a', 'param'], wildcard: false, method, policy };

/**
 * Route sets run before the random ones, so that HEAD is always sent where a HEAD route and a GET
 * route of one path were declared in either order (the first answers HEAD), and where they are of
 * two paths that share a URL (the first the framework tries answers).
 */
const HEAD_EXAMPLES: RouteSpec[][] = [
  [routeOn('/a', 'GET', 0), routeOn('/a', 'HEAD', 1)],
  [routeOn('/a', 'HEAD', 1), routeOn('/a', 'GET', 0)],
  [routeOn('/a', 'HEAD', 1), routeOn('/a', 'PUT', 2), routeOn('/a', 'GET', 0), routeOn('/a', 'ALL', 0)],
  [routeOn('[/a#1]/me', 'GET', 2), routeOn('[/a#1]/me', 'HEAD', 1), routeOn('/a/:p1', 'HEAD', 0)],
  [routeOn('/a/:p1', 'HEAD', 1), routeOn('[/a#1]/me', 'GET', 0), routeOn('[/a#1]/me', 'HEAD', 2)],
];

/**
 * Run in Koa after those, so that an exclusive router always runs a middleware alone for a method
 * a route of its path serves, and that route runs another method: GET with `exclusive: true`
 * (the middleware is the last layer serving it), DELETE with 'specificity' (the first of equal
 * parameters serving it).
 */
const MIDDLEWARE_EXAMPLES: RouteSpec[][] = [[routeOn('/a', 'GET', 0), routeOn('/a', 'USE', 0), routeOn('/a', 'DELETE', 1)]];

/**
 * And one where a router's rule passes over the first route serving a request, a route that runs
 * other methods of the URL: GET of /a/me, served by a route of every method on `/a/:p1` and by
 * `/a/me`, runs the last matched (`exclusive: true`) or the one of no parameter ('specificity').
 * Random route sets reach this in most runs, not all.
 */
const PASSED_OVER_EXAMPLES: RouteSpec[][] = [[routeOn('/a/:p1', 'ALL', 1), routeOn('[/a#1]/me', 'GET', 0)]];

/**
 * Every URL of one to three segments over URL_SEGMENTS; `/` and those of one or two with a
 * trailing slash, which the frameworks match as without it unless strict, and a router mounted at
 * a prefix matches with its `/` route; and a few in upper case, which only a case-sensitive router
 * tells apart.
 */
const URLS: string[] = ['/', '/ME', '/ME/', '/A/me', '/a/ME', '/a/ME/', '/ME/a/7'];
for (const first of URL_SEGMENTS) {
  URLS.push(`/${first}`, `/${first}/`);
  for (const second of URL_SEGMENTS) {
    URLS.push(`/${first}/${second}`, `/${first}/${second}/`);
    for (const third of URL_SEGMENTS) URLS.push(`/${first}/${second}/${third}`);
  }
}

/** The routes in the order the framework tries them: a router's all at the place it is mounted, where its first route is declared. */
function frameworkOrder(routes: readonly RouteSpec[]): RouteSpec[] {
  const order: RouteSpec[] = [];
  const placed = new Set<string>();
  for (const route of routes) {
    if (route.mount === undefined) order.push(route);
    else if (!placed.has(routerOf(route.mount))) {
      const router = routerOf(route.mount);
      placed.add(router);
      order.push(...routes.filter((other) => other.mount !== undefined && routerOf(other.mount) === router));
    }
  }
  return order;
}

type Handler = (...args: never[]) => unknown;
interface ExpressModule {
  (): ExpressRouter;
  Router(options?: object): ExpressRouter;
}
interface ExpressRouter {
  use(...args: unknown[]): unknown;
  get(path: string, ...handlers: Handler[]): unknown;
}

/** Express 4 or 5: each mount an `express.Router()` of its own, mounted where its first route is declared (routes are added to it later: Express looks them up per request). */
function expressFramework(express: ExpressModule, wildcard: string): Framework {
  return {
    methods: ROUTE_METHODS,
    exclusive: false,
    narrows: true,
    pathKey: routerPathKey,
    start(routes) {
      const app = express();
      const cors = createExpressCors({}, { logger: quiet });
      app.use(cors);
      const routers = new Map<string, ExpressRouter>();
      routes.forEach((route, index) => {
        let target = app;
        if (route.mount !== undefined) {
          let router = routers.get(routerOf(route.mount));
          if (router === undefined) {
            router = route.mount.router === 1 ? express.Router(STRICT.express) : express.Router();
            routers.set(routerOf(route.mount), router);
            app.use(prefixOf(route.mount), router);
          }
          target = router;
        }
        const handler = (_req: unknown, res: { setHeader(name: string, value: string): void; end(body: string): void }) => {
          res.setHeader('X-Route', `r${index}`);
          res.end(`r${index}`);
        };
        const declare = target[route.method.toLowerCase() as 'get'].bind(target);
        declare(pathOf(route, wildcard), cors.route({ origin: POLICIES[route.policy]! }) as Handler, handler as Handler);
      });
      // The routes read now: a route set the engine refuses fails the property, not every request.
      cors.mirror(app);
      return app as never;
    },
  };
}

/**
 * The `exclusive` of the nested routers under a router of `exclusive`: another one. @koa/router
 * copies a nested router's layers into its parent, whose dispatch runs them: only the parent's
 * option has a say, where the nested router's `strict` and `sensitive` are compiled into its
 * layers' patterns.
 */
const NESTED_EXCLUSIVE = new Map<Exclusive, Exclusive>([
  [false, true],
  [true, 'specificity'],
  ['specificity', false],
]);

/**
 * Koa with @koa/router, as users set it up: `router.routes()` and `router.allowedMethods()`, the
 * router of `exclusive`. Each mount a nested router, `router.use(prefix, inner.routes())` where
 * its first route is declared; its routes are declared before, as @koa/router copies them there
 * and then. A middleware says it ran (`X-Middleware`) and hands on.
 */
const koaFramework = (exclusive: Exclusive): Framework => ({
  methods: KOA_ROUTE_METHODS,
  exclusive,
  narrows: true,
  pathKey: wholePathKey,
  start(routes) {
    const app = new Koa();
    const router = new Router({ exclusive } as never);
    const cors = createKoaCors({}, { logger: quiet });
    const declare = (target: Router, route: RouteSpec, index: number) => {
      if (route.method === 'USE') {
        target.use(pathOf(route, KOA_WILDCARD), (ctx, next) => {
          ctx.set('X-Middleware', `r${index}`);
          return next();
        });
        return;
      }
      target[route.method.toLowerCase() as 'get'](pathOf(route, KOA_WILDCARD), cors.route({ origin: POLICIES[route.policy]! }), (ctx) => {
        ctx.set('X-Route', `r${index}`);
        ctx.body = `r${index}`;
      });
    };
    const inners = new Map<string, Router>();
    routes.forEach((route, index) => {
      if (route.mount === undefined) return;
      const options = { ...(route.mount.router === 1 ? STRICT.koa : {}), exclusive: NESTED_EXCLUSIVE.get(exclusive) };
      const inner = inners.get(routerOf(route.mount)) ?? new Router(options as never);
      inners.set(routerOf(route.mount), inner);
      declare(inner, route, index);
    });
    const mounted = new Set<string>();
    routes.forEach((route, index) => {
      if (route.mount === undefined) declare(router, route, index);
      else if (!mounted.has(routerOf(route.mount))) {
        mounted.add(routerOf(route.mount));
        router.use(prefixOf(route.mount), inners.get(routerOf(route.mount))!.routes());
      }
    });
    app.use(cors);
    app.use(router.routes()).use(router.allowedMethods());
    cors.mirror(app);
    return app.callback();
  },
});

/** Which route the framework ran for an answer (the handler's header, and its body where a body is sent), or `undefined`. */
function ranOf(method: string, answer: Answer, problems: string[], context: string): number | undefined {
  const header = answer.headers['x-route'];
  if (header === undefined) return undefined;
  if (method !== 'HEAD' && answer.body !== header) problems.push(`${context}: body ${answer.body} but X-Route ${header}`);
  return Number(String(header).slice(1));
}

/**
 * A client of one connection whose requests are pipelined: node's http server reads and answers
 * them in order. Some 350 requests a route set: through http.request() with a keep-alive agent,
 * the client cost as much as the server. Every answer here is sized by Content-Length, or has no
 * body (HEAD, 204, 304); any other kind fails the run.
 */
async function pipelinedClient(
  origin: string,
): Promise<{ send(method: string, url: string, headers?: Record<string, string>): Promise<Answer>; close(): void }> {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.setNoDelay(true);
  const waiting: { method: string; resolve(answer: Answer): void; reject(error: Error): void }[] = [];
  let buffered = Buffer.alloc(0);
  const fail = (error: Error) => {
    for (const pending of waiting.splice(0)) pending.reject(error);
  };
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('the server closed the connection')));
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      const pending = waiting[0];
      const end = buffered.indexOf('\r\n\r\n');
      if (pending === undefined || end === -1) return;
      const [statusLine, ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(statusLine!.split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).toLowerCase();
        const value = line.slice(colon + 1).trim();
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      }
      const bodyless = pending.method === 'HEAD' || status === 204 || status === 304;
      if (!bodyless && headers['content-length'] === undefined) {
        socket.destroy(new Error(`an answer to ${pending.method} with no Content-Length: ${statusLine}`));
        return;
      }
      const length = bodyless ? 0 : Number(headers['content-length']);
      if (buffered.length < end + 4 + length) return;
      const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
      buffered = buffered.subarray(end + 4 + length);
      waiting.shift();
      pending.resolve({ status, headers, body });
    }
  });
  return {
    send: (method, url, headers = {}) =>
      new Promise((resolve, reject) => {
        waiting.push({ method, resolve, reject });
        const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
        socket.write(`${method} ${url} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${lines.join('')}\r\n`);
      }),
    close: () => socket.destroy(),
  };
}

/**
 * Checks made, URLs whose methods run under more than one policy, URLs a mounted router's route ran
 * for, and URLs whose HEAD ran a route of a path with a HEAD route and a GET route, the HEAD route
 * declared first (`headFirst`) or the GET route (`getFirst`). Requests an exclusive router ran
 * another route for than the first it tries that serves their method (`passedOver`), and ran its
 * own middleware for alone, where a route serves their method (`middlewareAlone`).
 */
interface Counter {
  checks: number;
  mixed: number;
  mounted: number;
  headFirst: number;
  getFirst: number;
  passedOver: number;
  middlewareAlone: number;
}

/** What went wrong on one route set, one line each; empty where every check held. */
async function problemsOf(framework: Framework, routes: readonly RouteSpec[], counter: Counter): Promise<string[]> {
  const listener = framework.start(routes);
  // Every pipelined request waiting for its answer holds a listener on the socket (Express's and
  // Koa's on-finished): hundreds at once here, past node's leak warning at 10.
  const server = await serve((req, res) => {
    req.socket.setMaxListeners(0);
    listener(req, res);
  });
  const client = await pipelinedClient(server.origin);
  const problems: string[] = [];
  const check = (ok: boolean, message: string) => {
    counter.checks++;
    if (!ok) problems.push(message);
  };
  const send = client.send;
  const allowOrigin = (answer: Answer) => answer.headers['access-control-allow-origin'];
  const corsHeaders = (answer: Answer) => Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'));
  const order = frameworkOrder(routes);

  const checkUrl = async (url: string) => {
    // 1. Actual requests: each is answered by the policy of the route the framework ran.
    const ran = new Map<string, number>();
    const actuals = new Map<string, Answer>();
    for (const [method, answer] of await Promise.all(PROBED.map(async (method) => [method, await send(method, url, { Origin: STRANGER })] as const))) {
      actuals.set(method, answer);
      const index = ranOf(method, answer, problems, `${method} ${url}`);
      if (index === undefined) continue;
      ran.set(method, index);
      const granted = allowOrigin(answer);
      check(
        granted === POLICIES[routes[index]!.policy] || (framework.narrows && granted === undefined),
        `${method} ${url} ran ${labelOf(routes[index]!)}, answered ${granted}`,
      );
    }
    // HEAD among them: a URL that only a HEAD route matches is served, and covered.
    const served = PROBED.filter((method) => ran.has(method));
    const policyRunning = (method: string) => (ran.has(method) ? routes[ran.get(method)!]!.policy : undefined);
    const ranRoutes = new Set(ran.values());
    // Each route seen running here matches the URL; the route run for a method is then the one the
    // router's rule picks among those of them that serve it, with no model of matching needed: the
    // first tried (Express, and @koa/router without `exclusive`), the last (`exclusive: true`), the
    // first of the fewest parameters ('specificity'). A method none of them runs for, though one
    // serves it, was left to a middleware an exclusive router ran alone, which said so.
    const seen = order.filter((route) => ranRoutes.has(routes.indexOf(route)));
    for (const method of PROBED) {
      const index = ran.get(method);
      // A middleware an exclusive router ran alone, in place of any route (under 'last' and
      // 'specificity' alike, a route it passes over this way runs no other method of the URL).
      if (index === undefined && framework.exclusive !== false && actuals.get(method)!.headers['x-middleware'] !== undefined) counter.middlewareAlone++;
      const candidates = seen.filter((route) => serves(route, method));
      if (candidates.length === 0) continue;
      if (index === undefined) {
        const middleware = actuals.get(method)!.headers['x-middleware'];
        check(
          framework.exclusive !== false && middleware !== undefined,
          `${method} ${url} ran no route, where ${labelOf(candidates[0]!)} serves it, and no middleware said it ran alone`,
        );
        continue;
      }
      const picked =
        framework.exclusive === false
          ? candidates[0]!
          : framework.exclusive === true
            ? candidates.at(-1)!
            : candidates.reduce((fewest, route) => (parametersOf(route) < parametersOf(fewest) ? route : fewest));
      check(
        picked === routes[index],
        `${method} ${url} ran ${labelOf(routes[index]!)}, where the router's rule (exclusive: ${framework.exclusive}) picks ${labelOf(picked)}`,
      );
      if (candidates[0] !== routes[index]) counter.passedOver++;
    }
    const ranHead = ran.get('HEAD');
    if (ranHead !== undefined) {
      const ofPath = order.filter((route) => framework.pathKey(route) === framework.pathKey(routes[ranHead]!));
      const head = ofPath.findIndex((route) => route.method === 'HEAD');
      const get = ofPath.findIndex((route) => route.method === 'GET');
      if (head !== -1 && get !== -1) counter[head < get ? 'headFirst' : 'getFirst']++;
    }

    // Under rule F the entry point does not model an exclusive router: a method it leaves to its
    // own middleware on a URL is answered, and listed, as the routes declared for it there.
    const modelsRun = !framework.narrows || framework.exclusive === false;
    if (served.length === 0) {
      if (!modelsRun) return;
      // No route matches the URL, or none runs there (an exclusive router's middleware ran alone
      // for every method): it is not covered, and nothing on it is granted.
      for (const [method, answer] of actuals) {
        if (framework.narrows) check(allowOrigin(answer) === '*', `${method} ${url}, no route there: the middleware's '*', got ${allowOrigin(answer)}`);
        else check(corsHeaders(answer).length === 0, `${method} ${url}, no route there, got ${corsHeaders(answer)}`);
      }
      const preflight = await send('OPTIONS', url, { Origin: POLICIES[0]!, 'Access-Control-Request-Method': 'GET' });
      check(corsHeaders(preflight).length === 0, `preflight of ${url}, no route there, got ${corsHeaders(preflight)}`);
      const plain = await send('OPTIONS', url);
      check(corsHeaders(plain).length === 0, `OPTIONS ${url}, no route there, got ${corsHeaders(plain)}`);
      return;
    }

    // A method no route runs here (a 404 or 405) grants nothing to its origin: it falls to the
    // OPTIONS policy of the path found first (rule E), whose fixed origin the answer names, so the
    // page can read the error. That path is the one of the first route the framework tries that
    // matches the URL, of those it runs for a method there (an exclusive router passes over the
    // others, which answer nothing); that route runs its own method, so it is the first, in the
    // framework's order, of the routes that ran. A path's OPTIONS policy is that of the route
    // declaring OPTIONS (`app.all()` and `router.all()` name it), the one the router runs first
    // for it, or under `exclusive: true` last; else its GET route's; else its first declared
    // method's: a middleware declares none.
    const first = order.find((route) => ranRoutes.has(routes.indexOf(route)))!;
    const samePath = order.filter((route) => route.method !== 'USE' && framework.pathKey(route) === framework.pathKey(first));
    const declaringOptions = samePath.filter((route) => route.method === 'ALL');
    const optionsRoute = framework.exclusive === true ? declaringOptions.at(-1) : declaringOptions[0];
    const optionsPolicy = (optionsRoute ?? samePath.find((route) => route.method === 'GET') ?? samePath[0]!).policy;
    for (const [method, answer] of actuals) {
      if (ran.has(method) || !modelsRun) continue;
      // Under rule F, a method no route runs is answered under the middleware's options.
      check(
        allowOrigin(answer) === (framework.narrows ? '*' : POLICIES[optionsPolicy]),
        `${method} ${url}, no route ran (${answer.status}): expected the OPTIONS policy p${optionsPolicy} of ${labelOf(first)}, got ${allowOrigin(answer)}`,
      );
    }

    // 2. Preflights, for each method a route serves here, from that route's own origin (HEAD too:
    // a HEAD request with a header that is not safelisted is preflighted).
    const preflights = await Promise.all(
      served.map((method) => send('OPTIONS', url, { Origin: POLICIES[policyRunning(method)!]!, 'Access-Control-Request-Method': method })),
    );
    served.forEach((method, index) => {
      const answer = preflights[index]!;
      const policy = policyRunning(method)!;
      const context = `preflight ${method} ${url} (runs ${labelOf(routes[ran.get(method)!]!)})`;
      const granted = allowOrigin(answer);
      check(granted === POLICIES[policy] || (framework.narrows && granted === undefined), `${context}: answered ${granted}`);
      check(ranOf('OPTIONS', answer, problems, context) === undefined, `${context}: a route ran`);
      if (granted === undefined) return;
      // The browser sends every listed method later with no preflight of its own.
      for (const listed of (answer.headers['access-control-allow-methods'] as string | undefined)?.split(', ') ?? []) {
        if (listed === 'OPTIONS') continue;
        // A method no route names (a route of every method lists them all) runs where PATCH runs:
        // on the route of every method the router picks for PATCH, as for any method only routes
        // of every method and middleware serve. (Not sent: node:http does not route CONNECT.)
        const runsAs = (PROBED as readonly string[]).includes(listed) ? listed : 'PATCH';
        const runs = ran.has(runsAs) ? labelOf(routes[ran.get(runsAs)!]!) : 'no route';
        check(policyRunning(runsAs) === policy || (!modelsRun && !ran.has(runsAs)), `${context} lists ${listed}, which runs ${runs} there`);
      }
    });

    // 3. A plain OPTIONS lists no method the URL is not served with; where its methods run
    // under more than one policy, every method it is served with.
    const plain = await send('OPTIONS', url);
    // A route of every method serves OPTIONS too: the engine hands a plain OPTIONS on to the
    // application, which answers it (that route, or first Express's automatic answer of a mounted
    // router that holds other routes of the URL, a 200 listing only those).
    if (ranOf('OPTIONS', plain, problems, `OPTIONS ${url}`) !== undefined || plain.status !== 204) return;
    const allow = plain.headers.allow as string | undefined;
    const listed = (allow?.split(', ') ?? []).filter((method) => method !== 'OPTIONS');
    const context = `Allow of ${url} is ${allow}, served with ${served.map((method) => `${method} by r${ran.get(method)}`)}`;
    if (modelsRun) for (const method of listed) check(ran.has(method), `${context}: lists ${method}`);
    if (modelsRun && new Set(served.map(policyRunning)).size > 1) {
      counter.mixed++;
      check(listed.sort().join() === [...served].sort().join(), `${context}: not every served method`);
    }
    if ([...ran.values()].some((index) => routes[index]!.mount !== undefined)) counter.mounted++;
  };

  try {
    await Promise.all(URLS.map(checkUrl));
  } finally {
    client.close();
    await server.close();
  }
  return problems.sort();
}

/** Runs the property on `framework`, failing with the smallest route set found and what went wrong on it. */
async function holds(t: Test, framework: Framework): Promise<void> {
  const counter: Counter = { checks: 0, mixed: 0, mounted: 0, headFirst: 0, getFirst: 0, passedOver: 0, middlewareAlone: 0 };
  const examples = [...HEAD_EXAMPLES, ...MIDDLEWARE_EXAMPLES, ...PASSED_OVER_EXAMPLES].filter((routes) =>
    routes.every((route) => framework.methods.includes(route.method)),
  );
  await fc.assert(
    fc.asyncProperty(routeSets(framework), async (routes) => {
      const problems = await problemsOf(framework, routes, counter);
      if (problems.length > 0) {
        const declared = routes.map((route, index) => `r${index}: ${labelOf(route)}`).join('; ');
        throw new Error(`${declared}\n  ${problems.slice(0, 8).join('\n  ')}`);
      }
    }),
    // fast-check counts the examples among the runs.
    { numRuns: RUNS + examples.length, examples: examples.map((routes) => [routes]) },
  );
  // What the runs reached, so a generator that stops reaching the overlaps shows.
  t.pass(
    `${counter.checks} checks over ${RUNS} route sets and ${examples.length} examples; ${counter.mixed} URLs under several policies, ${counter.mounted} run by a mounted router; ` +
      `HEAD sent where a HEAD route and a GET route of one path ran it: ${counter.headFirst} URLs with the HEAD route first, ${counter.getFirst} with the GET route first; ` +
      `${counter.passedOver} requests run by another route than the first serving them, ${counter.middlewareAlone} by a middleware alone`,
  );
  t.ok(counter.headFirst > 0 && counter.getFirst > 0, 'HEAD was sent to paths with a HEAD route and a GET route, in both orders');
  if (framework.exclusive !== false) {
    t.ok(
      counter.passedOver > 0 && counter.middlewareAlone > 0,
      'the exclusive router passed over the first route serving a request, and ran a middleware alone',
    );
  }
}

// The trailing wildcard: path-to-regexp 8 (Express 5, and @koa/router 15 above) names it; 0.1 (Express 4) has a bare `*`.
t.test('Express 5: every request is answered by the policy of the route Express runs for it', (t) =>
  holds(t, expressFramework(express5 as unknown as ExpressModule, '*splat')),
);

t.test('Express 4: every request is answered by the policy of the route Express runs for it', (t) =>
  holds(t, expressFramework(express4 as unknown as ExpressModule, '*')),
);

t.test('Koa with @koa/router: every request is answered by the policy of the route the router runs for it', (t) => holds(t, koaFramework(false)));

t.test('Koa with @koa/router, exclusive: true: every request is answered by the policy of the last matched route, which the router runs alone', (t) =>
  holds(t, koaFramework(true)),
);

// exclusive: 'specificity' is a mode of @koa/router 15 on.
if (KOA_SPECIFICITY) {
  t.test(
    "Koa with @koa/router, exclusive: 'specificity': every request is answered by the policy of the most specific route, which the router runs alone",
    (t) => holds(t, koaFramework('specificity')),
  );
}
