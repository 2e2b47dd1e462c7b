/**
 * Where one module's CORS policy ends, in the host over real sockets: a module without CorsModule
 * gets nothing from it on a URL it shares with a covered path; each importing module keeps its own
 * options through CorsService.options() and reconfigure(); the twin's Allow is the host's 405
 * Allow; withOpts() of a missing section is refused. Found by an outside probe of CorsModule
 * (issue 49, points 1 to 4).
 */
import t from 'tap';

import { CorsModule, CorsOptionsError, CorsService } from '@lib/cors';
import { controller, RestApplication, restModule, restRootModule, route } from '@lib/rest';

import { serveApplication } from '../../helpers/app.js';
import { corsHeadersOf } from '../../helpers/http.js';

const EVIL = 'https://evil.example';

t.test('a module without CorsModule gets no CORS header on a URL a covered path matches too', async (t) => {
  @controller()
  class PublicUsers {
    @route('DELETE', 'users/:id')
    remove() {
      return 'removed';
    }
  }
  @controller()
  class InternalUsers {
    @route('GET', 'users/me')
    me() {
      return { secret: 'internal' };
    }
  }
  @restModule({ controllers: [InternalUsers] })
  class InternalModule {}
  @restRootModule({ imports: [CorsModule, InternalModule], controllers: [PublicUsers] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);

  const read = await server.send('GET', '/users/me', { Origin: EVIL });
  t.equal(read.status, 200, 'the internal route ran');
  t.same(corsHeadersOf(read), {}, 'no CORS header and no Vary on the internal route');
  const preflight = await server.send('OPTIONS', '/users/me', { Origin: EVIL, 'Access-Control-Request-Method': 'GET' });
  t.notOk('access-control-allow-origin' in preflight.headers, 'a preflight for the method the internal route runs is not granted');
  t.notOk('access-control-allow-methods' in preflight.headers, 'and lists no method');
  // The covered route on the same URL keeps its CORS.
  const removal = await server.send('OPTIONS', '/users/me', { Origin: EVIL, 'Access-Control-Request-Method': 'DELETE' });
  t.equal(removal.headers['access-control-allow-origin'], '*', 'the covered route of the URL is still granted');
  t.equal((await server.send('DELETE', '/users/7', { Origin: EVIL })).headers['access-control-allow-origin'], '*');
});

t.test('each importing module keeps its own options: options() reads them and reconfigure(options()) changes no answer', async (t) => {
  const ROOT = 'https://root.example';
  const FEATURE = 'https://feature.example';
  let rootCors: CorsService | undefined;
  let featureCors: CorsService | undefined;
  @controller()
  class RootController {
    constructor(cors: CorsService) {
      rootCors = cors;
    }
    @route('GET', 'root')
    get() {
      return 'root';
    }
  }
  @controller()
  class FeatureController {
    constructor(cors: CorsService) {
      featureCors = cors;
    }
    @route('GET', 'feature')
    get() {
      return 'feature';
    }
  }
  @restModule({ imports: [CorsModule.withOpts({ origin: [FEATURE], allowCredentials: false })], controllers: [FeatureController] })
  class FeatureModule {}
  @restRootModule({ imports: [CorsModule.withOpts({ origin: [ROOT], allowCredentials: false }), FeatureModule], controllers: [RootController] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  // One listed origin is sent whatever the request's: only an answer naming `origin` grants it.
  const granted = async (path: string, origin: string) => {
    const allowed = (await server.send('GET', path, { Origin: origin })).headers['access-control-allow-origin'];
    return allowed === origin ? origin : undefined;
  };
  const answers = async () => [
    await granted('/root', ROOT),
    await granted('/root', FEATURE),
    await granted('/feature', ROOT),
    await granted('/feature', FEATURE),
  ];

  const before = await answers();
  t.same(before, [ROOT, undefined, undefined, FEATURE], 'each module answers under its own options');
  t.same(rootCors!.options().origin, [ROOT], "the root controller's CorsService reads the root module's options");
  t.same(featureCors!.options().origin, [FEATURE], "the feature controller's reads the feature module's");

  // Each handle belongs to the request it was made for: read back and given back within it.
  await server.send('GET', '/root');
  rootCors!.reconfigure(rootCors!.options());
  await server.send('GET', '/feature');
  featureCors!.reconfigure(featureCors!.options());
  t.same(await answers(), before, 'reconfigure(options()) changes no answer anywhere');

  await server.send('GET', '/feature');
  featureCors!.reconfigure({ origin: ['https://new.example'] });
  t.equal(await granted('/feature', 'https://new.example'), 'https://new.example', "reconfigure() replaces its module's options");
  t.equal(await granted('/root', ROOT), ROOT, "and leaves the other module's alone");
  t.equal(await granted('/root', 'https://new.example'), undefined);
});

t.test("the twin's Allow is the host's 405 Allow where a module without CorsModule serves the path too", async (t) => {
  @controller()
  class Reads {
    @route('GET', 'things')
    list() {
      return [];
    }
  }
  @controller()
  class Writes {
    @route('POST', 'things')
    create() {
      return 'created';
    }
  }
  @restModule({ controllers: [Writes] })
  class WritesModule {}
  // The module without CorsModule is imported first: its POST is registered before the GET.
  @restRootModule({ imports: [WritesModule, CorsModule], controllers: [Reads] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  const refused = await server.send('PUT', '/things');
  t.equal(refused.status, 405);
  const plain = await server.send('OPTIONS', '/things');
  t.equal(plain.headers.allow, refused.headers.allow, 'one list, in one order');
  t.equal(plain.headers.allow, 'POST, GET, HEAD, OPTIONS', "in the contract's order: registration order, HEAD after GET, OPTIONS last");
  const withOrigin = await server.send('OPTIONS', '/things', { Origin: 'https://a.example' });
  t.equal(withOrigin.headers.allow, refused.headers.allow, 'with an Origin too');
});

t.test('withOpts() of undefined or null is refused at start-up, with CorsModule alone as the fix for the defaults', async (t) => {
  for (const missing of [undefined, null]) {
    const error = t.throws(() => CorsModule.withOpts(missing as never), CorsOptionsError, String(missing)) as CorsOptionsError;
    t.equal(error.code, 'CORS_OPTIONS_NOT_OBJECT');
    t.match(error.errors[0]!.fix, /import CorsModule itself for the defaults/);
  }
  // The fix, applied: CorsModule alone serves the defaults.
  @controller()
  class Items {
    @route('GET', 'items')
    list() {
      return [];
    }
  }
  @restRootModule({ imports: [CorsModule], controllers: [Items] })
  class App {}
  const app = await RestApplication.create(App);
  const { port } = await app.listen(0, '127.0.0.1');
  t.teardown(() => app.close());
  const answer = await fetch(`http://127.0.0.1:${port}/items`, { headers: { Origin: 'https://a.example' } });
  t.equal(answer.headers.get('access-control-allow-origin'), '*');
});
