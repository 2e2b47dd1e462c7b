/** Every mistake the host can find before serving, with its message. */
import t from 'tap';

import { inject, injectable, InjectionToken } from '@lib/core';
import { controller, RequestContext, RestApplication, restModule, restRootModule, route } from '@lib/rest';

const MISSING = new InjectionToken<string>('MISSING');

@injectable()
class NeedsMissing {
  constructor(@inject(MISSING) readonly value: string) {}
}

t.test('no provider: the token and the chain that asked for it', async (t) => {
  @controller()
  class SomeController {
    constructor(
      readonly service: NeedsMissing,
      readonly ctx: RequestContext,
    ) {}
    @route('GET')
    get() {}
  }
  @restRootModule({ controllers: [SomeController], providersPerReq: [NeedsMissing] })
  class App {}
  await t.rejects(RestApplication.create(App), {
    name: 'StartupError',
    message:
      'No provider for InjectionToken(MISSING): SomeController -> NeedsMissing -> InjectionToken(MISSING) (looked in request GET /, route GET /, module App, application). Provide it in one of these levels, or mark the parameter @optional().',
  });
});

t.test('a duplicate route names both handlers', async (t) => {
  @controller()
  class First {
    @route('GET', 'x')
    a() {}
  }
  @controller()
  class Second {
    @route('GET', '/x/')
    b() {}
  }
  @restRootModule({ controllers: [First, Second] })
  class App {}
  await t.rejects(RestApplication.create(App), { message: 'Duplicate route GET /x: First.a and Second.b. Give one of them another method or path.' });
});

t.test('invalid decorator uses', async (t) => {
  t.throws(() => route('get')({}, 'm', {}), { message: /@route\("get"\) on Object\.m: not an HTTP method Node\.js serves/ });
  class NotAController {
    m() {}
  }
  @restRootModule({ controllers: [NotAController] })
  class App {}
  await t.rejects(RestApplication.create(App), { message: 'NotAController is in the controllers of App but has no @controller() decorator.' });
  @controller()
  class NoRoutes {}
  @restRootModule({ controllers: [NoRoutes] })
  class App2 {}
  await t.rejects(RestApplication.create(App2), { message: 'NoRoutes (in App2) has no @route() method.' });
  @restModule()
  class Feature {}
  await t.rejects(RestApplication.create(Feature), { message: 'Feature is not a root module: decorate it with restRootModule({...}).' });
});

t.test('a module that imports itself, or a cycle', async (t) => {
  @restModule()
  class Loop {}
  restModule({ imports: [Loop] })(Loop);
  @restRootModule({ imports: [Loop] })
  class App {}
  await t.rejects(RestApplication.create(App), { message: 'Loop imports itself: remove it from its own imports.' });
});

t.test('an init hook that adds a bad step', async (t) => {
  class BadHook {
    onInit(context: { addPreRouterStep(step: unknown): void }) {
      context.addPreRouterStep('not a function');
    }
  }
  @restModule({ initHooks: [BadHook] })
  class HookModule {}
  @restRootModule({ imports: [HookModule] })
  class App {}
  await t.rejects(RestApplication.create(App), { message: 'init hook of HookModule: addPreRouterStep() takes a function (req, res, next).' });
});

t.test('a decorated class compiled without emitDecoratorMetadata is told how to compile, not to add a decorator', async (t) => {
  // Decorators applied by hand: TypeScript emits design:paramtypes only for syntax it decorates,
  // so this is exactly what a build without emitDecoratorMetadata (or through esbuild) gives.
  class Greeter {
    constructor(readonly ctx: RequestContext) {}
    hello() {}
  }
  route('GET', 'hello')(Greeter.prototype, 'hello', Object.getOwnPropertyDescriptor(Greeter.prototype, 'hello')!);
  controller()(Greeter);
  @restRootModule({ controllers: [Greeter] })
  class App {}
  await t.rejects(RestApplication.create(App), {
    name: 'StartupError',
    message:
      /^Greeter is decorated, but TypeScript emitted no constructor parameter types for it: compile with "experimentalDecorators": true and "emitDecoratorMetadata": true in tsconfig\.json/,
  });

  class Plain {
    constructor(readonly ctx: RequestContext) {}
  }
  @restRootModule({ providersPerApp: [Plain], controllers: [] })
  class Undecorated {}
  await t.rejects(RestApplication.create(Undecorated), { message: /Plain takes constructor parameters but has no decorator.*add @injectable\(\)/ });
});
