/**
 * @lib/cors in real NestJS applications (Nest 12), in place of `app.enableCors()`: on
 * @nestjs/platform-express (Express 5), `app.use(createCors(options))` in main.ts, before
 * `listen()`; on @nestjs/platform-fastify (fastify 5), `await app.register(fastifyCors, options)`
 * before `listen()`, with per-route options through `@RouteConfig({ cors })`. Nest registers its
 * routes in `init()` (called by `listen()`), after main.ts: the Express middleware reads them at
 * the first request, the fastify plugin sees them through onRoute. Over real sockets.
 */
import 'reflect-metadata';

import type { AddressInfo } from 'node:net';

import {
  type CanActivate,
  Controller,
  Delete,
  Get,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  Post,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { NestFactory, RouterModule } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter, type NestFastifyApplication, RouteConfig } from '@nestjs/platform-fastify';
import Fastify from 'fastify';
import t, { type Test } from 'tap';

import { createCors } from '@lib/cors/express';
import { CorsOptionsError, fastifyCors } from '@lib/cors/fastify';

import { captureLogger, corsHeadersOf, fetchAnswer, type RequestHeaders } from '../../helpers/http.js';
import { NEST_EVERY_PATH } from '../../helpers/installed-versions.js';

const ALLOWED = 'https://app.test';
const REFUSED = 'https://evil.test';
const OPTIONS = { origin: [ALLOWED, 'https://admin.test'], maxAge: 600 };
const preflightOf = (origin: string, method: string): RequestHeaders => ({ Origin: origin, 'Access-Control-Request-Method': method });

/** Refuses every request, as an authentication guard refuses one without credentials. */
class DenyGuard implements CanActivate {
  canActivate(): boolean {
    throw new UnauthorizedException();
  }
}

@Controller('items')
class ItemsController {
  @Get()
  list(): string[] {
    return ['a', 'b'];
  }

  @Post()
  add(): { added: boolean } {
    return { added: true };
  }

  @Delete()
  clear(): { cleared: boolean } {
    return { cleared: true };
  }

  @Get('private')
  @UseGuards(DenyGuard)
  secret(): string {
    return 'secret';
  }
}

/** Per-route options on fastify: read from the route's config, which `@RouteConfig` sets (Express ignores it). */
@Controller('public')
class PublicController {
  @Get()
  @RouteConfig({ cors: { origin: '*' } })
  read(): string {
    return 'public';
  }

  @Get('hidden')
  @RouteConfig({ cors: false })
  hidden(): string {
    return 'hidden';
  }
}

@Module({ controllers: [ItemsController, PublicController] })
class AppModule {}

/** Answers 401 itself unless the request has credentials: a Nest middleware (here of every path and method) that ends the response. */
function requireToken(req: { headers: Record<string, unknown> }, res: { statusCode: number; end(body: string): void }, next: () => void): void {
  if (req.headers.authorization !== undefined) return next();
  res.statusCode = 401;
  res.end('token required');
}

@Module({ controllers: [ItemsController] })
class GuardedByMiddlewareModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(requireToken).forRoutes(NEST_EVERY_PATH);
  }
}

@Module({ controllers: [ItemsController] })
class ApiModule {}

/** The `/api` prefix given by RouterModule rather than `setGlobalPrefix()`. */
@Module({ imports: [ApiModule, RouterModule.register([{ path: 'api', module: ApiModule }])] })
class RoutedApiModule {}

/** What NestFactory.create() takes (a module class), in Nest 11 and 12 alike. */
type EntryModule = Parameters<typeof NestFactory.create>[0];

type Send = (method: string, path: string, headers?: RequestHeaders) => ReturnType<typeof fetchAnswer>;

async function listening(t: Test, app: NestExpressApplication | NestFastifyApplication): Promise<Send> {
  t.teardown(() => app.close());
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  return (method, path, headers = {}) => fetchAnswer(`${base}${path}`, method, headers);
}

/** main.ts on Express: the middleware before listen(), which registers the routes. */
async function expressApp(t: Test, module: EntryModule, before: (app: NestExpressApplication) => void = () => {}): Promise<Send> {
  const app = await NestFactory.create<NestExpressApplication>(module, { logger: false });
  before(app);
  app.use(createCors(OPTIONS));
  return listening(t, app);
}

/** main.ts on fastify: the plugin registered (and loaded: awaited) before listen(), which registers the routes. */
async function fastifyApp(t: Test, module: EntryModule, logger = captureLogger().logger): Promise<Send> {
  const app = await NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter(), { logger: false });
  await app.register(fastifyCors, { ...OPTIONS, logger });
  return listening(t, app);
}

const PLATFORMS = {
  'platform-express': (t: Test) => expressApp(t, AppModule),
  'platform-fastify': (t: Test) => fastifyApp(t, AppModule),
} as const;

for (const [platform, start] of Object.entries(PLATFORMS)) {
  t.test(`${platform}: each path's policy applies to Nest's routes, without enableCors()`, async (t) => {
    const send = await start(t);

    const granted = await send('OPTIONS', '/items', preflightOf(ALLOWED, 'DELETE'));
    t.equal(granted.status, 204);
    t.same(
      corsHeadersOf(granted),
      {
        'access-control-allow-origin': ALLOWED,
        'access-control-allow-methods': 'GET, HEAD, POST, DELETE, OPTIONS',
        'access-control-max-age': '600',
        vary: 'Origin, Access-Control-Request-Headers',
      },
      "a listed origin's preflight is granted with the methods of the path's routes",
    );
    t.same(
      corsHeadersOf(await send('OPTIONS', '/items/private', preflightOf(ALLOWED, 'GET'))),
      {
        'access-control-allow-origin': ALLOWED,
        'access-control-allow-methods': 'GET, HEAD, OPTIONS',
        'access-control-max-age': '600',
        vary: 'Origin, Access-Control-Request-Headers',
      },
      "another path's preflight lists that path's methods",
    );

    const refused = await send('OPTIONS', '/items', preflightOf(REFUSED, 'DELETE'));
    t.equal(refused.status, 204);
    t.same(corsHeadersOf(refused), { vary: 'Origin, Access-Control-Request-Headers' }, 'an unlisted origin is granted nothing');

    const read = await send('GET', '/items', { Origin: ALLOWED });
    t.equal(read.status, 200);
    t.equal(read.body, '["a","b"]', "Nest's handler answered");
    t.same(corsHeadersOf(read), { 'access-control-allow-origin': ALLOWED, vary: 'Origin' }, 'the GET carries the grant');
    t.same(corsHeadersOf(await send('GET', '/items', { Origin: REFUSED })), { vary: 'Origin' }, 'not for an unlisted origin');

    const denied = await send('GET', '/items/private', { Origin: ALLOWED });
    t.equal(denied.status, 401, "the guard's answer");
    t.same(corsHeadersOf(denied), { 'access-control-allow-origin': ALLOWED, vary: 'Origin' }, "a guard's error answer carries the grant: the page can read it");

    for (const [method, headers] of [
      ['OPTIONS', preflightOf(ALLOWED, 'GET')],
      ['GET', { Origin: ALLOWED }],
    ] as const) {
      const unknown = await send(method, '/nowhere', headers);
      t.equal(unknown.status, 404, `${method} on a path no route has: Nest's 404`);
      // Both answer 404s under their options, as `cors` and `@fastify/cors` do; a preflight there is not answered.
      const covered = method === 'GET';
      t.same(
        corsHeadersOf(unknown),
        covered ? { 'access-control-allow-origin': ALLOWED, vary: 'Origin' } : {},
        `${method} on a path no route has: ${covered ? "the middleware's options" : 'not covered'}`,
      );
    }
  });
}

t.test("platform-fastify: @RouteConfig({ cors }) gives a route its own options, merged over the plugin's, or leaves it out", async (t) => {
  const send = await fastifyApp(t, AppModule);

  const preflight = await send('OPTIONS', '/public', preflightOf(REFUSED, 'GET'));
  t.equal(preflight.status, 204);
  t.same(corsHeadersOf(preflight), {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    'access-control-max-age': '600',
    vary: 'Access-Control-Request-Headers',
  });
  t.same(corsHeadersOf(await send('GET', '/public', { Origin: REFUSED })), { 'access-control-allow-origin': '*' }, "the route's origin, any");

  t.same(corsHeadersOf(await send('GET', '/public/hidden', { Origin: ALLOWED })), {}, 'cors: false: no headers');
  const hidden = await send('OPTIONS', '/public/hidden', preflightOf(ALLOWED, 'GET'));
  t.equal(hidden.status, 404, "cors: false: its preflight is not answered (Nest's 404)");
  t.same(corsHeadersOf(hidden), {});
});

t.test('platform-fastify: a bad option in @RouteConfig fails listen(), naming the route', async (t) => {
  @Controller('bad')
  class BadController {
    @Get()
    @RouteConfig({ cors: { credentials: true } })
    read(): string {
      return 'bad';
    }
  }
  @Module({ controllers: [BadController] })
  class BadModule {}

  const app = await NestFactory.create<NestFastifyApplication>(BadModule, new FastifyAdapter(), { logger: false });
  t.teardown(() => app.close());
  await app.register(fastifyCors, OPTIONS);
  const error = await app.listen(0, '127.0.0.1').then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  t.type(error, CorsOptionsError);
  t.match((error as Error).message, /GET \/bad.*allowCredentials/s);
});

t.test('platform-express: the middleware comes before Nest middleware (registered in init()), so their answers carry the grant', async (t) => {
  const send = await expressApp(t, GuardedByMiddlewareModule);
  const preflight = await send('OPTIONS', '/items', preflightOf(ALLOWED, 'POST'));
  t.equal(preflight.status, 204, 'the preflight is answered before the middleware runs');
  t.equal(preflight.headers['access-control-allow-origin'], ALLOWED);
  const refused = await send('POST', '/items', { Origin: ALLOWED });
  t.equal(refused.status, 401);
  t.equal(refused.body, 'token required');
  t.equal(refused.headers['access-control-allow-origin'], ALLOWED, "the middleware's 401 is readable by the page");
});

t.test('platform-fastify: Nest middleware runs before the plugin registered in main.ts; not before one registered on your own fastify instance', async (t) => {
  // NestFactory.create() has registered @fastify/middie, whose onRequest hook runs Nest
  // middleware, by the time main.ts can register the plugin: its hook comes after.
  const late = await fastifyApp(t, GuardedByMiddlewareModule);
  const reached = await late('OPTIONS', '/items', preflightOf(ALLOWED, 'POST'));
  t.equal(reached.status, 401, 'a Nest middleware of every method that ends the response answers the preflight itself');
  t.same(corsHeadersOf(reached), {}, 'without a grant');
  const unreadable = await late('POST', '/items', { Origin: ALLOWED });
  t.equal(unreadable.status, 401);
  t.same(corsHeadersOf(unreadable), {}, "the middleware's 401 carries no grant: the page cannot read it");

  // The plugin loaded on the instance before Nest's adapter takes it: its hook runs first.
  const instance = Fastify();
  await instance.register(fastifyCors, { ...OPTIONS, logger: captureLogger().logger });
  const app = await NestFactory.create<NestFastifyApplication>(GuardedByMiddlewareModule, new FastifyAdapter(instance), { logger: false });
  const early = await listening(t, app);
  const preflight = await early('OPTIONS', '/items', preflightOf(ALLOWED, 'POST'));
  t.equal(preflight.status, 204, 'the preflight is answered before Nest middleware');
  t.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD, POST, DELETE, OPTIONS');
  const refused = await early('POST', '/items', { Origin: ALLOWED });
  t.equal(refused.status, 401);
  t.equal(refused.body, 'token required');
  t.equal(refused.headers['access-control-allow-origin'], ALLOWED, "the middleware's 401 carries the grant (a policy that varies by origin)");
});

t.test("platform-express: setGlobalPrefix() adds Nest's catch-all 404 route under the prefix, which the middleware covers like any route", async (t) => {
  // Nest 12's Express adapter answers 404s under a global prefix from a router mounted there with
  // `all('*path')` (Nest 11 answered them from a plain middleware, not a route).
  const prefixed = await expressApp(t, AppModule, (app) => app.setGlobalPrefix('api'));
  const unknown = await prefixed('GET', '/api/nowhere', { Origin: ALLOWED });
  t.equal(unknown.status, 404);
  t.equal(unknown.headers['access-control-allow-origin'], ALLOWED, "a path no controller has gets the grant, on Nest's 404");
  // The catch-all runs every method and decides nothing (it has no cors.route()): a preflight for a
  // method no controller serves is answered with the methods the controllers serve, not with it.
  t.equal(
    (await prefixed('OPTIONS', '/api/items', preflightOf(ALLOWED, 'PUT'))).headers['access-control-allow-methods'],
    'GET, HEAD, POST, DELETE, OPTIONS',
    "a method the path has no route for is not listed: the catch-all's router.all() decides nothing",
  );
  t.same(
    corsHeadersOf(await prefixed('GET', '/nowhere', { Origin: ALLOWED })),
    { 'access-control-allow-origin': ALLOWED, vary: 'Origin' },
    "outside the prefix, the middleware's options",
  );

  // The same prefix through RouterModule: no catch-all route, paths and methods as declared.
  const routed = await expressApp(t, RoutedApiModule);
  const notFound = await routed('GET', '/api/nowhere', { Origin: ALLOWED });
  t.equal(notFound.status, 404);
  t.same(
    corsHeadersOf(notFound),
    { 'access-control-allow-origin': ALLOWED, vary: 'Origin' },
    "RouterModule: a path no controller has gets the middleware's options",
  );
  t.equal(
    (await routed('OPTIONS', '/api/items', preflightOf(ALLOWED, 'PUT'))).headers['access-control-allow-methods'],
    'GET, HEAD, POST, DELETE, OPTIONS',
    "RouterModule: the path's own methods",
  );
  t.equal((await routed('GET', '/api/items', { Origin: ALLOWED })).headers['access-control-allow-origin'], ALLOWED);
});

t.test('platform-fastify: the plugin logs nothing for an application whose routes it all saw', async (t) => {
  const captured = captureLogger();
  const send = await fastifyApp(t, AppModule, captured.logger);
  await send('GET', '/items', { Origin: ALLOWED });
  await send('OPTIONS', '/items', preflightOf(ALLOWED, 'POST'));
  t.same(captured.errors, [], 'no route declared before the plugin');
  t.same(captured.warnings, []);
});
