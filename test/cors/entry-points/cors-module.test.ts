/** CorsModule, CorsOptions and CorsService in the host, over real sockets. */
import t from 'tap';
import Router from 'find-my-way';

import { ProviderBuilder } from '@lib/core';
import { CORS_LOGGER, CorsModule, CorsOptions, CorsOptionsError, CorsService } from '@lib/cors';
import { controller, RequestContext, RestApplication, restModule, restRootModule, route } from '@lib/rest';

import { serveApplication } from '../../helpers/app.js';
import { captureLogger, corsHeadersOf } from '../../helpers/http.js';

const corsOptions = (options: CorsOptions) => new ProviderBuilder().useValue<CorsOptions>(CorsOptions, options);

@controller()
class ItemsController {
  @route('GET', 'items')
  list() {
    return [];
  }
  @route('PUT', 'items/:id')
  update() {
    return { updated: true };
  }
}

t.test('with no options: OPTIONS twins and the default policy on every route of the importing module', async (t) => {
  @controller()
  class Untouched {
    @route('GET', 'internal')
    get() {
      return 'internal';
    }
  }
  @restModule({ controllers: [Untouched] })
  class InternalModule {}
  @restRootModule({ imports: [CorsModule, { module: InternalModule, path: 'admin' }], controllers: [ItemsController] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  t.same(
    server.app.routes.filter((r) => r.method === 'OPTIONS'),
    [
      { method: 'OPTIONS', path: '/items' },
      { method: 'OPTIONS', path: '/items/:id' },
    ],
    'twins only for the importing module',
  );
  t.same(corsHeadersOf(await server.send('OPTIONS', '/items')), { allow: 'GET, HEAD, OPTIONS', 'access-control-allow-origin': '*' });
  t.same(corsHeadersOf(await server.send('GET', '/items', { Origin: 'https://a.test' })), { 'access-control-allow-origin': '*' });
  t.same(
    corsHeadersOf(
      await server.send('OPTIONS', '/items/1', {
        Origin: 'https://a.test',
        'Access-Control-Request-Method': 'PUT',
        'Access-Control-Request-Headers': 'content-type',
      }),
    ),
    {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'PUT, OPTIONS',
      'access-control-allow-headers': 'content-type',
      vary: 'Access-Control-Request-Headers',
    },
  );
  const internal = await server.send('OPTIONS', '/admin/internal', { Origin: 'https://a.test' });
  t.equal(internal.status, 405, 'a module without CorsModule gets no twin');
  t.same(corsHeadersOf(internal), { allow: 'GET, HEAD' });
  const wrongMethod = await server.send('DELETE', '/items', { Origin: 'https://a.test' });
  t.equal(wrongMethod.status, 405);
  t.same(corsHeadersOf(wrongMethod), { allow: 'GET, HEAD, OPTIONS', 'access-control-allow-origin': '*' }, "the host's 405 is readable cross-origin");
});

t.test("Allow is the same list in the same order in the OPTIONS twin and in the host's 405", async (t) => {
  @controller()
  class Later {
    @route('DELETE', 'things/:id')
    remove() {}
    @route('GET', 'things')
    list() {}
  }
  @controller()
  class Earlier {
    @route('POST', 'things')
    create() {}
    @route('PUT', 'things/:id')
    replace() {}
    @route('GET', 'things/:id')
    get() {}
    @route('HEAD', 'status')
    status() {}
  }
  @restRootModule({ imports: [CorsModule], controllers: [Earlier, Later] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  const expected: Record<string, string> = {
    '/things': 'POST, GET, HEAD, OPTIONS',
    '/things/1': 'PUT, GET, HEAD, DELETE, OPTIONS',
    '/status': 'HEAD, OPTIONS',
  };
  for (const [path, allow] of Object.entries(expected)) {
    const twin = await server.send('OPTIONS', path);
    const refused = await server.send('PATCH', path);
    t.equal(refused.status, 405);
    t.equal(twin.headers.allow, allow, `${path}: the twin lists methods in registration order, HEAD after GET, OPTIONS last`);
    t.equal(refused.headers.allow, twin.headers.allow, `${path}: the 405 says the same`);
  }
});

t.test('precedence: defaults < withOpts < module providersPerRou < controller providersPerRou, field by field', async (t) => {
  @controller({ providersPerRou: corsOptions({ exposedHeaders: ['X-Controller'] }) })
  class Narrow {
    @route('GET', 'narrow')
    get() {
      return 'narrow';
    }
  }
  @controller()
  class Wide {
    @route('GET', 'wide')
    get() {
      return 'wide';
    }
  }
  @restRootModule({
    imports: [CorsModule.withOpts({ origin: ['https://a.test', 'https://b.test'], maxAge: 60, exposedHeaders: ['X-Module'] })],
    controllers: [Narrow, Wide],
    providersPerRou: corsOptions({ maxAge: 120 }),
  })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  const preflight = { Origin: 'https://a.test', 'Access-Control-Request-Method': 'GET' };
  t.equal((await server.send('OPTIONS', '/wide', preflight)).headers['access-control-max-age'], '120', 'module providersPerRou over withOpts');
  t.equal(
    (await server.send('GET', '/wide', { Origin: 'https://b.test' })).headers['access-control-expose-headers'],
    'X-Module',
    'withOpts kept where nothing overrides',
  );
  const narrow = await server.send('GET', '/narrow', { Origin: 'https://b.test' });
  t.equal(narrow.headers['access-control-expose-headers'], 'X-Controller', 'controller over module');
  t.equal(narrow.headers['access-control-allow-origin'], 'https://b.test', 'the origin list still comes from withOpts');
  t.equal(
    (await server.send('OPTIONS', '/narrow', preflight)).headers['access-control-max-age'],
    '120',
    "the module's route options still apply under the controller's",
  );
  t.notOk('access-control-allow-origin' in (await server.send('GET', '/narrow', { Origin: 'https://c.test' })).headers);
});

t.test('two feature modules importing CorsModule with different options keep their own policies', async (t) => {
  @controller()
  class A {
    @route('GET', 'a')
    get() {
      return 'a';
    }
  }
  @controller()
  class B {
    @route('GET', 'b')
    get() {
      return 'b';
    }
  }
  @restModule({ imports: [CorsModule.withOpts({ origin: 'https://one.test' })], controllers: [A] })
  class ModuleA {}
  @restModule({ imports: [CorsModule.withOpts({ origin: ['https://two.test', 'https://three.test'] })], controllers: [B] })
  class ModuleB {}
  @restRootModule({ imports: [ModuleA, ModuleB] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  t.same(corsHeadersOf(await server.send('GET', '/a', { Origin: 'https://two.test' })), { 'access-control-allow-origin': 'https://one.test' });
  t.same(corsHeadersOf(await server.send('GET', '/b', { Origin: 'https://two.test' })), { 'access-control-allow-origin': 'https://two.test', vary: 'Origin' });
});

t.test('one engine per application: ten importing modules keep their own policies, and a request costs one route lookup', async (t) => {
  const features = Array.from({ length: 10 }, (_, index) => {
    @controller()
    class Feature {
      @route('GET', `feature${index}`)
      get() {
        return `feature ${index}`;
      }
    }
    @restModule({ imports: [CorsModule.withOpts({ origin: `https://f${index}.test` })], controllers: [Feature] })
    class FeatureModule {}
    return FeatureModule;
  });
  // Counts every find-my-way lookup in this process, the engine's and the host router's alike.
  // Patched before the routers exist: compile() copies _findCompiled onto each instance.
  const prototype = Object.getPrototypeOf(Router()) as Record<'find' | '_findCompiled', (...args: unknown[]) => unknown>;
  const original = { find: prototype.find, _findCompiled: prototype._findCompiled };
  let lookups = 0;
  for (const name of ['find', '_findCompiled'] as const) {
    prototype[name] = function (this: unknown, ...args: unknown[]) {
      lookups++;
      return original[name].apply(this, args);
    };
  }
  t.teardown(() => Object.assign(prototype, original));
  @restRootModule({ imports: features })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  for (const index of [0, 9]) {
    lookups = 0;
    const answer = await server.send('GET', `/feature${index}`, { Origin: `https://f${index}.test` });
    t.equal(answer.headers['access-control-allow-origin'], `https://f${index}.test`, `module ${index} keeps its own policy`);
    t.equal(lookups, 1, "one lookup, the host router's, serving the engine and the route, whatever the number of modules");
  }
});

t.test("an application's own OPTIONS route answers plain OPTIONS; preflights stay the module's unless preflightContinue", async (t) => {
  @controller()
  class Own {
    @route('GET', 'own')
    get() {
      return 'own';
    }
    @route('OPTIONS', 'own')
    options(ctx: RequestContext) {
      ctx.send('my options');
    }
  }
  @controller({ providersPerRou: corsOptions({ preflightContinue: true }) })
  class Continued {
    @route('GET', 'continued')
    get() {
      return 'continued';
    }
  }
  @restRootModule({ imports: [CorsModule.withOpts({ origin: 'https://a.test' })], controllers: [Own, Continued] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  const plain = await server.send('OPTIONS', '/own', { Origin: 'https://a.test' });
  t.equal(plain.body, 'my options');
  t.equal(plain.headers['access-control-allow-origin'], 'https://a.test');
  const preflight = await server.send('OPTIONS', '/own', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'GET' });
  t.equal(preflight.status, 204);
  t.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');
  const continued = await server.send('OPTIONS', '/continued', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'GET' });
  t.equal(continued.status, 204, 'the twin answers a continued preflight');
  t.equal(continued.headers.allow, 'GET, HEAD, OPTIONS');
  t.equal(continued.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');
});

t.test('routes whose paths differ only in parameter names are one path, with one table, and stay so after reconfigure()', async (t) => {
  @controller()
  class Items {
    constructor(private readonly cors: CorsService) {}
    @route('GET', 'items/:id')
    get() {
      return 'item';
    }
    @route('PUT', 'items/:itemId')
    put() {
      this.cors.reconfigure({ ...this.cors.options(), origin: 'https://b.test' });
      return 'reconfigured';
    }
  }
  @restRootModule({ imports: [CorsModule.withOpts({ origin: 'https://a.test' })], controllers: [Items] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  for (const origin of ['https://a.test', 'https://b.test']) {
    const preflight = await server.send('OPTIONS', '/items/3', { Origin: origin, 'Access-Control-Request-Method': 'PUT' });
    t.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD, PUT, OPTIONS', `under ${origin}: both methods on the one path`);
    t.equal((await server.send('OPTIONS', '/items/3')).headers.allow, 'GET, HEAD, PUT, OPTIONS');
    if (origin === 'https://a.test') t.equal((await server.send('PUT', '/items/3', { Origin: origin })).body, 'reconfigured');
  }
});

t.test('CorsService.setCookie: rule D under a list policy', async (t) => {
  @controller()
  class Session {
    constructor(
      private readonly cors: CorsService,
      private readonly ctx: RequestContext,
    ) {}
    @route('GET', 'one')
    one() {
      this.cors.setCookie('one', 'value for one');
      this.ctx.send('ok');
    }
    @route('GET', 'several')
    several() {
      this.ctx.rawRes.setHeader('Set-Cookie', 'earlier=1');
      this.cors.setCookie('a', '1', { sameSite: 'none', secure: true, partitioned: true });
      this.cors.setCookie('b', '2', { httpOnly: false, path: '/x', maxAge: 60, domain: 'example.test', expires: new Date(0) });
      this.ctx.send('ok');
    }
    @route('GET', 'invalid')
    invalid() {
      this.cors.setCookie('bad name', 'x');
    }
  }
  const errors: string[] = [];
  @restRootModule({ imports: [CorsModule.withOpts({ origin: ['https://a.test', 'https://b.test'] })], controllers: [Session] })
  class App {}
  const server = await serveApplication(App, { logger: { error: (message) => errors.push(message) } });
  t.teardown(server.close);
  const allowed = await server.send('GET', '/one', { Origin: 'https://a.test' });
  t.same(allowed.headers['set-cookie'], ['one=value%20for%20one; Path=/; HttpOnly']);
  t.same(corsHeadersOf(allowed), { 'access-control-allow-origin': 'https://a.test', 'access-control-allow-credentials': 'true', vary: 'Origin' });
  const refused = await server.send('GET', '/one', { Origin: 'https://evil.test' });
  t.same(corsHeadersOf(refused), { 'access-control-allow-credentials': 'true', vary: 'Origin' }, 'no origin granted: the browser still refuses');
  const noOrigin = await server.send('GET', '/one');
  t.ok(noOrigin.headers['set-cookie']);
  t.notOk('access-control-allow-origin' in noOrigin.headers);
  const several = await server.send('GET', '/several', { Origin: 'https://b.test' });
  t.same(
    several.headers['set-cookie'],
    [
      'earlier=1',
      'a=1; Path=/; HttpOnly; Secure; Partitioned; SameSite=None',
      'b=2; Max-Age=60; Domain=example.test; Path=/x; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
    ],
    'appended, never replacing',
  );
  const invalid = await server.send('GET', '/invalid', { Origin: 'https://a.test' });
  t.equal(invalid.status, 500);
  t.notOk('set-cookie' in invalid.headers, 'nothing written');
  t.match(errors.at(-1), /GET \/invalid failed/);
});

t.test("the README's login: a path whose controller takes CorsService grants credentials to the listed origins, preflights included", async (t) => {
  @controller({ providersPerRou: corsOptions({ maxAge: 600 }) })
  class SessionController {
    constructor(
      private readonly cors: CorsService,
      private readonly ctx: RequestContext,
    ) {}
    @route('POST', 'login')
    login() {
      this.cors.setCookie('session', 'abc123', { sameSite: 'lax' });
      this.ctx.sendJson({ loggedIn: true });
    }
  }
  @controller({ providersPerRou: corsOptions({ maxAge: 600 }) })
  class SamePathController {
    @route('GET', 'login')
    form() {
      return 'the form';
    }
    @route('GET', 'public')
    open() {
      return 'public';
    }
  }
  @controller({ providersPerRou: corsOptions({ allowCredentials: false }) })
  class SaysNoController {
    constructor(private readonly cors: CorsService) {}
    @route('POST', 'opted-out')
    post() {
      this.cors.setCookie('x', '1');
    }
  }
  const { logger, warnings } = captureLogger();
  @restRootModule({
    imports: [CorsModule.withOpts({ origin: ['https://app.example.com'] })],
    controllers: [SessionController, SamePathController, SaysNoController],
    providersPerApp: [{ token: CORS_LOGGER, useValue: logger }],
  })
  class AppModule {}
  const server = await serveApplication(AppModule);
  t.teardown(server.close);
  const app = 'https://app.example.com';
  const preflight = await server.send('OPTIONS', '/login', {
    Origin: app,
    'Access-Control-Request-Method': 'POST',
    'Access-Control-Request-Headers': 'content-type',
  });
  t.same(
    corsHeadersOf(preflight),
    {
      'access-control-allow-origin': app,
      'access-control-allow-methods': 'POST, GET, HEAD, OPTIONS',
      'access-control-allow-headers': 'content-type',
      'access-control-max-age': '600',
      'access-control-allow-credentials': 'true',
      vary: 'Access-Control-Request-Headers',
    },
    'the preflight grants credentials: a credentialed JSON login passes',
  );
  const login = await server.send('POST', '/login', { Origin: app, 'Content-Type': 'application/json' });
  t.same(login.headers['set-cookie'], ['session=abc123; Path=/; HttpOnly; SameSite=Lax']);
  t.same(corsHeadersOf(login), { 'access-control-allow-origin': app, 'access-control-allow-credentials': 'true', vary: 'Origin' });
  t.same(
    corsHeadersOf(await server.send('GET', '/login', { Origin: app })),
    { 'access-control-allow-origin': app, 'access-control-allow-credentials': 'true' },
    'one policy per path: its other routes answer with credentials too',
  );
  t.same(
    corsHeadersOf(await server.send('GET', '/public', { Origin: app })),
    { 'access-control-allow-origin': app },
    'paths of controllers without CorsService are unchanged',
  );
  const optedOut = await server.send('OPTIONS', '/opted-out', { Origin: app, 'Access-Control-Request-Method': 'POST' });
  t.notOk('access-control-allow-credentials' in optedOut.headers, 'an explicit allowCredentials: false is kept');
  t.same(warnings, []);

  @controller()
  class WildHeaders {
    constructor(readonly cors: CorsService) {}
    @route('POST', 'x')
    post() {}
  }
  @restRootModule({ imports: [CorsModule.withOpts({ origin: ['https://a.test'], allowedHeaders: '*' })], controllers: [WildHeaders] })
  class Contradiction {}
  await t.rejects(RestApplication.create(Contradiction), {
    name: 'CorsOptionsError',
    message:
      /^POST \/x \(WildHeaders in Contradiction; answers with credentials, its path having a controller that takes CorsService\): CorsOptions\.allowedHeaders = "\*" together with allowCredentials: true/,
  });
});

t.test("ctx.setHeader('Vary', ...) adds to the engine's Vary: Origin; rawRes is node's own response, whose setHeader replaces it", async (t) => {
  @controller()
  class Negotiating {
    constructor(private readonly ctx: RequestContext) {}
    @route('GET', 'merged')
    merged() {
      this.ctx.setHeader('Vary', 'Accept').setHeader('Vary', ['Accept-Language', 'Origin']).setHeader('X-Other', 1);
      this.ctx.send('ok');
    }
    @route('GET', 'replaced')
    replaced() {
      this.ctx.rawRes.setHeader('Vary', 'Accept');
      this.ctx.send('ok');
    }
  }
  @restRootModule({ imports: [CorsModule.withOpts({ origin: ['https://a.test', 'https://b.test'] })], controllers: [Negotiating] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  const merged = await server.send('GET', '/merged', { Origin: 'https://a.test' });
  t.equal(merged.headers.vary, 'Origin, Accept, Accept-Language');
  t.equal(merged.headers['x-other'], '1');
  t.equal((await server.send('GET', '/replaced', { Origin: 'https://a.test' })).headers.vary, 'Accept', 'no method of the response is wrapped');
});

t.test("CorsService.setCookie under '*' keeps '*' and warns once how to list origins", async (t) => {
  @controller()
  class Session {
    constructor(private readonly cors: CorsService) {}
    @route('GET', 'login')
    login(ctx: RequestContext) {
      this.cors.setCookie('one', 'value for one');
      ctx.send('ok');
    }
  }
  const { logger, warnings } = captureLogger();
  @restRootModule({ imports: [CorsModule], controllers: [Session], providersPerApp: [{ token: CORS_LOGGER, useValue: logger }] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  t.equal(warnings.length, 1, 'warned at start-up, before any request');
  t.equal(
    warnings[0],
    "CorsModule in App: GET /login belongs to a controller that takes CorsService to set cookies, but its CORS origin is '*', and browsers refuse " +
      "credentials under '*'. List the origins that may send credentials, e.g. CorsModule.withOpts({ origin: ['https://app.example.com'] }).",
  );
  for (let i = 0; i < 2; i++) {
    const answer = await server.send('GET', '/login', { Origin: 'https://a.test' });
    t.same(corsHeadersOf(answer), { 'access-control-allow-origin': '*', 'access-control-allow-credentials': 'true' });
  }
  const noOrigin = await server.send('GET', '/login');
  t.same(noOrigin.headers['set-cookie'], ['one=value%20for%20one; Path=/; HttpOnly']);
  t.same(corsHeadersOf(noOrigin), { 'access-control-allow-origin': '*', 'access-control-allow-credentials': 'true' });
  t.equal(warnings.length, 1, 'and not again when setCookie runs');
});

t.test("the warning about cookies under '*' names several routes in one sentence", async (t) => {
  @controller()
  class Session {
    constructor(private readonly cors: CorsService) {}
    @route('POST', 'login')
    login(ctx: RequestContext) {
      this.cors.setCookie('one', 'value for one');
      ctx.send('ok');
    }
    @route('GET', 'me')
    me(ctx: RequestContext) {
      ctx.send('me');
    }
    @route('POST', 'logout')
    logout(ctx: RequestContext) {
      ctx.send('bye');
    }
  }
  const { logger, warnings } = captureLogger();
  @restRootModule({ imports: [CorsModule], controllers: [Session], providersPerApp: [{ token: CORS_LOGGER, useValue: logger }] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  t.same(warnings, [
    "CorsModule in App: POST /login, GET /me and POST /logout belong to controllers that take CorsService to set cookies, but their CORS origin is '*', " +
      "and browsers refuse credentials under '*'. List the origins that may send credentials, e.g. CorsModule.withOpts({ origin: ['https://app.example.com'] }).",
  ]);
});

t.test('bad options stop start-up with the engine error, naming where they came from', async (t) => {
  @restRootModule({ imports: [CorsModule.withOpts({ origin: 'https://example.com/' })], controllers: [ItemsController] })
  class BadModuleOptions {}
  await t.rejects(RestApplication.create(BadModuleOptions), {
    name: 'CorsOptionsError',
    message: /^CorsModule\.withOpts\(\) imported by BadModuleOptions: CorsOptions\.origin = "https:\/\/example\.com\/" .*write it as 'https:\/\/example\.com'/,
  });

  @restRootModule({ imports: [CorsModule], controllers: [ItemsController], providersPerRou: corsOptions({ maxAge: -1 }) })
  class BadModuleRoute {}
  await t.rejects(RestApplication.create(BadModuleRoute), { message: /^GET \/items \(ItemsController in BadModuleRoute\): CorsOptions\.maxAge = -1/ });

  @controller({ providersPerRou: corsOptions({ allowCredentials: true }) })
  class CredentialedController {
    @route('GET', 'x')
    get() {}
  }
  @restRootModule({ imports: [CorsModule], controllers: [CredentialedController] })
  class BadController {}
  const error = await RestApplication.create(BadController).catch((caught: unknown) => caught);
  t.type(error, CorsOptionsError);
  t.match(error, {
    message:
      /^GET \/x \(CredentialedController in BadController\): CorsOptions\.origin = "\*" \(the default, as no origin is set\) together with allowCredentials/,
  });

  @controller({ providersPerRou: corsOptions({ orgin: 'https://a.test' } as CorsOptions) })
  class Typo {
    @route('GET', 'y')
    get() {}
  }
  @restRootModule({ imports: [CorsModule], controllers: [Typo] })
  class TypoApp {}
  await t.rejects(RestApplication.create(TypoApp), { message: /^GET \/y \(Typo in TypoApp\): CorsOptions\.orgin = "https:\/\/a\.test" is not a CORS option/ });
});

t.test('route-level CorsOptions may come from any provider form', async (t) => {
  @controller({ providersPerRou: [{ token: CorsOptions, useFactory: () => ({ origin: 'https://factory.test' }) }] })
  class Factory {
    @route('GET', 'f')
    get() {
      return 'f';
    }
  }
  @restRootModule({ imports: [CorsModule], controllers: [Factory] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  t.equal((await server.send('GET', '/f', { Origin: 'https://factory.test' })).headers['access-control-allow-origin'], 'https://factory.test');
});
