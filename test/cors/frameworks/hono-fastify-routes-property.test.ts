/**
 * Property-based, through the framework entry points: random route sets whose paths match some
 * URLs together, served by the framework's own router (hono's, fastify's), each route under one of
 * a few policies and each handler answering with the name of the route that ran. Each policy
 * answers one fixed origin, so `Access-Control-Allow-Origin` names the policy that decided. For
 * every URL and method, the route the framework really runs is read from the answer, and the
 * engine must have answered by that route's policy (docs/CONTRACT.md, rule E, "One URL, several
 * paths"): an actual request by its own route's; a preflight by the policy of the route that runs
 * the method it asks for, listing no method that runs under another policy there; a plain OPTIONS
 * listing in `Allow` only methods the URL is served with.
 *
 * Unlike overlapping-paths-property.test.ts, whose model is a find-my-way router beside the fetch
 * adapter, nothing here predicts the framework's choice: it is observed. hono picks the route
 * declared first among those that match (statics, parameters, optional parameters, wildcards and
 * `app.all()` alike, a mounted sub-app's where it was mounted), and never runs a HEAD route
 * (`app.on('HEAD', ...)`): it answers HEAD as GET, body dropped; fastify's find-my-way picks by
 * specificity, adds a HEAD route to every GET, and serves a prefixed plugin's '/' route at
 * `prefix` and `prefix/`.
 *
 * A mismatch throws, so that fast-check shrinks the route set to a minimal one; the error names
 * the routes as declared, the request, what came back and which route the framework ran.
 */
import fc from 'fast-check';
import Fastify from 'fastify';
import { Hono } from 'hono';
import t, { type Test } from 'tap';

import { fastifyCors } from '@lib/cors/fastify';
import { createCors } from '@lib/cors/hono';

const POLICIES = [0, 1, 2].map((index) => `https://p${index}.test`);
/** The methods routes are declared with (and, in hono, `app.all()` and HEAD routes). */
const ROUTE_METHODS = ['GET', 'PUT', 'DELETE', 'POST'] as const;
/** The methods every URL is asked with: HEAD runs GET's route in both frameworks, PATCH only `app.all()`'s. */
const PROBED = ['GET', 'HEAD', 'PUT', 'DELETE', 'POST', 'PATCH'];
/** A path's segments before naming: `:` is a parameter, named by its position (`:p2`) so that paths of one shape name it alike. */
const TOKENS = ['a', 'me', ':'] as const;
type Token = (typeof TOKENS)[number];
const URL_SEGMENTS = ['a', 'me', '7'];
const NAME = /^[rs]\d+$/;
const STRANGER = 'https://x.test';
const quiet = { warn: () => {}, error: () => {} };

/**
 * Every URL of one to three segments over URL_SEGMENTS, and those of one or two with a trailing
 * slash too (hono is strict about it; fastify serves a prefixed '/' route both ways, and a
 * wildcard or an empty parameter matches it), and `/`.
 */
const URLS: string[] = ['/'];
for (const first of URL_SEGMENTS) {
  URLS.push(`/${first}`, `/${first}/`);
  for (const second of URL_SEGMENTS) {
    URLS.push(`/${first}/${second}`, `/${first}/${second}/`);
    for (const third of URL_SEGMENTS) URLS.push(`/${first}/${second}/${third}`);
  }
}

/** How a path ends: as its segments say, its last segment a wildcard, or its last parameter optional (hono). */
type Tail = 'exact' | 'wildcard' | 'optional';

interface RouteSpec {
  readonly method: string;
  readonly tokens: readonly Token[];
  readonly tail: Tail;
  readonly policy: number;
}

/** A route as the test declares it: `path` as given to the framework, `url` as the framework files it (with the mount's prefix). */
interface Declared {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly url: string;
  readonly policy: number;
  /** Declared on the sub-app (hono) or in the prefixed plugin (fastify). */
  readonly mounted: boolean;
}

/** A route set as declared, in declaration order: the mounted routes come together, where they are mounted. */
interface RouteSet {
  readonly prefix: string;
  readonly routes: readonly Declared[];
  /** The declarations as code, for a failure's message. */
  readonly described: string;
}

/** The path of `tokens`, its parameters named by their position after `before` segments (a mount prefix). */
function pathOf(tokens: readonly Token[], tail: Tail, before: number): string {
  const segments = tokens.map((token, index) => (token === ':' ? `:p${before + index + 1}` : token));
  if (segments.length > 0 && tail === 'wildcard') segments[segments.length - 1] = '*';
  // hono reads `?` only on a parameter, and only on the last segment (its checkOptionalParameter()).
  if (tail === 'optional' && tokens.at(-1) === ':') segments[segments.length - 1] += '?';
  return `/${segments.join('/')}`;
}

const routeSpecs = (methods: fc.Arbitrary<string>, tails: readonly Tail[], minSegments: number, maxSegments: number, maxLength: number) =>
  fc.array(
    fc.record({
      method: methods,
      tokens: fc.array(fc.constantFrom(...TOKENS), { minLength: minSegments, maxLength: maxSegments }),
      tail: fc.constantFrom(...tails),
      policy: fc.nat({ max: POLICIES.length - 1 }),
    }),
    { minLength: 1, maxLength },
  );

/** A mount: its prefix (one segment), the routes declared on it, and how many top-level routes come before it. */
interface MountSpec {
  readonly prefix: Token;
  readonly at: number;
  readonly routes: readonly RouteSpec[];
}

/**
 * The routes of `top` and `mount` in declaration order, named (`r0`, `s0` on the mount), each kept
 * only if `accepts` it beside the routes kept before it on the same URL.
 */
function declaredRoutes(
  top: readonly RouteSpec[],
  mount: MountSpec | null,
  accepts: (spec: RouteSpec, earlier: readonly Declared[]) => boolean,
): { prefix: string; routes: Declared[] } {
  const prefix = mount === null ? '' : pathOf([mount.prefix], 'exact', 0);
  const at = Math.min(mount?.at ?? top.length, top.length);
  const ordered = [
    ...top.slice(0, at).map((spec) => ({ spec, mounted: false })),
    ...(mount?.routes ?? []).map((spec) => ({ spec, mounted: true })),
    ...top.slice(at).map((spec) => ({ spec, mounted: false })),
  ];
  const routes: Declared[] = [];
  for (const { spec, mounted } of ordered) {
    const path = pathOf(spec.tokens, spec.tail, mounted ? 1 : 0);
    // A mounted '/' route is served at the prefix itself (fastify: and at `prefix/`).
    const url = mounted ? (path === '/' ? prefix : `${prefix}${path}`) : path;
    const earlier = routes.filter((route) => route.url === url);
    if (!accepts(spec, earlier)) continue;
    const name = `${mounted ? 's' : 'r'}${routes.filter((route) => route.mounted === mounted).length}`;
    routes.push({ name, method: spec.method, path, url, policy: spec.policy, mounted });
  }
  return { prefix, routes };
}

/** A route's declaration as code; hono has no `app.head()`. */
const declaration = (receiver: string, route: Declared) =>
  route.method === 'HEAD'
    ? `  ${receiver}.on('HEAD', '${route.path}', p${route.policy}) -> ${route.name}`
    : `  ${receiver}.${route.method.toLowerCase()}('${route.path}', p${route.policy}) -> ${route.name}`;

/** A request's answer, as far as the property reads it. */
interface Seen {
  readonly status: number;
  readonly allowOrigin: string | undefined;
  readonly allowMethods: string | undefined;
  readonly allow: string | undefined;
  /** The route whose handler ran (its body; for HEAD, which has none, the header it set too). */
  readonly ran: string | undefined;
}
type Send = (method: string, url: string, headers: Record<string, string>) => Promise<Seen>;

/** A served route set: how to send it a request, and how to stop it. */
interface Served {
  readonly send: Send;
  close(): Promise<void>;
}

/** A route's handler sets `x-route` too: HEAD answers carry no body in either framework. */
function seenOf(method: string, status: number, header: (name: string) => string | undefined, body: string): Seen {
  return {
    status,
    allowOrigin: header('access-control-allow-origin'),
    allowMethods: header('access-control-allow-methods'),
    allow: header('allow'),
    ran: method === 'HEAD' ? header('x-route') : NAME.test(body) ? body : undefined,
  };
}

/**
 * What the runs reached: answers checked, and URLs whose HEAD ran a route of a path with a HEAD
 * route and a GET route, the HEAD route declared first (`headFirst`) or the GET route (`getFirst`).
 */
interface Reached {
  checks: number;
  headFirst: number;
  getFirst: number;
}

/**
 * Checks every URL against the routes of `routes` as served: throws at the first request whose
 * answer was not given by the policy of the route the framework ran. Counts what it checked in `reached`.
 */
/**
 * `narrows`: the entry point answers under what every route matching a URL allows (rule F: hono),
 * never predicting which runs: an answer names the policy of the route that ran, or none.
 * `baseOnMiss`: an actual request no route runs for (a 404) is answered under the plugin's or the
 * middleware's options ('*' here), as `cors` and `@fastify/cors` answer it (hono, fastify).
 */
async function checkEveryUrl(
  routes: readonly Declared[],
  described: string,
  send: Send,
  reached: Reached,
  narrows: boolean,
  baseOnMiss: boolean,
): Promise<void> {
  const policyOf = new Map(routes.map((route) => [route.name, route.policy]));
  const check = (ok: boolean, request: string, seen: Seen | undefined, expected: string, ran: string) => {
    reached.checks++;
    if (!ok) {
      throw new Error(`${request}: expected ${expected}; got ${JSON.stringify(seen)}; the framework ran ${ran}\nroutes:\n${described}`);
    }
  };

  for (const url of URLS) {
    // Which route each method runs on this URL, read from the actual request's answer.
    const actuals = new Map<string, Promise<Seen>>();
    const actual = (method: string) => {
      let seen = actuals.get(method);
      if (seen === undefined) {
        seen = send(method, url, { Origin: STRANGER });
        actuals.set(method, seen);
      }
      return seen;
    };
    const served = new Map<string, string>();
    for (const method of PROBED) {
      const ran = (await actual(method)).ran;
      if (ran !== undefined) served.set(method, ran);
    }
    const ranOn = [...served].map(([method, name]) => `${method} ${name}`).join(', ') || 'no route';
    const ranHead = routes.find((route) => route.name === served.get('HEAD'));
    if (ranHead !== undefined) {
      const ofPath = routes.filter((route) => route.url === ranHead.url);
      const head = ofPath.findIndex((route) => route.method === 'HEAD');
      const get = ofPath.findIndex((route) => route.method === 'GET');
      if (head !== -1 && get !== -1) reached[head < get ? 'headFirst' : 'getFirst']++;
    }
    const plain = await send('OPTIONS', url, {});

    // 1. An actual request gets the policy of the route that ran.
    for (const method of PROBED) {
      const seen = await actual(method);
      const request = `${method} ${url} (Origin ${STRANGER})`;
      if (seen.ran !== undefined) {
        const expected = POLICIES[policyOf.get(seen.ran)!];
        check(seen.allowOrigin === expected || (narrows && seen.allowOrigin === undefined), request, seen, `the policy of ${seen.ran}, ${expected}`, ranOn);
      } else if (served.size === 0 || baseOnMiss) {
        if (baseOnMiss) check(seen.allowOrigin === '*', request, seen, "the middleware's '*': no route runs for it", ranOn);
        else check(seen.allowOrigin === undefined, request, seen, 'no grant: no route matches the URL', ranOn);
      } else if (!narrows) {
        // Rule E: a method no route of the URL serves is decided by the OPTIONS policy of the
        // path found first, as a plain OPTIONS of the URL is; the framework's 404 keeps that grant.
        check(seen.allowOrigin === plain.allowOrigin, request, seen, `the grant of a plain OPTIONS of the URL, ${plain.allowOrigin}`, ranOn);
      }
    }

    // 2. A preflight for a served method is granted by the policy of the route that runs it, and
    // lists only methods that run under that policy on this URL: the browser sends those later
    // with no preflight of their own.
    for (const [method, name] of served) {
      const policy = policyOf.get(name)!;
      const request = `OPTIONS ${url} (Origin ${POLICIES[policy]}, Access-Control-Request-Method ${method})`;
      const preflight = await send('OPTIONS', url, { Origin: POLICIES[policy]!, 'Access-Control-Request-Method': method });
      check(
        preflight.allowOrigin === POLICIES[policy] || (narrows && preflight.allowOrigin === undefined),
        request,
        preflight,
        `the policy of ${name}, ${POLICIES[policy]}`,
        ranOn,
      );
      if (preflight.allowOrigin === undefined) continue;
      for (const listed of (preflight.allowMethods ?? '').split(', ')) {
        if (listed === '' || listed === 'OPTIONS' || listed === 'HEAD') continue;
        const ran = (await actual(listed)).ran;
        const runsUnder = ran === undefined ? 'no route' : `${ran}, under ${POLICIES[policyOf.get(ran)!]}`;
        check(
          ran !== undefined && policyOf.get(ran) === policy,
          request,
          preflight,
          `no listed method under another policy: ${listed} runs ${runsUnder}`,
          ranOn,
        );
      }
    }

    // 3. A plain OPTIONS lists in Allow no method the URL is not served with; where the URL's
    // methods run under more than one policy, every method it is served with.
    const request = `OPTIONS ${url} (no Origin)`;
    if (served.size === 0) {
      check(plain.allowOrigin === undefined && plain.allow === undefined, request, plain, 'no answer of the engine: no route matches the URL', ranOn);
      continue;
    }
    if (plain.ran !== undefined) {
      // A route of every method runs a plain OPTIONS itself, as the framework does without the
      // middleware: the application's own OPTIONS route, under its own policy.
      const ranRoute = routes.find((route) => route.name === plain.ran)!;
      const expected = POLICIES[ranRoute.policy];
      check(
        ranRoute.method === 'ALL' && (plain.allowOrigin === expected || (narrows && plain.allowOrigin === undefined)),
        request,
        plain,
        `a route of every method, under its policy ${expected}`,
        ranOn,
      );
      continue;
    }
    const listed = (plain.allow ?? '').split(', ').filter((method) => method !== '' && method !== 'HEAD' && method !== 'OPTIONS');
    for (const method of listed) check(served.has(method), request, plain, `no ${method} in Allow: it runs no route here`, ranOn);
    const servedMethods = [...served.keys()].filter((method) => method !== 'HEAD');
    if (new Set([...served.values()].map((name) => policyOf.get(name))).size > 1) {
      const same = listed.length === servedMethods.length && servedMethods.every((method) => listed.includes(method));
      check(same, request, plain, `Allow listing exactly ${servedMethods.join(', ')}`, ranOn);
    }
  }
}

/**
 * Checks every URL of `numRuns` route sets, each served by `serve`; a failure is reported as one
 * assertion, with the shrunk route set. `headExamples`, where route sets hold HEAD routes, are
 * checked first, so that HEAD is always sent where a HEAD route and a GET route of one path were
 * declared in either order.
 */
async function assertOver<Routes extends RouteSet>(
  t: Test,
  sets: fc.Arbitrary<Routes>,
  serve: (set: Routes) => Promise<Served>,
  numRuns: number,
  headExamples: readonly Routes[] = [],
  narrows = false,
  baseOnMiss = narrows,
): Promise<void> {
  const reached: Reached = { checks: 0, headFirst: 0, getFirst: 0 };
  const details = await fc.check(
    fc.asyncProperty(sets, async (set) => {
      const served = await serve(set);
      try {
        await checkEveryUrl(set.routes, set.described, served.send, reached, narrows, baseOnMiss);
      } finally {
        await served.close();
      }
    }),
    // fast-check counts the examples among the runs.
    { numRuns: numRuns + headExamples.length, examples: headExamples.map((set) => [set]) },
  );
  // The shrunk route set's own error names its routes, the request, the answer and the route that ran.
  const failure = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  const ran = `${numRuns} route sets${headExamples.length > 0 ? ` and ${headExamples.length} examples` : ''}, ${reached.checks} answers checked`;
  t.notOk(details.failed, details.failed ? `${failure}\n${fc.defaultReportMessage(details)}` : ran);
  if (headExamples.length > 0 && !details.failed) {
    // What the runs reached, so a generator that stops reaching HEAD routes beside GET routes shows.
    t.ok(
      reached.headFirst > 0 && reached.getFirst > 0,
      `HEAD sent where a HEAD route and a GET route of one path are declared: ${reached.headFirst} URLs with the HEAD route first, ${reached.getFirst} with the GET route first`,
    );
  }
}

// hono ----------------------------------------------------------------------------------------

const honoMethods = fc.oneof(
  { arbitrary: fc.constantFrom(...ROUTE_METHODS), weight: 5 },
  { arbitrary: fc.constant('ALL'), weight: 1 },
  { arbitrary: fc.constant('HEAD'), weight: 2 },
);
const honoTails: readonly Tail[] = ['exact', 'exact', 'wildcard', 'optional'];

/**
 * `specs`, some of them on the path of a spec before them (an index counted round those before):
 * random paths seldom meet, and a HEAD route, or an app.all(), matters beside a GET route of its
 * path.
 */
const sharingPaths = (specs: fc.Arbitrary<RouteSpec[]>) =>
  fc.tuple(specs, fc.array(fc.option(fc.nat(), { freq: 2 }), { maxLength: 7 })).map(([specs, samePathAs]) => {
    const shared: RouteSpec[] = [];
    for (const [index, spec] of specs.entries()) {
      const of = samePathAs[index];
      const model = of === undefined || of === null || index === 0 ? spec : shared[of % index]!;
      shared.push({ ...spec, tokens: model.tokens, tail: model.tail });
    }
    return shared;
  });

/** A hono app of the routes `top` and, where `mount` is given, a sub-app mounted among them. */
function honoSetOf({ top, mount }: { top: readonly RouteSpec[]; mount: MountSpec | null }): RouteSet {
  // Routes declared twice, which hono allows (the first runs), stay; so does an app.all() beside
  // routes of its path that name methods (rule F: core/route-markers.ts).
  const { prefix, routes } = declaredRoutes(top, mount, () => true);
  const lines: string[] = [];
  for (const [index, route] of routes.entries()) {
    lines.push(declaration(route.mounted ? 'sub' : 'app', route));
    if (route.mounted && routes[index + 1]?.mounted !== true) lines.push(`  app.route('${prefix}', sub)`);
  }
  return { prefix, routes, described: lines.join('\n') };
}

/** hono apps: routes, and sometimes a sub-app mounted with `app.route(prefix, sub)` among them. */
const honoSets = fc
  .record({
    top: sharingPaths(routeSpecs(honoMethods, honoTails, 1, 3, 7)),
    mount: fc.option(
      fc.record({ prefix: fc.constantFrom(...TOKENS), at: fc.nat({ max: 7 }), routes: sharingPaths(routeSpecs(honoMethods, honoTails, 0, 2, 4)) }),
      { freq: 2 },
    ),
  })
  .map(honoSetOf);

/** A route of `tokens`, ending as they say. */
const specOf = (method: string, tokens: readonly Token[], policy: number): RouteSpec => ({ method, tokens, tail: 'exact', policy });

/**
 * A HEAD route and a GET route of one path in either order, with an app.all(), and on a sub-app
 * beside the app's own GET route of the same URL: hono runs the first GET route (or app.all())
 * for HEAD, whatever was declared for HEAD.
 */
const HONO_HEAD_EXAMPLES: RouteSet[] = [
  honoSetOf({ top: [specOf('GET', ['a'], 0), specOf('HEAD', ['a'], 1)], mount: null }),
  honoSetOf({ top: [specOf('HEAD', ['a'], 1), specOf('GET', ['a'], 0)], mount: null }),
  honoSetOf({ top: [specOf('HEAD', ['a', ':'], 1), specOf('ALL', ['a', ':'], 0), specOf('GET', ['a', ':'], 2)], mount: null }),
  honoSetOf({ top: [specOf('GET', ['me'], 0)], mount: { prefix: 'me', at: 0, routes: [specOf('HEAD', [], 1), specOf('GET', [], 2)] } }),
];

async function serveHono(set: RouteSet): Promise<Served> {
  const application = new Hono();
  const cors = createCors(application, {}, { logger: quiet });
  application.use(cors);
  const declare = (app: Hono, route: Declared) =>
    app.on(route.method, route.path, cors.route({ origin: POLICIES[route.policy]! }), (c) => {
      c.header('x-route', route.name);
      return c.text(route.name);
    });
  let mountedYet = false;
  for (const route of set.routes) {
    if (!route.mounted) {
      declare(application, route);
    } else if (!mountedYet) {
      // The sub-app's routes first: app.route() copies those the sub-app has when it is mounted.
      const sub = new Hono();
      for (const mounted of set.routes) if (mounted.mounted) declare(sub, mounted);
      application.route(set.prefix, sub);
      mountedYet = true;
    }
  }
  return {
    async send(method, url, headers) {
      const response = await application.fetch(new Request(`http://api.test${url}`, { method, headers }));
      return seenOf(method, response.status, (name) => response.headers.get(name) ?? undefined, await response.text());
    },
    close: async () => {},
  };
}

t.test("hono: every request is answered by the policy of the route hono's own router runs for it", async (t) => {
  await assertOver(t, honoSets, serveHono, 50, HONO_HEAD_EXAMPLES, true);
});

// fastify -------------------------------------------------------------------------------------

const fastifyTails: readonly Tail[] = ['exact', 'exact', 'wildcard'];

/** fastify servers: routes, and sometimes routes of a plugin registered with a prefix. */
const fastifySets = fc
  .record({
    top: routeSpecs(fc.constantFrom(...ROUTE_METHODS), fastifyTails, 1, 3, 7),
    plugin: fc.option(fc.record({ prefix: fc.constantFrom(...TOKENS), routes: routeSpecs(fc.constantFrom(...ROUTE_METHODS), fastifyTails, 0, 2, 4) }), {
      freq: 2,
    }),
  })
  .map(({ top, plugin }): RouteSet => {
    // Registered after the server's own routes: fastify's router does not depend on the order.
    const mount = plugin === null ? null : { ...plugin, at: top.length };
    // fastify refuses a method declared twice on one path (FST_ERR_DUPLICATED_ROUTE): the first is kept.
    const { prefix, routes } = declaredRoutes(top, mount, (spec, earlier) => earlier.every((route) => route.method !== spec.method));
    const lines = routes.filter((route) => !route.mounted).map((route) => declaration('server', route));
    const mounted = routes.filter((route) => route.mounted);
    if (mounted.length > 0) lines.push(`  server.register(plugin, { prefix: '${prefix}' }):`, ...mounted.map((route) => declaration('  plugin', route)));
    return { prefix, routes, described: lines.join('\n') };
  });

async function serveFastify(set: RouteSet): Promise<Served> {
  const server = Fastify();
  const declare = (instance: typeof server, route: Declared) =>
    instance.route({
      method: route.method,
      url: route.path,
      config: { cors: { origin: POLICIES[route.policy]! } },
      handler: async (_request, reply) => {
        reply.header('x-route', route.name);
        return route.name;
      },
    });
  try {
    await server.register(fastifyCors, { logger: quiet });
    for (const route of set.routes) if (!route.mounted) declare(server, route);
    const mounted = set.routes.filter((route) => route.mounted);
    if (mounted.length > 0) {
      await server.register(
        async (plugin) => {
          for (const route of mounted) declare(plugin as unknown as typeof server, route);
        },
        { prefix: set.prefix },
      );
    }
    await server.ready();
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    async send(method, url, headers) {
      const answer = await server.inject({ method: method as 'GET', url, headers });
      const header = (name: string) => {
        const value = answer.headers[name];
        return value === undefined ? undefined : String(value);
      };
      return seenOf(method, answer.statusCode, header, answer.body);
    },
    close: () => server.close(),
  };
}

t.test("fastify: every request is answered by the policy of the route fastify's own router runs for it", async (t) => {
  await assertOver(t, fastifySets, serveFastify, 50, [], false, true);
});
