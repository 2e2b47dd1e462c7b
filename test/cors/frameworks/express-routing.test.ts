/**
 * Express routes a request in ways the mirror has to follow exactly, or a route Express runs is
 * answered under another route's policy. Each case here was found by a review probe against
 * Express 4 and 5 (the first four with a credentialed grant going to the wrong origin), and each
 * handler names the route that ran, so the grant is checked against the route Express chose:
 * - a router mounted at an unanchored RegExp is entered only where the match begins the path;
 * - a route of `.get()` and `.all()` runs HEAD as GET, under GET's marker;
 * - `route.all()` serves every method node parses, as `app.all()` does: beside a route naming
 *   PURGE it is refused when first, and after an OPTIONS route it decides PROPFIND;
 * - the middleware mounted under a prefix follows a rewrite of req.url made before it;
 * - a connect application mounted in Express (Vite's `vite.middlewares`) is middleware, no crash;
 * - an application mounted in another, with its own middleware (the fix CORS_MOUNT_UNSEEN gives),
 *   is matched on what follows its mount path, where every request went uncovered;
 * - one middleware in two applications covers only the one whose routes it read, while an
 *   application called as a plain function (which leaves its req.app behind) is no second user;
 * - after mirror(), a router mounted in an array is refused and a connect application is not;
 * - a router given as a route's handler, whose routes cannot be read, is refused (CORS_MOUNT_UNSEEN).
 */
import connect from 'connect';
import express5 from 'express';
import express4 from 'express4';
import t, { type Test } from 'tap';

import { createCors } from '@lib/cors/express';

import { captureLogger, serve } from '../../helpers/http.js';

type Express = typeof express5;
const quiet = { warn: () => {}, error: () => {} };
const P0 = { origin: 'https://p0.test' };
const P1 = { origin: 'https://p1.test', allowCredentials: true };
const P2 = { origin: 'https://p2.test' };

interface Seen {
  status: number;
  ran: string | undefined;
  allowOrigin: string | undefined;
  allowCredentials: string | undefined;
}

/** A handler that names its route. */
const ran = (name: string) => (_req: unknown, res: { setHeader(name: string, value: string): void; end(body: string): void }) => {
  res.setHeader('X-Ran', name);
  res.end(name);
};

async function served(t: Test, app: unknown) {
  const server = await serve(app as never);
  t.teardown(server.close);
  return async (method: string, path: string, headers: Record<string, string> = {}): Promise<Seen> => {
    const answer = await server.send(method, path, headers);
    const header = (name: string) => answer.headers[name] as string | undefined;
    return {
      status: answer.status,
      ran: header('x-ran'),
      allowOrigin: header('access-control-allow-origin'),
      allowCredentials: header('access-control-allow-credentials'),
    };
  };
}

const VERSIONS: Record<string, Express> = { 'Express 5': express5, 'Express 4': express4 as unknown as Express };

for (const [name, express] of Object.entries(VERSIONS)) {
  t.test(`${name}: a router mounted at an unanchored RegExp is entered only where the match begins the path`, async (t) => {
    const app = express();
    const cors = createCors(P0, { logger: quiet });
    app.use(cors);
    const router = express.Router();
    router.get('/x/:thing', cors.route(P1), ran('router /x/:thing'));
    app.use(/\/api/, router);
    app.get('/abc/x/api', cors.route(P2), ran('app /abc/x/api'));
    cors.mirror(app);
    const send = await served(t, app);
    const seen = await send('GET', '/abc/x/api', { Origin: P1.origin });
    t.equal(seen.ran, 'app /abc/x/api', 'Express passed the router by: /api is not where the path begins');
    t.equal(seen.allowOrigin, P2.origin, "the app route's policy");
    t.equal(seen.allowCredentials, undefined, "not the router's credentialed grant");
    const entered = await send('GET', '/api/x/1', { Origin: P1.origin });
    t.same(
      [entered.ran, entered.allowOrigin, entered.allowCredentials],
      ['router /x/:thing', P1.origin, 'true'],
      'where it begins the path, the router runs, under its policy',
    );
  });

  t.test(`${name}: a route of .get() and .all() answers GET and HEAD under what both layers allow, as either may run`, async (t) => {
    const app = express();
    const cors = createCors(P0, { logger: quiet });
    app.use(cors);
    app.route('/doc').get(cors.route(P2), ran('get layer')).all(cors.route(P1), ran('all layer'));
    cors.mirror(app);
    const send = await served(t, app);
    const head = await send('HEAD', '/doc', { Origin: P1.origin });
    t.equal(head.ran, 'get layer');
    // The .all() layer runs for GET too where the .get() layer calls next(): what both allow (rule F), nothing.
    t.same([head.allowOrigin, head.allowCredentials], [undefined, undefined], 'not the credentialed grant of .all()');
    const post = await send('POST', '/doc', { Origin: P1.origin });
    t.same([post.ran, post.allowOrigin, post.allowCredentials], ['all layer', P1.origin, 'true']);
  });

  t.test(`${name}: route.all() serves every method node parses, as app.all() does`, async (t) => {
    const first = express();
    const firstCors = createCors(P0, { logger: quiet });
    first.use(firstCors);
    first.route('/a').all(firstCors.route(P2), ran('all /a'));
    first.purge('/a', firstCors.route(P1), ran('PURGE /a'));
    const sendFirst = await served(t, first);
    const purged = await sendFirst('PURGE', '/a', { Origin: P1.origin });
    t.same(
      [purged.ran, purged.allowOrigin, purged.allowCredentials],
      ['all /a', undefined, undefined],
      "Express runs route.all() for PURGE: what both routes allow, not the PURGE route's credentials",
    );

    const app = express();
    const cors = createCors(P0, { logger: quiet });
    app.use(cors);
    app.options('/dav', cors.route(P1), ran('OPTIONS /dav'));
    app.route('/dav').all(cors.route(P2), ran('all /dav'));
    cors.mirror(app);
    const send = await served(t, app);
    for (const method of ['PROPFIND', 'PURGE', 'DELETE']) {
      const seen = await send(method, '/dav', { Origin: P2.origin });
      t.same(
        [seen.ran, seen.allowOrigin, seen.allowCredentials],
        ['all /dav', P2.origin, undefined],
        `${method}: the route of every method runs it, under its policy`,
      );
      const preflight = await send('OPTIONS', '/dav', { Origin: P2.origin, 'Access-Control-Request-Method': method });
      t.equal(preflight.allowOrigin, P2.origin, `${method}: its preflight too`);
    }
    t.equal((await send('OPTIONS', '/dav', { Origin: P1.origin })).ran, 'OPTIONS /dav', 'a plain OPTIONS runs the OPTIONS route declared first');
  });

  t.test(`${name}: mounted under a prefix, the middleware follows a rewrite of req.url made before it`, async (t) => {
    for (const mounted of [false, true]) {
      const app = express();
      // Strict: /api/ is not /api, so the / Express puts in a mounted req.url must not count.
      app.set('strict routing', true);
      const cors = createCors(P0, { logger: quiet });
      // An old URL scheme kept working: /v1/... is served by /api/...
      app.use((req, _res, next) => {
        if (req.url.startsWith('/v1/')) req.url = `/api/${req.url.slice(4)}`;
        next();
      });
      if (mounted) app.use('/api', cors);
      else app.use(cors);
      app.get('/api/admin', cors.route(P1), ran('GET /api/admin'));
      app.get('/v1/:page', cors.route(P2), ran('GET /v1/:page'));
      app.get('/api', cors.route(P2), ran('GET /api'));
      // A trap for a wrong reading of the path: it matches none of the paths asked below.
      app.get(/^(?!\/api\/admin$|\/api$|\/v1\/).*/, cors.route(P2), ran('catch-all'));
      cors.mirror(app);
      const send = await served(t, app);
      const how = mounted ? "app.use('/api', cors)" : 'app.use(cors)';
      const seen = await send('GET', '/v1/admin', { Origin: P1.origin });
      t.same([seen.ran, seen.allowOrigin, seen.allowCredentials], ['GET /api/admin', P1.origin, 'true'], `${how}: the route Express ran on the rewritten URL`);
      const preflight = await send('OPTIONS', '/v1/admin', { Origin: P1.origin, 'Access-Control-Request-Method': 'GET' });
      t.same([preflight.allowOrigin, preflight.allowCredentials], [P1.origin, 'true'], `${how}: its preflight too`);
      const mountRoot = await send('GET', '/api?x=1', { Origin: P2.origin });
      t.same([mountRoot.ran, mountRoot.allowOrigin], ['GET /api', P2.origin], `${how}: the mount path itself, where Express puts a / in req.url`);
      const absolute = await send('GET', 'http://api.test/api/admin', { Origin: P1.origin });
      t.same([absolute.ran, absolute.allowOrigin], ['GET /api/admin', undefined], `${how}: an absolute URL, which no browser sends, is not covered`);
    }
  });

  t.test(`${name}: a connect application mounted in Express is middleware: no crash, the routes around it keep their policies`, async (t) => {
    const app = express();
    const cors = createCors(P0, { logger: quiet });
    app.use(cors);
    const assets = connect();
    assets.use('/assets', (_req, res) => {
      res.setHeader('X-Ran', 'connect /assets');
      res.end('asset');
    });
    app.use(assets);
    app.get('/api/a', cors.route(P2), ran('GET /api/a'));
    t.doesNotThrow(() => cors.mirror(app));
    const send = await served(t, app);
    t.same(await send('GET', '/api/a', { Origin: P2.origin }), { status: 200, ran: 'GET /api/a', allowOrigin: P2.origin, allowCredentials: undefined });
    const asset = await send('GET', '/assets/x', { Origin: P2.origin });
    t.same([asset.status, asset.ran, asset.allowOrigin], [200, 'connect /assets', P0.origin], "its answer is no route's: the middleware's options");
  });

  t.test(`${name}: an application mounted in another, with its own middleware, is answered under its own routes' policies`, async (t) => {
    const app = express();
    const outer = express();
    const inner = express();
    const cors = createCors(P0, { logger: quiet });
    inner.use(cors);
    inner.get('/x', cors.route(P1), ran('inner /x'));
    inner.get('/', cors.route(P2), ran('inner /'));
    outer.use('/Inner', inner);
    app.use('/outer', outer);
    app.get('/outer/inner/x', ran('app /outer/inner/x'));
    cors.mirror(inner);
    const send = await served(t, app);
    const x = await send('GET', '/outer/inner/x', { Origin: P1.origin });
    t.same([x.ran, x.allowOrigin, x.allowCredentials], ['inner /x', P1.origin, 'true'], 'matched on what follows both mount paths, whatever their case');
    const root = await send('GET', '/outer/inner?page=2', { Origin: P2.origin });
    t.same([root.ran, root.allowOrigin], ['inner /', P2.origin], "the mount path itself is the inner application's /");

    const patterned = express();
    const patternedCors = createCors(P0, { logger: quiet });
    patterned.use('/:area', patternedCors);
    patterned.get('/:area/x', ran('x'));
    express().use('/:version', patterned);
    t.throws(
      () => patternedCors.mirror(patterned),
      { code: 'CORS_MOUNT_UNSEEN', message: /a pattern the middleware is mounted at/ },
      'the middleware mounted at a pattern: refused, as the URL the application routes cannot be told',
    );
  });

  t.test(`${name}: one middleware in two applications covers only the one whose routes it read`, async (t) => {
    const captured = captureLogger();
    const cors = createCors(P0, { logger: captured.logger });
    const first = express();
    first.use(cors);
    first.get('/data', cors.route(P1), ran('first /data'));
    const second = express();
    second.use(cors);
    second.get('/data', cors.route(P2), ran('second /data'));
    cors.mirror(first);
    const sendFirst = await served(t, first);
    const sendSecond = await served(t, second);
    t.same((await sendFirst('GET', '/data', { Origin: P1.origin })).allowOrigin, P1.origin);
    const other = await sendSecond('GET', '/data', { Origin: P1.origin });
    t.same([other.ran, other.allowOrigin, other.allowCredentials], ['second /data', undefined, undefined], "not the first application's credentialed grant");
    t.match(captured.errors.join('\n'), /two Express applications/, 'said in the log');
  });

  t.test(`${name}: an application with its own middleware is matched on what follows its mount, however and whenever it is mounted`, async (t) => {
    const inner = () => {
      const app = express();
      const cors = createCors(P0, { logger: quiet });
      app.use(cors);
      app.get('/x', cors.route(P2), ran('inner /x'));
      // A trap for a path read with the mount path left on: it does not match /x itself.
      app.all(/^(?!\/x$).*/, cors.route(P1), ran('inner catch-all'));
      return { app, cors };
    };
    const mirroredFirst = inner();
    mirroredFirst.cors.mirror(mirroredFirst.app);
    const parent = express();
    parent.use('/sub', mirroredFirst.app);
    const viaRouter = inner();
    const router = express.Router();
    router.use('/r', viaRouter.app);
    parent.use(router);
    for (const [how, path] of [
      ['mirror() before app.use() mounted it', '/sub/x'],
      ['mounted by a router, which sets no parent', '/r/x'],
    ]) {
      const send = await served(t, parent);
      const seen = await send('GET', path!, { Origin: P2.origin });
      t.same([seen.ran, seen.allowOrigin, seen.allowCredentials], ['inner /x', P2.origin, undefined], `${how}: not the catch-all's credentialed grant`);
    }
  });

  t.test(`${name}: an application called as a plain function, which leaves its req.app behind, is no second user`, async (t) => {
    const legacy = express();
    legacy.get('/old', ran('legacy /old'));
    const app = express();
    app.use((req, res, next) => legacy(req as never, res as never, next));
    const captured = captureLogger();
    const cors = createCors(P0, { logger: captured.logger });
    app.use(cors);
    app.get('/api/data', cors.route(P1), ran('app /api/data'));
    cors.mirror(app);
    const send = await served(t, app);
    const seen = await send('GET', '/api/data', { Origin: P1.origin });
    t.same([seen.ran, seen.allowOrigin, seen.allowCredentials], ['app /api/data', P1.origin, 'true']);
    t.equal((await send('OPTIONS', '/api/data', { Origin: P1.origin, 'Access-Control-Request-Method': 'GET' })).allowOrigin, P1.origin, 'its preflight');
    t.same(captured.errors, [], 'nothing logged');
  });

  t.test(`${name}: after mirror(), routers and applications are mounted by Express as ever`, async (t) => {
    const app = express();
    const cors = createCors(P0, { logger: quiet });
    app.use(cors);
    app.get('/a', ran('a'));
    const api = express.Router();
    api.get('/b', ran('b'));
    app.use('/api', api);
    cors.mirror(app);
    const late = express.Router();
    late.get('/c', ran('c'));
    // Nothing of Express was replaced: its own use() and route() mount and declare as ever.
    const { use, route } = api;
    t.doesNotThrow(() => api.use('/late', [late]));
    t.doesNotThrow(() => app.use(connect()));
    t.equal(api.use, use);
    t.equal(api.route, route);
  });

  t.test(`${name}: a router given as a route's handler is refused: its routes cannot be read from there`, async (t) => {
    const app = express();
    const cors = createCors(P0, { logger: quiet });
    app.use(cors);
    const api = express.Router();
    api.get('/api/admin', cors.route(P1), ran('api /api/admin'));
    app.get(/^\/api\//, api);
    t.throws(() => cors.mirror(app), { code: 'CORS_MOUNT_UNSEEN', message: /handler is a router.*app\.use\(\)/ });
  });

  t.test(`${name}: an application whose middleware is mounted inside it is matched on what follows its own mount, however it is mounted`, async (t) => {
    const parent = express();
    const sub = express();
    const cors = createCors(P0, { logger: quiet });
    sub.use('/api', cors);
    sub.get('/api/items', cors.route(P2), ran('sub /api/items'));
    // A trap for a path read wrong: it does not match /api/items itself.
    sub.all(/^(?!\/api\/items$).*/, cors.route(P1), ran('sub catch-all'));
    cors.mirror(sub);
    parent.use('/a', sub);
    parent.use('/b', sub);
    const router = express.Router();
    router.use('/s', sub);
    parent.use('/v1', router);
    parent.use('/t/:tenant', sub);
    const send = await served(t, parent);
    for (const path of ['/a/api/items', '/b/api/items', '/v1/s/api/items', '/t/acme/api/items']) {
      const seen = await send('GET', path, { Origin: P2.origin });
      t.same([seen.ran, seen.allowOrigin, seen.allowCredentials], ['sub /api/items', P2.origin, undefined], `${path}: its route's policy`);
    }
  });

  t.test(`${name}: an application using the middleware at its top is covered mounted at a pattern or at several paths`, async (t) => {
    const parent = express();
    const sub = express();
    const cors = createCors(P0, { logger: quiet });
    sub.use(cors);
    sub.get('/items', cors.route(P2), ran('sub /items'));
    parent.use('/t/:tenant', sub);
    parent.use(['/x', '/y'], sub);
    cors.mirror(sub);
    const send = await served(t, parent);
    for (const path of ['/t/acme/items', '/y/items']) {
      const seen = await send('GET', path, { Origin: P2.origin });
      t.same([seen.ran, seen.allowOrigin], ['sub /items', P2.origin], path);
    }
  });
}
