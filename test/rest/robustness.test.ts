/** What review found: nothing a request does may take the process down, and nothing checkable waits for a request. */
import t from 'tap';

import { inject, injectable, InjectionToken, ResolutionError, StartupError } from '@lib/core';
import { controller, RequestContext, RestApplication, restModule, restRootModule, route, type RestInitContext } from '@lib/rest';

import { serveApplication } from '../helpers/app.js';

const quiet = { logger: { error: () => {} } };

t.test('a return value that cannot be sent answers 500 (or closes a started response), and the server lives on', async (t) => {
  @controller()
  class Bad {
    @route('GET', 'bigint')
    bigint() {
      return { n: 1n };
    }
    @route('GET', 'async-bigint')
    async asyncBigint() {
      return { n: 1n };
    }
    @route('GET', 'started')
    started(ctx: RequestContext) {
      ctx.rawRes.write('partial');
      return 'tail';
    }
    @route('GET', 'ok')
    ok() {
      return 'ok';
    }
  }
  @restRootModule({ controllers: [Bad] })
  class App {}
  const server = await serveApplication(App, quiet);
  t.teardown(server.close);
  t.equal((await server.send('GET', '/bigint')).status, 500);
  t.equal((await server.send('GET', '/async-bigint')).status, 500);
  await t.rejects(server.send('GET', '/started'), 'a response already started is cut, not completed');
  t.equal((await server.send('GET', '/ok')).body, 'ok');
});

t.test('a pre-router step that rejects answers 500', async (t) => {
  class Hook {
    onInit(context: RestInitContext) {
      context.addPreRouterStep(async () => {
        throw new Error('step failed');
      });
    }
  }
  @restModule({ initHooks: [Hook] })
  class HookModule {}
  @controller()
  class C {
    @route('GET')
    get() {
      return 'unreached';
    }
  }
  @restRootModule({ imports: [HookModule], controllers: [C] })
  class App {}
  const server = await serveApplication(App, quiet);
  t.teardown(server.close);
  t.equal((await server.send('GET', '/')).status, 500);
});

t.test('addRoute() checks what it is given at start-up, naming the hook', async (t) => {
  for (const [args, message] of [
    [['get', '/x', () => {}], /init hook of M: addRoute\("get", \.\.\.\) is not an HTTP method/],
    [['GET', 'x', () => {}], /addRoute\(\) takes a full path starting with "\/", not "x"/],
    [['GET', '/x', 'nope'], /addRoute\(GET, \/x\) takes a handler function/],
  ] as const) {
    class Hook {
      onInit(context: RestInitContext) {
        (context.addRoute as (...a: unknown[]) => void)(...args);
      }
    }
    @restModule({ initHooks: [Hook] })
    class M {}
    @restRootModule({ imports: [M] })
    class App {}
    await t.rejects(RestApplication.create(App), { message });
  }
});

t.test('a provider nobody asks for yet is still checked at start-up', async (t) => {
  const MISSING = new InjectionToken<string>('MISSING');
  @injectable()
  class Service {
    constructor(@inject(MISSING) readonly value: string) {}
  }
  @restModule({ providersPerMod: [Service], exports: [Service] })
  class Feature {}
  @restRootModule({ imports: [Feature] })
  class App {}
  await t.rejects(RestApplication.create(App), {
    message: /^No provider for InjectionToken\(MISSING\): Service -> InjectionToken\(MISSING\) \(looked in module Feature, application\)/,
  });
  @restRootModule({ providersPerRou: [Service] })
  class RouteLevel {}
  @controller()
  class C {
    @route('GET')
    get() {}
  }
  restRootModule({ providersPerRou: [Service], controllers: [C] })(RouteLevel);
  await t.rejects(RestApplication.create(RouteLevel), {
    message: /^No provider for InjectionToken\(MISSING\): Service -> InjectionToken\(MISSING\) \(looked in route GET \/, module RouteLevel, application\)/,
  });
});

t.test('a resolution that fails while serving is a ResolutionError: 500, logged, and the server lives on', async (t) => {
  // The host proves its own resolutions at start-up; code holding an injector (here a hook's
  // RouteInfo.injector, kept for a route it adds) can still ask for what nobody provides.
  const MISSING = new InjectionToken<string>('MISSING');
  class Hook {
    onInit(context: RestInitContext) {
      const injector = context.routes[0]!.injector;
      context.addRoute('GET', '/late', () => injector.get(MISSING));
    }
  }
  @restModule({ initHooks: [Hook] })
  class HookModule {}
  @controller()
  class C {
    @route('GET', 'ok')
    ok() {
      return 'ok';
    }
  }
  @restRootModule({ imports: [HookModule], controllers: [C] })
  class App {}
  const logged: unknown[][] = [];
  const server = await serveApplication(App, { logger: { error: (...args: unknown[]) => logged.push(args) } });
  t.teardown(server.close);
  const answer = await server.send('GET', '/late');
  t.equal(answer.status, 500);
  t.equal(answer.body, 'Internal Server Error');
  t.equal(logged.length, 1);
  const [what, error] = logged[0]!;
  t.equal(what, 'GET /late failed:');
  t.type(error, ResolutionError);
  t.notOk(error instanceof StartupError, 'not a start-up error: the application started');
  t.match(error, { message: 'No provider for InjectionToken(MISSING) (looked from route GET /ok upwards).' });
  t.equal((await server.send('GET', '/ok')).body, 'ok');
});

t.test("a controller without a constructor of its own takes its parent's dependencies", async (t) => {
  @injectable()
  class Service {
    readonly name = 'service';
  }
  @injectable()
  class Base {
    constructor(readonly service: Service) {}
  }
  @controller()
  class Derived extends Base {
    @route('GET')
    get() {
      return this.service.name;
    }
  }
  @restRootModule({ controllers: [Derived], providersPerApp: [Service] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  t.equal((await server.send('GET', '/')).body, 'service');
});

t.test('a module imported twice (a diamond) is one module: one controller set, one module-level instance', async (t) => {
  @injectable()
  class Shared {}
  @controller()
  class SharedController {
    constructor(readonly shared: Shared) {}
    @route('GET', 'shared')
    get() {
      return 'shared';
    }
  }
  @restModule({ controllers: [SharedController], providersPerMod: [Shared], exports: [Shared] })
  class SharedModule {}
  @restModule({ imports: [SharedModule], exports: [SharedModule] })
  class Left {}
  @restModule({ imports: [SharedModule], exports: [SharedModule] })
  class Right {}
  @restRootModule({ imports: [Left, Right] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  t.equal((await server.send('GET', '/shared')).body, 'shared');
  t.same(server.app.routes, [{ method: 'GET', path: '/shared' }]);
});

t.test('the query string is parsed only when read, without a prototype', async (t) => {
  @controller()
  class Q {
    @route('GET', 'q')
    get(ctx: RequestContext) {
      return {
        a: ctx.query.a,
        proto: Object.getPrototypeOf(ctx.query),
        // biome-ignore lint/suspicious/noSelfCompare: two reads of the getter, proving the query is parsed once and kept
        same: ctx.query === ctx.query,
      };
    }
  }
  @restRootModule({ controllers: [Q] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  t.same(JSON.parse((await server.send('GET', '/q?a=1&a=2&__proto__=x')).body), { a: ['1', '2'], proto: null, same: true });
});
