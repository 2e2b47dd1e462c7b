import t from 'tap';

import {
  inject,
  injectable,
  InjectionToken,
  Injector,
  InjectorBlueprint,
  isClassProvider,
  isFactoryProvider,
  isTokenProvider,
  isValueProvider,
  optional,
  ProviderBuilder,
  ResolutionError,
  StartupError,
  type Provider,
} from '@lib/core';

const GREETING = new InjectionToken<string>('GREETING');
const PLUGINS = new InjectionToken<string[]>('PLUGINS');

@injectable()
class Clock {
  now(): number {
    return 42;
  }
}

@injectable()
class Greeter {
  constructor(
    readonly clock: Clock,
    @inject(GREETING) readonly greeting: string,
  ) {}
}

t.test('a class provider gets its constructor dependencies from their types and @inject', async (t) => {
  const injector = Injector.create([Clock, Greeter, { token: GREETING, useValue: 'hello' }]);
  const greeter = injector.get(Greeter);
  t.equal(greeter.greeting, 'hello');
  t.equal(greeter.clock, injector.get(Clock), 'one instance per injector');
});

t.test('every provider form, in an array or a ProviderBuilder', async (t) => {
  class Base {}
  class Impl extends Base {}
  const builder = new ProviderBuilder()
    .useValue(GREETING, 'hi')
    .useClass(Base, Impl)
    .useFactory(new InjectionToken<string>('SHOUT'), (greeting: string) => greeting.toUpperCase(), [GREETING])
    .useToken(new InjectionToken<string>('ALIAS'), GREETING)
    .useValue(PLUGINS, 'a' as never, true)
    .useFactory(PLUGINS, () => 'b' as never, [], true);
  const injector = Injector.create(builder);
  t.type(injector.get(Base), Impl);
  t.same(injector.get(PLUGINS), ['a', 'b'], 'multi providers collect into an array');
  const tokens = [...builder].map((provider) => (typeof provider === 'function' ? provider : provider.token));
  t.equal(tokens.length, 6);
  const shout = tokens[2] as InjectionToken<string>;
  const alias = tokens[3] as InjectionToken<string>;
  t.equal(injector.get(shout), 'HI');
  t.equal(injector.get(alias), 'hi');
});

t.test('type guards tell the provider shapes apart', async (t) => {
  const providers: Provider[] = [
    Clock,
    { token: GREETING, useValue: 'hi' },
    { token: Clock, useClass: Clock },
    { token: GREETING, useFactory: () => 'hi' },
    { token: GREETING, useToken: GREETING },
    { token: GREETING, useValue: undefined },
  ];
  const shapes = providers.map((provider) =>
    [isValueProvider, isClassProvider, isFactoryProvider, isTokenProvider].flatMap((guard) => (guard(provider) ? [guard.name] : [])),
  );
  t.same(shapes, [[], ['isValueProvider'], ['isClassProvider'], ['isFactoryProvider'], ['isTokenProvider'], ['isValueProvider']]);
  // biome-ignore lint/complexity/noStaticOnlyClass: the point is a class whose static field looks like a provider key
  class WithStatic {
    static useValue = 'a static field is not a provider shape';
  }
  t.notOk(isValueProvider(WithStatic), 'a class is provided as itself, whatever its static fields');
  const value = providers[1]!;
  t.equal(isValueProvider(value) ? value.useValue : undefined, 'hi', 'narrows to ValueProvider');
});

t.test('levels: a provider is visible to its level and below; the nearest one wins', async (t) => {
  const app = Injector.create([Clock, { token: GREETING, useValue: 'app' }], undefined, 'application');
  const mod = Injector.create([Greeter], app, 'module');
  const route = Injector.create([{ token: GREETING, useValue: 'route' }], mod, 'route');
  t.equal(route.get(GREETING), 'route');
  t.equal(mod.get(GREETING), 'app');
  t.equal(route.get(Greeter).greeting, 'app', 'a value is built by the level that provides it, from there upwards');
  t.equal(route.get(Clock), app.get(Clock), 'a parent-level value is shared');
  t.equal(app.get(Greeter as never, true), undefined, 'not visible upwards');
});

t.test('@optional() gives undefined when nothing provides the token', async (t) => {
  @injectable()
  class Service {
    constructor(@optional() readonly clock?: Clock) {}
  }
  t.equal(Injector.create([Service]).get(Service).clock, undefined);
});

t.test('start-up checks name the missing token with the chain that asked for it', async (t) => {
  @injectable()
  class Repository {
    constructor(@inject(GREETING) readonly dsn: string) {}
  }
  @injectable()
  class Service {
    constructor(readonly repository: Repository) {}
  }
  const app = new InjectorBlueprint('application', [[Repository]]);
  const request = new InjectorBlueprint('request GET /x', [[Service]], app);
  t.throws(() => request.check(Service), {
    name: 'StartupError',
    message:
      'No provider for InjectionToken(GREETING): Service -> Repository -> InjectionToken(GREETING) (looked in application). Provide it in one of these levels, or mark the parameter @optional().',
  });
});

t.test('a dependency cycle is found at start-up and when resolving', async (t) => {
  const A = new InjectionToken<unknown>('A');
  const B = new InjectionToken<unknown>('B');
  const providers = [
    { token: A, useFactory: (b: unknown) => b, deps: [B] },
    { token: B, useFactory: (a: unknown) => a, deps: [A] },
  ];
  t.throws(() => new InjectorBlueprint('module', [providers]).check(A), {
    name: 'StartupError',
    message: /^Dependency cycle: InjectionToken\(A\) -> InjectionToken\(B\) -> InjectionToken\(A\)\./,
  });
  t.throws(() => Injector.create(providers).get(A), { name: 'ResolutionError', message: /Dependency cycle through InjectionToken\(A\)/ });
});

t.test('mistakes in providers and classes are start-up errors', async (t) => {
  t.throws(() => Injector.create([{ token: GREETING } as never]), {
    message: /the provider of InjectionToken\(GREETING\) needs exactly one of useValue, useClass, useFactory, useToken \(it has none\)/,
  });
  t.throws(() => Injector.create([{ useValue: 1 } as never]), { message: /\{"useValue":1\} is not a provider/ });
  t.throws(() => Injector.create([{ token: GREETING, useValue: 'a', useClass: Clock } as never]), { message: /it has useValue and useClass/ });
  t.throws(() => Injector.create([{ token: GREETING, useClass: 'x' } as never]), { message: /useClass of InjectionToken\(GREETING\) is not a class/ });
  t.throws(() => Injector.create([{ token: GREETING, useFactory: 'x' } as never]), { message: /useFactory of .* is not a function/ });
  t.throws(() => Injector.create([{ token: GREETING, useToken: 'x' } as never]), { message: /useToken of .* is not a token/ });
  t.throws(
    () =>
      Injector.create([
        { token: PLUGINS, useValue: [], multi: true },
        { token: PLUGINS, useValue: [] },
      ]),
    { message: /provided both with and without multi: true/ },
  );
  class Undecorated {
    constructor(readonly clock: Clock) {}
  }
  t.throws(() => Injector.create([Undecorated]), { message: /Undecorated takes constructor parameters but has no decorator.*add @injectable\(\)/ });
  interface Shape {
    size: number;
  }
  @injectable()
  class TakesInterface {
    constructor(readonly shape: Shape) {}
  }
  t.throws(() => Injector.create([TakesInterface]), { message: /Parameter 0 of TakesInterface's constructor has no injectable type/ });
  t.throws(() => inject(undefined as never)(class X {}, undefined, 0), StartupError);
});

t.test('a failed Injector.get() is a ResolutionError, not a StartupError: it may happen while serving', async (t) => {
  const error = t.throws(() => Injector.create([], undefined, 'route GET /x').get(Clock), {
    name: 'ResolutionError',
    message: 'No provider for Clock (looked from route GET /x upwards).',
  });
  t.type(error, ResolutionError);
  t.notOk(error instanceof StartupError);
  t.equal(Injector.create([]).get(Clock, true), undefined, 'optional: undefined, no error');
});

t.test('external tokens are supplied when the injector is created', async (t) => {
  const CONTEXT = new InjectionToken<string>('CONTEXT');
  const blueprint = new InjectorBlueprint('request', [], undefined, [CONTEXT]);
  t.equal(blueprint.instantiate(undefined, new Map([[CONTEXT, 'ctx']])).get(CONTEXT), 'ctx');
  t.throws(() => blueprint.instantiate().get(CONTEXT), {
    name: 'ResolutionError',
    message: 'request: InjectionToken(CONTEXT) is supplied when the injector is created, and was not.',
  });
  t.doesNotThrow(() => blueprint.check(CONTEXT));
});
