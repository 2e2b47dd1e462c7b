/**
 * Express, as issue 45 asks of it: the entry point reads Express's routes and changes nothing of
 * Express, and no answer grants more than the route Express ran allows (rule F). The two
 * credentialed grants an outside probe found in the previous design, each as it found them:
 * - `app.all('/api/*', authenticate)` (Express's own documented pattern) ahead of routes with a
 *   narrower cors.route(): every route below it was answered under the middleware's options;
 * - `next('route')` from `GET /users/:id`, open to a partner, to `GET /users/admin`, closed: the
 *   answer carried the first route's credentialed grant while the closed route ran.
 */
import express5 from 'express';
import express4 from 'express4';
import t from 'tap';

import { createCors } from '@lib/cors/express';

import { serve } from '../../helpers/http.js';

type Express = typeof express5;
const VERSIONS: Record<string, { express: Express; wildcard: string }> = {
  'Express 5': { express: express5, wildcard: '/api/*rest' },
  'Express 4': { express: express4 as unknown as Express, wildcard: '/api/*' },
};
const quiet = { warn: () => {}, error: () => {} };
const PARTNER = 'https://partner.test';
const ADMIN = 'https://admin.test';
/** Two origins a list: a policy of the dynamic kind grants only the origin asking, by name. */
const PARTNERS = { origin: [PARTNER, 'https://partner-2.test'], allowCredentials: true };
const ADMINS = { origin: [ADMIN, 'https://admin-2.test'], allowCredentials: true };

const preflight = (origin: string, method: string) => ({ Origin: origin, 'Access-Control-Request-Method': method });

for (const [name, { express, wildcard }] of Object.entries(VERSIONS)) {
  t.test(`${name}: app.all() running authentication ahead of routes with their own cors.route() keeps their policies`, async (t) => {
    const app = express();
    const cors = createCors(PARTNERS, { logger: quiet });
    app.use(cors);
    app.all(wildcard, (_req, _res, next) => next());
    app.get('/api/admin', cors.route(ADMINS), (_req, res) => void res.send('admin data'));
    app.put('/api/admin', cors.route(ADMINS), (_req, res) => void res.send('saved'));
    app.get('/api/news', (_req, res) => void res.send('news'));
    const server = await serve(app as never);
    t.teardown(server.close);

    const read = await server.send('GET', '/api/admin', { Origin: PARTNER });
    t.equal(read.body, 'admin data', 'Express ran the admin route');
    t.equal(read.headers['access-control-allow-origin'], undefined, "the partner does not read the admin route's data");
    t.equal(
      (await server.send('OPTIONS', '/api/admin', preflight(PARTNER, 'PUT'))).headers['access-control-allow-origin'],
      undefined,
      'nor is its PUT preflight granted',
    );
    const admin = await server.send('OPTIONS', '/api/admin', preflight(ADMIN, 'PUT'));
    t.same(
      [admin.headers['access-control-allow-origin'], admin.headers['access-control-allow-credentials']],
      [ADMIN, 'true'],
      "the route's own origin still is",
    );
    t.equal(
      (await server.send('GET', '/api/news', { Origin: PARTNER })).headers['access-control-allow-origin'],
      PARTNER,
      "a route without cors.route() has the middleware's",
    );
  });

  t.test(`${name}: next('route') to a closed route carries no grant of the route it left`, async (t) => {
    const app = express();
    const cors = createCors(ADMINS, { logger: quiet });
    app.use(cors);
    app.get('/users/:id', cors.route(PARTNERS), (req, res, next) => (req.params.id === 'admin' ? next('route') : void res.send('a user')));
    app.get('/users/admin', cors.route({ origin: false }), (_req, res) => void res.send('the admin'));
    const server = await serve(app as never);
    t.teardown(server.close);

    const user = await server.send('GET', '/users/7', { Origin: PARTNER });
    t.same([user.body, user.headers['access-control-allow-origin']], ['a user', PARTNER], "a user's route is open to the partner");
    const closed = await server.send('GET', '/users/admin', { Origin: PARTNER });
    t.equal(closed.body, 'the admin', 'Express ran the closed route');
    t.equal(closed.headers['access-control-allow-origin'], undefined, 'no grant');
    t.equal(closed.headers['access-control-allow-credentials'], undefined);
    const asked = await server.send('OPTIONS', '/users/admin', { ...preflight(PARTNER, 'GET'), 'Access-Control-Request-Headers': 'authorization' });
    t.equal(asked.headers['access-control-allow-origin'], undefined, 'nor to its preflight');
  });

  t.test(`${name}: routes of different policies sharing a URL are named once, with the fix, when rule F narrows their answer`, async (t) => {
    const warnings: string[] = [];
    const app = express();
    const cors = createCors(PARTNERS, { logger: { warn: (line: string) => void warnings.push(line), error: () => {} } });
    app.use(cors);
    app.put('/users/:id', cors.route(ADMINS), (_req, res) => void res.send('a user'));
    app.put('/users/me', (_req, res) => void res.send('me'));
    app.get('/users/:id', (_req, res) => void res.send('read'));
    const server = await serve(app as never);
    t.teardown(server.close);
    await server.send('GET', '/users/me', { Origin: PARTNER });
    t.same(warnings, [], 'one route serves GET there: nothing to say');
    const answer = await server.send('PUT', '/users/me', { Origin: PARTNER });
    t.equal(answer.headers['access-control-allow-origin'], undefined, 'narrowed: the admins alone may not, the partners alone may not');
    t.equal(warnings.length, 1);
    t.match(
      warnings[0],
      /PUT on a URL matched by the route of \/users\/:id and a route without options of its own is answered under what all of them allow.*Fix: give those routes paths that do not share a URL, or one policy/,
    );
    await server.send('OPTIONS', '/users/me', preflight(PARTNER, 'PUT'));
    await server.send('PUT', '/users/me', { Origin: ADMIN });
    t.equal(warnings.length, 1, 'said once');
  });

  t.test(`${name}: nothing of Express is added or replaced, by reading its routes or by serving`, async (t) => {
    const app = express();
    const cors = createCors(PARTNERS, { logger: quiet });
    // Each request's own objects too: no own property of the response or request replaces one of
    // its prototypes' methods (a wrapped writeHead(), say), read as the response finishes.
    const shadowed: string[] = [];
    app.use((req, res, next) => {
      res.on('finish', () => shadowed.push(...shadowingMethods(res), ...shadowingMethods(req)));
      next();
    });
    app.use(cors);
    const api = express.Router();
    api.get('/items/:id', cors.route(ADMINS), (_req, res) => void res.send('item'));
    app.use('/api', api);
    app.all(wildcard, (_req, _res, next) => next());
    app.get('/open', (_req, res) => void res.send('open'));
    const router = (app as unknown as { _router?: object; router?: object })._router ?? (app as unknown as { router: object }).router;
    const layers = (router as { stack: object[] }).stack;
    const watched: [string, object][] = [
      ['the application', app],
      ['its router', router],
      ['the mounted router', api],
      ['the Layer prototype', Object.getPrototypeOf(layers[0]!)],
      ['the Route prototype', Object.getPrototypeOf((layers.find((layer) => 'route' in layer && layer.route) as { route: object }).route)],
      ['the router prototype', Object.getPrototypeOf(router)],
      ['express.application', express.application],
      ['express.request', express.request],
      ['express.response', express.response],
      ...layers.map((layer, index): [string, object] => [`layer ${index}`, layer]),
    ];
    const before = watched.map(([, object]) => snapshot(object));
    cors.mirror(app);
    const server = await serve(app as never);
    t.teardown(server.close);
    for (const [method, path, headers] of [
      ['GET', '/api/items/1', { Origin: ADMIN }],
      ['OPTIONS', '/api/items/1', preflight(ADMIN, 'GET')],
      ['GET', '/open', { Origin: PARTNER }],
      ['OPTIONS', '/open', {}],
      ['GET', '/nowhere', { Origin: PARTNER }],
    ] as const) {
      await server.send(method, path, headers);
    }
    watched.forEach(([what, object], index) => {
      t.same(snapshot(object), before[index], `${what}: the same properties, the same functions`);
    });
    t.same(shadowed, [], "no method of a request's response or request replaced");
  });
}

/**
 * An object's own property names, each function-valued one with its function: what a patch would
 * change. Other values are Express's own to change as it serves (Express 4 keeps a layer's last
 * match on it).
 */
/** The own properties of `object` that hide a method of one of its prototypes: what a wrapper adds. */
function shadowingMethods(object: object): string[] {
  const prototype = Object.getPrototypeOf(object) as object;
  return Reflect.ownKeys(object)
    .filter((key) => typeof (prototype as Record<PropertyKey, unknown>)[key] === 'function')
    .map(String);
}

function snapshot(object: object): [string, unknown][] {
  return Reflect.ownKeys(object).map((key) => {
    const value = Object.getOwnPropertyDescriptor(object, key)?.value as unknown;
    return [String(key), typeof value === 'function' ? value : 'a value'];
  });
}

/**
 * Found by an adversarial probe of this design (each gave a grant the route that ran does not
 * allow): a marker in one router's use() widening another router's routes; the middleware mounted
 * with a trailing slash, or under strict routing, reading another path than Express routes; an
 * app.all() of one path that takes next but answers; a route added to a nested router after the
 * first request; allowedMethods: '*' granting a method no route serves; a parameter Express
 * cannot decode.
 */
for (const [name, { express, wildcard }] of Object.entries(VERSIONS)) {
  const OPEN = { origin: '*', allowCredentials: false };
  const evil = 'https://evil.test';
  const open = async (app: ReturnType<Express>) => {
    const server = await serve(app as never);
    t.teardown(server.close);
    return server;
  };

  t.test(`${name}: a marker in one router's use() gives its options to that router's routes only`, async (t) => {
    const app = express();
    const cors = createCors(ADMINS, { logger: quiet });
    app.use(cors);
    const pub = express.Router();
    pub.use(cors.route(OPEN));
    pub.get('/status', (_req, res) => void res.send('status'));
    app.use(pub);
    const admin = express.Router();
    admin.delete('/users/:id', (_req, res) => void res.send('deleted'));
    app.use('/admin', admin);
    const server = await open(app);
    t.equal((await server.send('GET', '/status', { Origin: evil })).headers['access-control-allow-origin'], '*', 'its own route');
    t.equal(
      (await server.send('OPTIONS', '/admin/users/7', preflight(evil, 'DELETE'))).headers['access-control-allow-origin'],
      undefined,
      "not another router's",
    );
    t.equal((await server.send('DELETE', '/admin/users/7', { Origin: evil })).headers['access-control-allow-origin'], undefined);
  });

  t.test(`${name}: mounted with a trailing slash, or under strict routing, the middleware reads the path Express routes`, async (t) => {
    const trailing = express();
    const trailingCors = createCors(ADMINS, { logger: quiet });
    trailing.use('/api/', trailingCors);
    trailing.get('/api/x', (_req, res) => void res.send('private x'));
    trailing.all(wildcard, trailingCors.route(OPEN), (_req, res) => void res.send('open'));
    const strict = express();
    strict.set('strict routing', true);
    const strictCors = createCors(ADMINS, { logger: quiet });
    strict.use('/api', strictCors);
    strict.get('/api/', strictCors.route(OPEN), (_req, res) => void res.send('open'));
    strict.get('/api', (_req, res) => void res.send('private'));
    for (const [how, app, path] of [
      ["app.use('/api/', cors)", trailing, '/api/x'],
      ['strict routing', strict, '/api'],
    ] as const) {
      const seen = await (await open(app)).send('GET', path, { Origin: evil });
      t.match(seen.body, /private/, `${how}: ${path} ran a private route`);
      t.equal(seen.headers['access-control-allow-origin'], undefined, `${how}: ${path} is not open`);
    }
  });

  t.test(`${name}: an app.all() of one path whose handler takes next answers under the middleware's options`, async (t) => {
    const app = express();
    const cors = createCors(ADMINS, { logger: quiet });
    app.use(cors);
    app.all('/graphql', (_req, res, _next) => void res.send('secret'));
    app.get(name === 'Express 5' ? '/*rest' : '*', cors.route(OPEN), (_req, res) => void res.send('spa'));
    const server = await open(app);
    const seen = await server.send('GET', '/graphql', { Origin: evil });
    t.same([seen.body, seen.headers['access-control-allow-origin']], ['secret', undefined]);
  });

  t.test(`${name}: a route added to a nested router after the first request is read`, async (t) => {
    const app = express();
    const cors = createCors(ADMINS, { logger: quiet });
    app.use(cors);
    const admin = express.Router();
    app.use('/api', admin);
    app.put('/api/:id', cors.route(OPEN), (_req, res) => void res.send('open'));
    const server = await open(app);
    await server.send('GET', '/api/1', { Origin: evil });
    admin.put('/secret', (_req, res) => void res.send('secret'));
    t.equal((await server.send('OPTIONS', '/api/secret', preflight(evil, 'PUT'))).headers['access-control-allow-origin'], undefined);
    t.equal((await server.send('PUT', '/api/secret', { Origin: evil })).headers['access-control-allow-origin'], undefined);
  });

  t.test(`${name}: a preflight for a method no route serves lists none, whatever a policy's allowedMethods`, async (t) => {
    const app = express();
    const cors = createCors(ADMINS, { logger: quiet });
    app.use(cors);
    app.get('/y', cors.route({ origin: '*', allowCredentials: false, allowedMethods: '*' }), (_req, res) => void res.send('y'));
    const server = await open(app);
    t.equal((await server.send('OPTIONS', '/y', preflight(evil, 'PATCH'))).headers['access-control-allow-methods'], undefined);
  });

  t.test(`${name}: a parameter Express cannot decode breaks nothing`, async (t) => {
    const app = express();
    const cors = createCors(ADMINS, { logger: quiet });
    app.use(cors);
    app.get('/users/:id', cors.route(OPEN), (_req, res) => void res.send('user'));
    app.get('/health', (_req, res) => void res.send('ok'));
    const server = await open(app);
    t.not((await server.send('GET', '/users/%ZZ', { Origin: evil })).status, 500, 'Express answers it as it would');
    t.equal((await server.send('GET', '/health', { Origin: ADMIN })).headers['access-control-allow-origin'], ADMIN);
  });
}
