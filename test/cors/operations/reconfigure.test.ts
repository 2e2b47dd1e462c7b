/**
 * reconfigure() and options() on every entry point, each served by its own framework (over real
 * sockets; hono and the fetch adapter called with real Request objects, as their runtimes call
 * them). One table of entry points, one of cases: every entry point must pass every case.
 *
 * Each app has the same three routes: GET and PUT /items under the engine's own options, and
 * POST /login with route-level options (credentials, an exposed header) merged over them.
 */
import Router from '@koa/router';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import t, { type Test } from 'tap';
import type { AddressInfo } from 'node:net';

import { ProviderBuilder } from '@lib/core';
import { CorsModule, CorsOptions, CorsOptionsError, CorsService } from '@lib/cors';
import { createCors as createExpressCors } from '@lib/cors/express';
import fastifyCors from '@lib/cors/fastify';
import { createCors as createFetchCors } from '@lib/cors/fetch';
import { createCors as createHonoCors } from '@lib/cors/hono';
import { createCors as createKoaCors } from '@lib/cors/koa';
import { createCors as createStandaloneCors } from '@lib/cors/standalone';
import { controller, RequestContext, restRootModule, route } from '@lib/rest';

import { serveApplication } from '../../helpers/app.js';
import { corsHeadersOf, echoApp, fetchAnswer, serve, type Answer } from '../../helpers/http.js';

const quiet = { warn: () => {}, error: () => {} };

/** Options as every entry point takes them here: no origin function, so one type fits all. */
type Options = Record<string, unknown>;

/**
 * The options the apps start with. Two origins each, so that the allowed one is echoed and any
 * other gets no Access-Control-Allow-Origin (a list of one is sent to every origin as it is).
 */
const BASE_A: Options = { origin: ['https://a.test', 'https://a2.test'], maxAge: 60 };
/** What they are reconfigured to: every field of A changed, and one more set. */
const BASE_B: Options = { origin: ['https://b.test', 'https://b2.test'], maxAge: 600, allowedHeaders: ['x-b'] };
/** POST /login's own options, merged over whichever base is in force. */
const LOGIN: Options = { allowCredentials: true, exposedHeaders: ['X-Session'] };

/** What a test compares: the status and every header this project is responsible for. */
interface Seen {
  status: number;
  cors: Record<string, string>;
}

interface Probe {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
}

const preflight = (origin: string, method: string, extra: Record<string, string> = {}) => ({
  Origin: origin,
  'Access-Control-Request-Method': method,
  ...extra,
});

/** The requests every case looks at: both origins, both routes, preflights and actual requests. */
const PROBES: readonly Probe[] = [
  { name: 'GET /items from a', method: 'GET', path: '/items', headers: { Origin: 'https://a.test' } },
  { name: 'GET /items from b', method: 'GET', path: '/items', headers: { Origin: 'https://b.test' } },
  { name: 'preflight PUT /items from a', method: 'OPTIONS', path: '/items', headers: preflight('https://a.test', 'PUT') },
  {
    name: 'preflight PUT /items from b',
    method: 'OPTIONS',
    path: '/items',
    headers: preflight('https://b.test', 'PUT', { 'Access-Control-Request-Headers': 'x-b' }),
  },
  { name: 'POST /login from a', method: 'POST', path: '/login', headers: { Origin: 'https://a.test' } },
  { name: 'POST /login from b', method: 'POST', path: '/login', headers: { Origin: 'https://b.test' } },
  { name: 'preflight POST /login from b', method: 'OPTIONS', path: '/login', headers: preflight('https://b.test', 'POST') },
];

/** An app of one entry point, serving the three routes, with that entry point's controls. */
interface Served {
  send(probe: Probe): Promise<Seen>;
  /** Async only because CorsModule's controls are reached from inside a request (CorsService). */
  reconfigure(options: Options): Promise<void>;
  options(): Promise<unknown>;
  close(): Promise<void>;
}

interface EntryPoint {
  name: string;
  /** CorsModule: options() leaves allowCredentials out when unset, rule D's to decide (a path whose controller takes CorsService). */
  unsetCredentialsLeftOut?: boolean;
  serve(base: Options, login: Options): Promise<Served>;
}

const seenOf = (answer: Answer): Seen => ({ status: answer.status, cors: corsHeadersOf(answer) });

function seenOfResponse(response: Response): Seen {
  const cors: Record<string, string> = {};
  for (const [name, value] of response.headers) {
    if (name.startsWith('access-control-') || name === 'vary' || name === 'allow') cors[name] = value;
  }
  return { status: response.status, cors };
}

/** Over a socket to `origin` (http://127.0.0.1:port). */
const sender = (origin: string) => async (probe: Probe) => seenOf(await fetchAnswer(origin + probe.path, probe.method, probe.headers));

/** A real Request to an app's fetch function, as a Web-standard runtime hands it over. */
const fetcher = (fetchIt: (request: Request) => Response | Promise<Response>) => async (probe: Probe) =>
  seenOfResponse(await fetchIt(new Request(`http://api.test${probe.path}`, { method: probe.method, headers: probe.headers })));

/** The controls of an entry point that hands them out directly, made async like CorsModule's. */
const controls = (of: { reconfigure(options: never): unknown; options(): unknown }) => ({
  reconfigure: async (options: Options) => void of.reconfigure(options as never),
  options: async () => of.options(),
});

const expressEntry = (name: string, express: typeof express5): EntryPoint => ({
  name,
  async serve(base, login) {
    const app = express();
    const cors = createExpressCors(base as never, { logger: quiet });
    app.use(cors);
    app.get('/items', echoApp);
    app.put('/items', echoApp);
    app.post('/login', cors.route(login as never), echoApp);
    const server = await serve(app as never);
    return { send: sender(server.origin), ...controls(cors), close: server.close };
  },
});

const ENTRY_POINTS: readonly EntryPoint[] = [
  {
    name: 'standalone',
    async serve(base, login) {
      const cors = createStandaloneCors(base as never, { logger: quiet })
        .route(['GET', 'PUT'], '/items')
        .route('POST', '/login', login as never);
      const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
      return { send: sender(server.origin), ...controls(cors), close: server.close };
    },
  },
  {
    name: 'fetch',
    async serve(base, login) {
      const cors = createFetchCors(base as never, { logger: quiet })
        .route(['GET', 'PUT'], '/items')
        .route('POST', '/login', login as never);
      const send = fetcher((request) => cors.handle(request, () => new Response('app')));
      return { send, ...controls(cors), close: async () => {} };
    },
  },
  expressEntry('express 5', express5),
  expressEntry('express 4', express4),
  {
    name: 'koa',
    async serve(base, login) {
      const app = new Koa();
      const router = new Router();
      const cors = createKoaCors(base as never, { logger: quiet });
      const handler = (ctx: Koa.Context) => {
        ctx.body = 'app';
      };
      router
        .get('/items', handler)
        .put('/items', handler)
        .post('/login', cors.route(login as never), handler);
      app.use(cors);
      app.use(router.routes());
      const server = await serve(app.callback());
      return { send: sender(server.origin), ...controls(cors), close: server.close };
    },
  },
  {
    name: 'hono',
    async serve(base, login) {
      const app = new Hono();
      const cors = createHonoCors(app, base as never, { logger: quiet });
      app.use(cors);
      app.get('/items', (c) => c.text('app'));
      app.put('/items', (c) => c.text('app'));
      app.post('/login', cors.route(login as never), (c) => c.text('app'));
      return { send: fetcher((request) => app.fetch(request)), ...controls(cors), close: async () => {} };
    },
  },
  {
    name: 'fastify',
    async serve(base, login) {
      const app = Fastify();
      await app.register(fastifyCors, { ...base, logger: quiet } as never);
      app.get('/items', async () => 'app');
      app.put('/items', async () => 'app');
      app.post('/login', { config: { cors: login as never } }, async () => 'app');
      await app.listen({ port: 0, host: '127.0.0.1' });
      const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      return { send: sender(origin), ...controls(app.cors), close: () => app.close() };
    },
  },
  {
    name: 'CorsModule',
    unsetCredentialsLeftOut: true,
    async serve(base, login) {
      // CorsService is per request: the test's calls run inside a request to /cors-control.
      let job: ((cors: CorsService) => unknown) | undefined;
      let outcome: { value: unknown } | { error: unknown } = { value: undefined };
      @controller()
      class ItemsController {
        @route('GET', 'items')
        list() {
          return 'app';
        }
        @route('PUT', 'items')
        put() {
          return 'app';
        }
      }
      @controller({ providersPerRou: new ProviderBuilder().useValue<CorsOptions>(CorsOptions, login as CorsOptions) })
      class LoginController {
        @route('POST', 'login')
        login() {
          return 'app';
        }
      }
      @controller()
      class ControlController {
        constructor(
          private readonly cors: CorsService,
          private readonly ctx: RequestContext,
        ) {}
        @route('POST', 'cors-control')
        run() {
          try {
            outcome = { value: job?.(this.cors) };
          } catch (error) {
            outcome = { error };
          }
          this.ctx.send('done');
        }
      }
      @restRootModule({
        imports: [CorsModule.withOpts(base as CorsOptions)],
        controllers: [ItemsController, LoginController, ControlController],
      })
      class App {}
      const server = await serveApplication(App);
      const call = async (run: (cors: CorsService) => unknown) => {
        job = run;
        const answer = await server.send('POST', '/cors-control');
        if (answer.status !== 200) throw new Error(`/cors-control answered ${answer.status}`);
        if ('error' in outcome) throw outcome.error;
        return outcome.value;
      };
      return {
        send: sender(server.origin),
        reconfigure: async (options) => void (await call((cors) => cors.reconfigure(options as CorsOptions))),
        options: () => call((cors) => cors.options()),
        close: server.close,
      };
    },
  },
];

async function answersOf(served: Served): Promise<Record<string, Seen>> {
  const answers: Record<string, Seen> = {};
  for (const probe of PROBES) answers[probe.name] = await served.send(probe);
  return answers;
}

/** Options that reconfigure() must refuse, each for the reason it names, with nothing changed. */
const BAD_OPTIONS: readonly { name: string; options: Options; code: string }[] = [
  { name: 'an unknown option (a typo of origin)', options: { orgin: ['https://b.test'] }, code: 'CORS_UNKNOWN_OPTION' },
  { name: 'a bad value among good ones', options: { origin: ['https://b.test'], maxAge: -1 }, code: 'CORS_INVALID_NUMBER' },
  { name: 'a value of the wrong type', options: { origin: 42 }, code: 'CORS_INVALID_ORIGIN_POLICY' },
  {
    name: "a base valid alone, refused under /login's credentials: origin '*'",
    options: { origin: '*' },
    code: 'CORS_WILDCARD_WITH_CREDENTIALS',
  },
  {
    name: "a base valid alone, refused under /login's credentials: allowedHeaders '*'",
    options: { origin: ['https://b.test'], allowedHeaders: '*' },
    code: 'CORS_WILDCARD_WITH_CREDENTIALS',
  },
];

interface Case {
  name: string;
  run(t: Test, served: Served, entry: EntryPoint): Promise<void>;
}

const CASES: readonly Case[] = [
  {
    name: 'reconfigure from origin list A to B: B is granted, A no longer, every answer as an app built with B',
    async run(t, served, entry) {
      const before = await answersOf(served);
      t.equal(before['GET /items from a']!.cors['access-control-allow-origin'], 'https://a.test', 'before: A is granted');
      await served.reconfigure(BASE_B);
      const after = await answersOf(served);
      t.equal(after['GET /items from b']!.cors['access-control-allow-origin'], 'https://b.test', 'B now gets Access-Control-Allow-Origin');
      t.notOk('access-control-allow-origin' in after['GET /items from a']!.cors, 'A no longer does');
      t.equal(after['preflight PUT /items from b']!.cors['access-control-max-age'], '600', "B's maxAge");
      const builtWithB = await entry.serve(BASE_B, LOGIN);
      t.teardown(builtWithB.close);
      t.same(after, await answersOf(builtWithB), 'every answer, whole, is that of the same app built with B');
    },
  },
  {
    name: "a route's own options keep merging over the new base",
    async run(t, served) {
      await served.reconfigure(BASE_B);
      const after = await answersOf(served);
      t.match(
        after['POST /login from b']!.cors,
        { 'access-control-allow-origin': 'https://b.test', 'access-control-allow-credentials': 'true', 'access-control-expose-headers': 'X-Session' },
        "/login: the new base's origin, the route's credentials and exposed header",
      );
      t.match(
        after['preflight POST /login from b']!.cors,
        { 'access-control-allow-origin': 'https://b.test', 'access-control-allow-credentials': 'true', 'access-control-max-age': '600' },
        "/login's preflight: the route's credentials, the new base's maxAge",
      );
      t.notOk('access-control-allow-origin' in after['POST /login from a']!.cors, "/login: A, the old base's origin, is no longer granted");
      t.notOk('access-control-allow-credentials' in after['GET /items from b']!.cors, "/items does not get /login's credentials");
    },
  },
  {
    name: 'bad options throw CorsOptionsError and change no answer, and options() neither: as started, and once reconfigured',
    async run(t, served) {
      // Both states: CorsModule reads options() from the modules until a first reconfigure().
      for (const state of ['as started', 'reconfigured to B']) {
        if (state === 'reconfigured to B') await served.reconfigure(BASE_B);
        const answers = await answersOf(served);
        const options = await served.options();
        for (const bad of BAD_OPTIONS) {
          const error = await served.reconfigure(bad.options).then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
          t.ok(error instanceof CorsOptionsError, `${state}, ${bad.name}: throws CorsOptionsError`);
          t.equal((error as CorsOptionsError).code, bad.code, `${state}, ${bad.name}: ${bad.code}`);
          t.same(await answersOf(served), answers, `${state}, ${bad.name}: every answer, whole, as before`);
          t.same(await served.options(), options, `${state}, ${bad.name}: options() as before`);
        }
      }
    },
  },
  {
    name: 'options() reads back the new options, normalised, and reconfiguring to them changes no answer',
    async run(t, served, entry) {
      await served.reconfigure(BASE_B);
      const options = await served.options();
      const expected: Options = {
        origin: ['https://b.test', 'https://b2.test'],
        allowCredentials: false,
        allowPrivateNetwork: false,
        preflightContinue: false,
        optionsSuccessStatus: 204,
        maxAge: 600,
        allowedHeaders: ['x-b'],
      };
      if (entry.unsetCredentialsLeftOut) delete expected.allowCredentials;
      t.same(options, expected);
      const answers = await answersOf(served);
      await served.reconfigure(options as Options);
      t.same(await answersOf(served), answers, 'reconfigure(options()) is no change');
    },
  },
];

for (const entry of ENTRY_POINTS) {
  for (const testCase of CASES) {
    t.test(`${entry.name}: ${testCase.name}`, async (t) => {
      const served = await entry.serve(BASE_A, LOGIN);
      t.teardown(served.close);
      await testCase.run(t, served, entry);
    });
  }
}

t.test(
  "CorsModule: a path whose controller takes CorsService keeps rule D's credentials over reconfigure() and reconfigure(options()); an explicit false turns them off",
  async (t) => {
    let change: ((cors: CorsService) => void) | undefined;
    @controller()
    class SessionController {
      constructor(private readonly cors: CorsService) {}
      @route('POST', 'session')
      run() {
        change?.(this.cors);
        change = undefined;
        return 'ok';
      }
    }
    @restRootModule({ imports: [CorsModule.withOpts(BASE_A as CorsOptions)], controllers: [SessionController] })
    class App {}
    const server = await serveApplication(App);
    t.teardown(server.close);
    const readBack = (cors: CorsService) => cors.reconfigure(cors.options());
    const steps: { name: string; change?: (cors: CorsService) => void; origin: string; credentials: string | undefined }[] = [
      { name: 'as started', origin: 'https://a.test', credentials: 'true' },
      { name: 'reconfigure(options()) before any reconfigure: the module options read back', change: readBack, origin: 'https://a.test', credentials: 'true' },
      { name: 'reconfigure(B)', change: (cors) => cors.reconfigure(BASE_B as CorsOptions), origin: 'https://b.test', credentials: 'true' },
      { name: 'reconfigure(options()) after it', change: readBack, origin: 'https://b.test', credentials: 'true' },
      {
        name: 'reconfigure() with allowCredentials: false, as withOpts() would have it, turns rule D off',
        change: (cors) => cors.reconfigure({ ...(BASE_B as CorsOptions), allowCredentials: false }),
        origin: 'https://b.test',
        credentials: undefined,
      },
      { name: 'options() reads that false back: reconfigure(options()) keeps rule D off', change: readBack, origin: 'https://b.test', credentials: undefined },
    ];
    for (const step of steps) {
      if (step.change !== undefined) {
        change = step.change;
        await server.send('POST', '/session');
      }
      const answer = await server.send('POST', '/session', { Origin: step.origin });
      t.equal(answer.headers['access-control-allow-origin'], step.origin, `${step.name}: the origin is granted`);
      t.equal(answer.headers['access-control-allow-credentials'], step.credentials, `${step.name}: credentials ${step.credentials ?? 'not sent'}`);
    }
  },
);
