import t from 'tap';

import { inject, injectable, InjectionToken, ProviderBuilder } from '@lib/core';
import { controller, RequestContext, RestApplication, restModule, restRootModule, route, type RestInitContext } from '@lib/rest';

import { serveApplication } from '../helpers/app.js';

const GREETING = new InjectionToken<string>('GREETING');

@injectable()
class Counter {
  value = 0;
}

@injectable()
class RequestId {
  static next = 0;
  readonly id = ++RequestId.next;
}

@controller()
class UsersController {
  constructor(
    private readonly ctx: RequestContext,
    private readonly counter: Counter,
    private readonly requestId: RequestId,
  ) {}

  @route('GET', 'users')
  list() {
    this.counter.value++;
    return [{ id: 1 }];
  }

  @route('GET', '/users/:id')
  one(ctx: RequestContext) {
    ctx.sendJson({ id: ctx.params.id, fields: ctx.query.fields, same: ctx === this.ctx, request: this.requestId.id, counter: this.counter.value });
  }

  @route('POST', 'users')
  create(ctx: RequestContext) {
    ctx.send('created', 201);
  }

  @route('DELETE', 'users/:id')
  async remove() {
    await new Promise((resolve) => setImmediate(resolve));
    throw new Error('database said no\n  at secret/stack.js:1');
  }
}

@controller({ providersPerRou: [{ token: GREETING, useValue: 'controller hello' }] })
class HelloController {
  constructor(@inject(GREETING) private readonly greeting: string) {}

  @route('GET')
  hello() {
    return this.greeting;
  }

  @route('GET', 'length')
  length(ctx: RequestContext) {
    ctx.rawRes.setHeader('Content-Length', '1');
    ctx.send('héllo ✓');
  }

  @route('GET', 'boom')
  boom(): never {
    throw new Error('sync failure');
  }
}

@controller()
class ItemsController {
  constructor(@inject(GREETING) private readonly greeting: string) {}

  @route('GET', 'items')
  items() {
    return { greeting: this.greeting };
  }
}

@restModule({ controllers: [ItemsController], providersPerRou: [{ token: GREETING, useValue: 'feature hello' }] })
class FeatureModule {}

@restRootModule({
  imports: [{ module: FeatureModule, path: 'v1' }],
  controllers: [UsersController, HelloController],
  providersPerApp: [Counter],
  providersPerRou: new ProviderBuilder().useValue(GREETING, 'module hello'),
  providersPerReq: [RequestId],
})
class AppModule {}

const errors: unknown[][] = [];
const server = await serveApplication(AppModule, { logger: { error: (...args: unknown[]) => errors.push(args) } });
t.teardown(server.close);

t.test('controllers answer with params, query, RequestContext and returned values', async (t) => {
  const list = await server.send('GET', '/users');
  t.equal(list.status, 200);
  t.equal(list.headers['content-type'], 'application/json; charset=utf-8');
  t.same(JSON.parse(list.body), [{ id: 1 }]);
  const one = JSON.parse((await server.send('GET', '/users/7?fields=name')).body);
  t.match(one, { id: '7', fields: 'name', same: true, counter: 1 }, 'the constructor and the method get the same RequestContext');
  const two = JSON.parse((await server.send('GET', '/users/8')).body);
  t.equal(two.request, one.request + 1, 'a request-level provider is built per request');
  const created = await server.send('POST', '/users');
  t.equal(created.status, 201);
  t.equal(created.body, 'created');
});

t.test('route-level providers: controller over module; feature modules under their prefix', async (t) => {
  t.equal((await server.send('GET', '/')).body, 'controller hello');
  t.same(JSON.parse((await server.send('GET', '/v1/items')).body), { greeting: 'feature hello' });
});

t.test('HEAD is answered on GET routes, without a body', async (t) => {
  const head = await server.send('HEAD', '/users');
  t.equal(head.status, 200);
  t.equal(head.body, '');
  t.equal(head.headers['content-length'], '10');
  t.equal((await server.send('GET', '/users')).headers['content-length'], '10', 'as GET');
});

t.test("Content-Length is the body's length in bytes, over one a handler set", async (t) => {
  const answer = await server.send('GET', '/length');
  t.equal(answer.body, 'héllo ✓');
  t.equal(answer.headers['content-length'], String(Buffer.byteLength('héllo ✓')));
  t.equal(answer.headers['transfer-encoding'], undefined);
});

t.test('unknown path: 404; known path, other method: 405 with Allow', async (t) => {
  const missing = await server.send('GET', '/nope');
  t.equal(missing.status, 404);
  t.equal(missing.body, 'Not Found');
  const wrongMethod = await server.send('PUT', '/users/1');
  t.equal(wrongMethod.status, 405);
  t.equal(wrongMethod.headers.allow, 'GET, HEAD, DELETE', 'registration order, HEAD right after GET');
  t.equal((await server.send('PATCH', '/users')).headers.allow, 'GET, HEAD, POST');
});

t.test('a handler that throws gets 500, logged, with no stack in the body', async (t) => {
  for (const [method, path, message] of [
    ['DELETE', '/users/1', 'database said no'],
    ['GET', '/boom', 'sync failure'],
  ] as const) {
    const answer = await server.send(method, path);
    t.equal(answer.status, 500);
    t.equal(answer.body, 'Internal Server Error');
    t.match(errors.at(-1), [`${method} ${path} failed:`, { message: new RegExp(message) }]);
  }
});

t.test('routes are listed for introspection', async (t) => {
  t.same(
    server.app.routes.map(({ method, path }) => `${method} ${path}`),
    ['GET /v1/items', 'GET /users', 'GET /users/:id', 'POST /users', 'DELETE /users/:id', 'GET /', 'GET /length', 'GET /boom'],
  );
});

t.test("an init hook sees the importing module's routes, adds a route and a step in front of the router", async (t) => {
  const seen: string[] = [];
  @injectable()
  class AuditHook {
    onInit(context: RestInitContext) {
      for (const info of context.routes) seen.push(`${info.method} ${info.path} ${info.controller?.name} ${info.injector.get(GREETING)}`);
      context.addRoute('GET', '/audit', (ctx) => ctx.sendJson({ routes: seen.length }));
      context.addPreRouterStep((req, res, next) => {
        res.setHeader('X-Audited', req.url ?? '');
        if (req.url === '/blocked') {
          res.statusCode = 403;
          res.end();
          return;
        }
        next();
      });
    }
  }
  @restModule({ initHooks: [AuditHook] })
  class AuditModule {}
  @controller()
  class PingController {
    @route('GET', 'ping')
    ping() {
      return 'pong';
    }
  }
  @restRootModule({ imports: [AuditModule], controllers: [PingController], providersPerRou: [{ token: GREETING, useValue: 'hi' }] })
  class HookedApp {}
  const hooked = await serveApplication(HookedApp);
  t.teardown(hooked.close);
  t.same(seen, ['GET /ping PingController hi']);
  const ping = await hooked.send('GET', '/ping');
  t.equal(ping.body, 'pong');
  t.equal(ping.headers['x-audited'], '/ping');
  t.same(JSON.parse((await hooked.send('GET', '/audit')).body), { routes: 1 });
  t.equal((await hooked.send('GET', '/blocked')).status, 403);
  t.equal((await hooked.send('GET', '/nothing')).headers['x-audited'], '/nothing', 'steps run before the 404 too');
});

t.test('a route step gets the route the router found, after the pre-router steps, and the route runs on its next()', async (t) => {
  const seen: string[] = [];
  @injectable()
  class RouteHook {
    onInit(context: RestInitContext) {
      context.addPreRouterStep((req, _res, next) => {
        // Rewritten before routing: the route step and the route both see the rewritten URL's route.
        if (req.url === '/old') req.url = '/items/7';
        next();
      });
      context.addRouteStep((req, res, found, next) => {
        seen.push(`${req.method} ${req.url} -> ${found === undefined ? 'none' : `${found.method} ${found.path} ${found.controller?.name}`}`);
        if (req.url === '/items/0') throw new Error('refused by the step');
        res.setHeader('X-Route', found?.path ?? 'none');
        next();
      });
    }
  }
  @restModule({ initHooks: [RouteHook] })
  class RouteHookModule {}
  @controller()
  class ItemsController {
    @route('GET', 'items/:id')
    one(ctx: RequestContext) {
      return `item ${ctx.params.id}`;
    }
  }
  @restRootModule({ imports: [RouteHookModule], controllers: [ItemsController] })
  class RoutedApp {}
  const errors: unknown[][] = [];
  const routed = await serveApplication(RoutedApp, { logger: { error: (...args: unknown[]) => errors.push(args) } });
  t.teardown(routed.close);
  const item = await routed.send('GET', '/old');
  t.equal(item.body, 'item 7');
  t.equal(item.headers['x-route'], '/items/:id');
  t.equal((await routed.send('HEAD', '/items/3')).headers['x-route'], '/items/:id', 'HEAD finds the GET route, as the router runs it');
  const missing = await routed.send('DELETE', '/items/3');
  t.equal(missing.status, 405, 'no route: the step still runs, then the 405');
  t.equal(missing.headers['x-route'], 'none');
  t.equal((await routed.send('GET', '/items/0')).status, 500, 'a step that throws answers 500 like a handler');
  t.same(seen, [
    'GET /items/7 -> GET /items/:id ItemsController',
    'HEAD /items/3 -> GET /items/:id ItemsController',
    'DELETE /items/3 -> none',
    'GET /items/0 -> GET /items/:id ItemsController',
  ]);
});

t.test('a controller that needs nothing per request is built without a request injector', async (t) => {
  let built = 0;
  @injectable()
  class Service {
    constructor() {
      built++;
    }
  }
  @controller()
  class Plain {
    constructor(readonly service: Service) {}
    @route('GET', 'plain')
    get() {
      return 'ok';
    }
  }
  @restRootModule({ controllers: [Plain], providersPerMod: [Service] })
  class PlainApp {}
  const plain = await serveApplication(PlainApp);
  t.teardown(plain.close);
  for (let i = 0; i < 3; i++) t.equal((await plain.send('GET', '/plain')).body, 'ok');
  t.equal(built, 1, 'the module-level service is resolved once, at start-up');
});

t.test('listen() resolves with the address; close() stops the server', async (t) => {
  @controller()
  class Noop {
    @route('GET')
    get() {
      return 'noop';
    }
  }
  @restRootModule({ controllers: [Noop] })
  class NoopApp {}
  const app = await RestApplication.create(NoopApp);
  const address = await app.listen(0, '127.0.0.1');
  t.equal(await (await fetch(`http://127.0.0.1:${address.port}/`)).text(), 'noop');
  await app.close();
  t.equal(app.server.listening, false);
  await t.rejects(app.listen(address.port, '256.0.0.1'));
});
