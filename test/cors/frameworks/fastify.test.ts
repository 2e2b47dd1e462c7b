import { Readable, Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';

import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import t, { type Test } from 'tap';

import fastifyCors, { CorsOptionsError, fastifyCors as named } from '@lib/cors/fastify';

import { captureLogger, corsHeadersOf, fetchAnswer, type RequestHeaders } from '../../helpers/http.js';

const LIST = ['https://a.test', 'https://b.test'];
/** The plugin's logger wherever a test expects nothing logged; checked by the last test. */
const quiet = captureLogger();
const preflightOf = (origin: string, method = 'GET', extra: RequestHeaders = {}): RequestHeaders => ({
  Origin: origin,
  'Access-Control-Request-Method': method,
  ...extra,
});

interface Served {
  app: FastifyInstance;
  send(method: string, path: string, headers?: RequestHeaders): ReturnType<typeof fetchAnswer>;
  /** fastify's own log lines at warn and above (e.g. "Reply was already sent"). */
  fastifyWarnings: string[];
}

/** A fastify app built by `build`, listening on 127.0.0.1, closed when the test ends. */
async function served(
  t: Test,
  build: (app: FastifyInstance) => Promise<void> | void,
  options: FastifyServerOptions = {},
  factory: typeof Fastify = Fastify,
): Promise<Served> {
  const fastifyWarnings: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      fastifyWarnings.push(String(chunk));
      done();
    },
  });
  const app = factory({ logger: { level: 'warn', stream }, ...options });
  t.teardown(() => app.close());
  await build(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return { app, fastifyWarnings, send: (method, path, headers = {}) => fetchAnswer(`${base}${path}`, method, headers) };
}

t.test('the module exports the plugin as default and as fastifyCors, not encapsulated', async (t) => {
  t.equal(named, fastifyCors);
  const meta = fastifyCors as unknown as Record<symbol, unknown>;
  t.equal(meta[Symbol.for('skip-override')], true, 'its hooks apply to the context it is registered in');
  t.match(meta[Symbol.for('plugin-meta')], { fastify: '>=4.28.0', name: '@lib/cors/fastify' });
});

t.test("preflights and plain OPTIONS of a covered path are answered once, by the engine, with that path's methods", async (t) => {
  const seen: string[] = [];
  const { send, fastifyWarnings } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: LIST, maxAge: 600 });
    app.addHook('onResponse', async (request, reply) => void seen.push(`${request.method} ${reply.statusCode}`));
    app.route({ method: ['GET', 'PUT'], url: '/items/:id', handler: async () => 'item' });
  });

  const preflight = await send('OPTIONS', '/items/3', preflightOf('https://b.test', 'PUT', { 'Access-Control-Request-Headers': 'x-a' }));
  t.equal(preflight.status, 204);
  t.equal(preflight.body, '');
  t.notOk('content-length' in preflight.headers, 'a 204 carries no Content-Length');
  t.same(corsHeadersOf(preflight), {
    'access-control-allow-origin': 'https://b.test',
    'access-control-allow-methods': 'GET, HEAD, PUT, OPTIONS',
    'access-control-allow-headers': 'x-a',
    'access-control-max-age': '600',
    vary: 'Origin, Access-Control-Request-Headers',
  });

  const plain = await send('OPTIONS', '/items/3');
  t.equal(plain.status, 204);
  t.same(corsHeadersOf(plain), { allow: 'GET, HEAD, PUT, OPTIONS', vary: 'Origin' });

  const refused = await send('OPTIONS', '/items/3', preflightOf('https://evil.test', 'PUT'));
  t.equal(refused.status, 204);
  t.same(corsHeadersOf(refused), { vary: 'Origin, Access-Control-Request-Headers' });

  t.same(fastifyWarnings, [], 'fastify never tried to send a second answer');
  t.same(seen, ['OPTIONS 204', 'OPTIONS 204', 'OPTIONS 204'], "fastify's onResponse hooks still run for the engine's answers");
});

t.test('an actual response keeps the CORS headers through reply.send, whatever the payload', async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: LIST, exposedHeaders: ['X-Total'], allowCredentials: true });
    app.get('/json', async () => ({ ok: true }));
    app.get('/string', (_request, reply) => void reply.code(201).header('X-Total', '3').send('made'));
    app.get('/stream', (_request, reply) => void reply.type('text/plain').send(Readable.from(['a', 'b'])));
    app.get('/buffer', (_request, reply) => void reply.send(Buffer.from('raw')));
    app.get('/throws', async () => {
      throw Object.assign(new Error('nope'), { statusCode: 409 });
    });
    app.get('/crashes', async () => {
      throw new Error('boom');
    });
    app.get('/empty', (_request, reply) => void reply.code(204).send());
  });
  const grant = {
    'access-control-allow-origin': 'https://a.test',
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': 'X-Total',
    vary: 'Origin',
  };
  for (const [path, status, body] of [
    ['/json', 200, '{"ok":true}'],
    ['/string', 201, 'made'],
    ['/stream', 200, 'ab'],
    ['/buffer', 200, 'raw'],
    ['/throws', 409, undefined],
    ['/crashes', 500, undefined],
    ['/empty', 204, ''],
  ] as const) {
    const answer = await send('GET', path, { Origin: 'https://a.test' });
    t.equal(answer.status, status, path);
    if (body !== undefined) t.equal(answer.body, body, path);
    t.same(corsHeadersOf(answer), grant, `${path}: the grant, set before the handler, survives fastify's writeHead`);
  }
  const stranger = await send('GET', '/throws', { Origin: 'https://evil.test' });
  t.equal(stranger.status, 409, 'the handler still runs for a refused origin');
  t.same(corsHeadersOf(stranger), { vary: 'Origin' });
});

t.test("under a constant policy the grant goes into fastify's own headers, and survives errors and a 404 of fastify's", async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: 'https://a.test', exposedHeaders: ['X-Total'], allowCredentials: true });
    app.get('/json', async () => ({ ok: true }));
    app.get('/raw-vary', (_request, reply) => void reply.header('Vary', 'Accept').send('a'));
    app.get('/throws', async () => {
      throw Object.assign(new Error('nope'), { statusCode: 409 });
    });
    app.get('/crashes', async () => {
      throw new Error('boom');
    });
    app.get('/not-found', (_request, reply) => void reply.callNotFound());
  });
  // Rule A: the whole grant on every answer, to any origin and to none, and no Vary of the engine's.
  const grant = { 'access-control-allow-origin': 'https://a.test', 'access-control-allow-credentials': 'true', 'access-control-expose-headers': 'X-Total' };
  for (const [path, status] of [
    ['/json', 200],
    ['/throws', 409],
    ['/crashes', 500],
    ['/not-found', 404],
  ] as const) {
    for (const headers of [{ Origin: 'https://a.test' }, { Origin: 'https://evil.test' }, {}] as Record<string, string>[]) {
      const answer = await send('GET', path, headers);
      t.equal(answer.status, status, `${path} ${JSON.stringify(headers)}`);
      t.same(corsHeadersOf(answer), grant, `${path} ${JSON.stringify(headers)}: the grant`);
    }
  }
  const varied = await send('GET', '/raw-vary', { Origin: 'https://a.test' });
  t.same(corsHeadersOf(varied), { ...grant, vary: 'Accept' }, "the handler's Vary is its own: a constant policy adds none");
});

t.test(
  "Vary: the engine adds Origin to a Vary set before it; a handler's own reply.header('Vary', ...) is the handler's, as under @fastify/cors",
  async (t) => {
    // The plugin wraps none of the reply's or the response's methods and adds no onSend hook
    // (docs/CONTRACT.md, "Vary"): a handler that adds to Vary keeps Origin; one that sets it decides it.
    const { send } = await served(t, async (app) => {
      app.addHook('onRequest', async (_request, reply) => void reply.raw.setHeader('Vary', 'Accept-Language'));
      await app.register(fastifyCors, { logger: quiet.logger, origin: LIST });
      app.get('/adds', (_request, reply) => void reply.header('Vary', `${reply.getHeader('Vary')}, Accept`).send('a'));
      app.get('/sets', (_request, reply) => void reply.header('Vary', 'Accept').send('b'));
      app.get('/fixed', { config: { cors: { origin: 'https://a.test' } } }, (_request, reply) => void reply.send('c'));
      app.get('/none', (_request, reply) => void reply.send('d'));
    });
    const vary = async (path: string, headers: RequestHeaders = { Origin: 'https://a.test' }) => (await send('GET', path, headers)).headers.vary;
    t.equal(await vary('/none'), 'Accept-Language, Origin', 'added to the Vary set before the plugin');
    t.equal(await vary('/none', {}), 'Accept-Language, Origin', 'without Origin too (rule A)');
    t.equal(await vary('/none', { Origin: 'https://evil.test' }), 'Accept-Language, Origin', 'for a refused origin too');
    t.equal(await vary('/adds'), 'Accept-Language, Origin, Accept');
    t.equal(await vary('/sets'), 'Accept', "the handler's own Vary, as it set it");
    t.equal(await vary('/fixed'), 'Accept-Language', 'a fixed origin does not vary');
  },
);

t.test('routes of different constant policies each get their own headers, request after request', async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: 'https://a.test' });
    app.get('/fixed', async () => 'fixed');
    app.get('/any', { config: { cors: { origin: '*' } } }, async () => 'any');
    app.post('/fixed', async () => 'posted');
  });
  for (const round of [1, 2]) {
    t.equal((await send('GET', '/fixed', { Origin: 'https://a.test' })).headers['access-control-allow-origin'], 'https://a.test', `round ${round}`);
    t.equal((await send('GET', '/any', { Origin: 'https://a.test' })).headers['access-control-allow-origin'], '*', `round ${round}`);
    t.equal((await send('POST', '/fixed', { Origin: 'https://a.test' })).headers['access-control-allow-origin'], 'https://a.test', `round ${round}`);
  }
});

t.test('the plugin adds no onSend hook to the routes it covers (fastify would bind it to each, and run it on every request)', async (t) => {
  const onSendHooks = async (withPlugin: boolean) => {
    const app = Fastify();
    t.teardown(() => app.close());
    if (withPlugin) await app.register(fastifyCors, { logger: quiet.logger, origin: LIST });
    app.get('/covered', async () => 'covered');
    await app.ready();
    return app
      .printRoutes({ commonPrefix: false, includeHooks: true })
      .split('\n')
      .filter((line) => line.includes('(onSend)'))
      .map((line) => line.slice(line.indexOf('•')));
  };
  // fastify's own HEAD route has one of fastify's.
  t.same(await onSendHooks(true), await onSendHooks(false));
});

t.test(
  "an unknown path stays fastify's 404: an actual request's with the plugin's grant, as @fastify/cors gives it; OPTIONS and preflights with none",
  async (t) => {
    const build = (withPlugin: boolean) => async (app: FastifyInstance) => {
      if (withPlugin) await app.register(fastifyCors, { logger: quiet.logger, origin: LIST });
      app.get('/known', async () => 'known');
    };
    const plain = await served(t, build(false));
    const withCors = await served(t, build(true));
    const missing = await withCors.send('GET', '/unknown', { Origin: 'https://a.test' });
    t.equal(missing.status, 404);
    t.equal(missing.body, (await plain.send('GET', '/unknown', { Origin: 'https://a.test' })).body, "fastify's own 404 body");
    t.same(corsHeadersOf(missing), { 'access-control-allow-origin': 'https://a.test', vary: 'Origin' }, 'a page can read why');
    for (const [method, path, headers] of [
      ['OPTIONS', '/unknown', {}],
      ['OPTIONS', '/unknown', { Origin: 'https://a.test' }],
      ['OPTIONS', '/unknown/deeper?x=1', preflightOf('https://a.test')],
      ['OPTIONS', '/knownx', preflightOf('https://a.test')],
    ] as const) {
      const expected = await plain.send(method, path, headers);
      const actual = await withCors.send(method, path, headers);
      t.equal(actual.status, 404, `${method} ${path}`);
      t.equal(actual.body, expected.body, `${method} ${path}: fastify's own 404 body`);
      t.same(corsHeadersOf(actual), {}, `${method} ${path}: no CORS header`);
    }
    // On a covered path, another method is fastify's 404 too, with the path's CORS headers: the
    // engine sets them before the application answers, as the node middleware does.
    const other = await withCors.send('DELETE', '/known', { Origin: 'https://a.test' });
    t.equal(other.status, 404);
    t.same(corsHeadersOf(other), { 'access-control-allow-origin': 'https://a.test', vary: 'Origin' });
  },
);

t.test('config.cors: false leaves a route out; config.cors: true or absent takes the plugin options', async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: LIST });
    app.get('/out', { config: { cors: false } }, async () => 'out');
    app.get('/in', { config: { cors: true } }, async () => 'in');
    // One path, one method left out: only POST is covered there.
    app.get('/mixed', { config: { cors: false } }, async () => 'mixed get');
    app.post('/mixed', async () => 'mixed post');
  });
  const out = await send('GET', '/out', { Origin: 'https://a.test' });
  t.equal(out.body, 'out');
  t.same(corsHeadersOf(out), {});
  t.equal((await send('OPTIONS', '/out', preflightOf('https://a.test'))).status, 404, 'no preflight answer: no route fastify knows for OPTIONS');
  t.equal((await send('OPTIONS', '/out')).status, 404);

  t.same(corsHeadersOf(await send('GET', '/in', { Origin: 'https://a.test' })), { 'access-control-allow-origin': 'https://a.test', vary: 'Origin' });

  const mixedGet = await send('GET', '/mixed', { Origin: 'https://a.test' });
  t.equal(mixedGet.body, 'mixed get');
  t.same(corsHeadersOf(mixedGet), {}, 'the GET route is out, though its path is covered for POST');
  const mixedPost = await send('POST', '/mixed', { Origin: 'https://a.test' });
  t.same(corsHeadersOf(mixedPost), { 'access-control-allow-origin': 'https://a.test', vary: 'Origin' });
  const mixedPreflight = await send('OPTIONS', '/mixed', preflightOf('https://a.test', 'POST'));
  t.equal(mixedPreflight.headers['access-control-allow-methods'], 'POST, OPTIONS', 'the preflight grants the covered methods only');
});

t.test('with every route left out, nothing is covered (the engine alone would cover every path)', async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger });
    app.get('/a', { config: { cors: false } }, async () => 'a');
  });
  t.same(corsHeadersOf(await send('GET', '/a', { Origin: 'https://x.test' })), {});
  t.equal((await send('OPTIONS', '/a', preflightOf('https://x.test'))).status, 404);
  t.equal((await send('OPTIONS', '/elsewhere', preflightOf('https://x.test'))).status, 404);
});

t.test('config.cors is merged field by field over the plugin options, per path', async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: LIST, maxAge: 600, exposedHeaders: ['X-Total'] });
    app.get('/public', { config: { cors: { origin: '*' } } }, async () => 'public');
  });
  const preflight = await send('OPTIONS', '/public', preflightOf('https://anyone.test'));
  t.same(corsHeadersOf(preflight), {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    'access-control-max-age': '600',
    vary: 'Access-Control-Request-Headers',
  });
  t.same(corsHeadersOf(await send('GET', '/public')), { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'X-Total' });
});

t.test('per-route policies: each path answers its own preflights (what @fastify/cors issues #389 and #332 ask for)', async (t) => {
  // @fastify/cors answers every preflight from its OPTIONS * route, whose config has no cors:
  // a route's config.cors never reaches its preflights there. Here the engine knows each path.
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: 'https://default.test' });
    app.post('/partners', { config: { cors: { origin: ['https://partner-a.test', 'https://partner-b.test'], allowCredentials: true } } }, async () => 'p');
    app.put('/admin/:id', { config: { cors: { origin: 'https://admin.test', allowedHeaders: ['Authorization'], maxAge: 60 } } }, async () => 'a');
    app.get('/default', async () => 'd');
  });

  const partner = await send('OPTIONS', '/partners', preflightOf('https://partner-b.test', 'POST', { 'Access-Control-Request-Headers': 'content-type' }));
  t.same(corsHeadersOf(partner), {
    'access-control-allow-origin': 'https://partner-b.test',
    'access-control-allow-credentials': 'true',
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': 'content-type',
    vary: 'Origin, Access-Control-Request-Headers',
  });
  const admin = await send('OPTIONS', '/admin/9', preflightOf('https://admin.test', 'PUT', { 'Access-Control-Request-Headers': 'authorization' }));
  t.same(corsHeadersOf(admin), {
    'access-control-allow-origin': 'https://admin.test',
    'access-control-allow-methods': 'PUT, OPTIONS',
    'access-control-allow-headers': 'Authorization',
    'access-control-max-age': '60',
  });
  const defaults = await send('OPTIONS', '/default', preflightOf('https://default.test'));
  t.equal(defaults.headers['access-control-allow-origin'], 'https://default.test');

  // Each policy refuses the others' origins.
  const crossed = await send('OPTIONS', '/partners', preflightOf('https://admin.test', 'POST'));
  t.notOk('access-control-allow-origin' in crossed.headers, "the admin origin gets no grant on the partners' path");
  const crossedAdmin = await send('OPTIONS', '/admin/9', preflightOf('https://partner-a.test', 'PUT'));
  t.equal(crossedAdmin.headers['access-control-allow-origin'], 'https://admin.test', 'a fixed policy names its own origin: the browser refuses the partner');
  const actual = await send('POST', '/partners', { Origin: 'https://partner-a.test' });
  t.same(corsHeadersOf(actual), { 'access-control-allow-origin': 'https://partner-a.test', 'access-control-allow-credentials': 'true', vary: 'Origin' });
});

t.test('a policy per route: another method of the path may differ, the same method may not (rule E)', async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  await app.register(fastifyCors, { logger: quiet.logger, origin: LIST });
  app.get('/one', async () => 'one');
  t.doesNotThrow(() => app.post('/one', { config: { cors: { origin: '*' } } }, async () => 'two'));
  // The same options again are one policy: fine.
  t.doesNotThrow(() => app.put('/one', { config: { cors: { origin: LIST } } }, async () => 'three'));
  // fastify refuses a second GET /one itself; a constraint-free twin through another prefix style is the same route to us.
  t.throws(() => app.route({ method: 'GET', url: '/one', constraints: { version: '2.0.0' }, config: { cors: { origin: '*' } }, handler: async () => 'v2' }), {
    name: 'RouteRegistrationError',
    code: 'CORS_ROUTE_CONFLICT',
  });
});

t.test("an OPTIONS route of the application's own answers plain OPTIONS; preflights stay the engine's unless preflightContinue", async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: LIST });
    app.get('/own', async () => 'get');
    app.options('/own', async () => 'own options');
  });
  const plain = await send('OPTIONS', '/own', { Origin: 'https://a.test' });
  t.equal(plain.status, 200);
  t.equal(plain.body, 'own options');
  t.same(corsHeadersOf(plain), { 'access-control-allow-origin': 'https://a.test', vary: 'Origin' }, 'rules A and B set before the handler');
  const preflight = await send('OPTIONS', '/own', preflightOf('https://a.test'));
  t.equal(preflight.status, 204);
  t.equal(preflight.body, '');
  t.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');
});

t.test('preflightContinue hands preflights to the OPTIONS route with the headers set; without one, fastify answers 404', async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: LIST, preflightContinue: true });
    app.get('/own', async () => 'get');
    app.options('/own', (_request, reply) => void reply.header('Vary', `${reply.getHeader('Vary')}, Accept`).send('continued'));
    app.get('/bare', async () => 'bare');
  });
  const continued = await send('OPTIONS', '/own', preflightOf('https://a.test'));
  t.equal(continued.status, 200);
  t.equal(continued.body, 'continued');
  t.same(corsHeadersOf(continued), {
    'access-control-allow-origin': 'https://a.test',
    'access-control-allow-methods': 'GET, HEAD, OPTIONS',
    vary: 'Origin, Access-Control-Request-Headers, Accept',
  });
  const bare = await send('OPTIONS', '/bare', preflightOf('https://a.test'));
  t.equal(bare.status, 404, "no OPTIONS route of the application: fastify's 404, as for any missing route");
});

t.test("HEAD routes: fastify's exposed HEAD routes and explicit ones are covered like GET", async (t) => {
  for (const exposeHeadRoutes of [true, false]) {
    const { send } = await served(
      t,
      async (app) => {
        await app.register(fastifyCors, { logger: quiet.logger, origin: LIST });
        app.get('/page', async () => 'page');
        app.get('/explicit', { exposeHeadRoute: false }, async () => 'explicit');
        app.head('/explicit', (_request, reply) => void reply.send());
      },
      { exposeHeadRoutes },
    );
    const head = await send('HEAD', '/page', { Origin: 'https://b.test' });
    t.equal(head.status, exposeHeadRoutes ? 200 : 404, `exposeHeadRoutes: ${exposeHeadRoutes}`);
    t.same(corsHeadersOf(head), { 'access-control-allow-origin': 'https://b.test', vary: 'Origin' });
    t.equal((await send('OPTIONS', '/page')).headers.allow, 'GET, HEAD, OPTIONS', 'HEAD right after GET');
    t.equal((await send('OPTIONS', '/explicit')).headers.allow, 'GET, HEAD, OPTIONS', 'an explicit HEAD route too');
    t.equal((await send('HEAD', '/explicit', { Origin: 'https://a.test' })).headers['access-control-allow-origin'], 'https://a.test');
  }
});

t.test("fastify's HEAD route of a GET answers by the GET's route options, and keeps a Vary the handler adds to", async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: LIST });
    app.get(
      '/own',
      { config: { cors: { exposedHeaders: ['X-Own'] } } },
      (_request, reply) => void reply.header('vary', `${reply.getHeader('vary')}, Accept`).send('own'),
    );
    app.get('/base', (_request, reply) => void reply.header('vary', `${reply.getHeader('vary')}, Accept`).send('base'));
  });
  for (const method of ['GET', 'HEAD']) {
    t.same(
      corsHeadersOf(await send(method, '/own', { Origin: 'https://a.test' })),
      { 'access-control-allow-origin': 'https://a.test', 'access-control-expose-headers': 'X-Own', vary: 'Origin, Accept' },
      `${method} /own`,
    );
    t.same(
      corsHeadersOf(await send(method, '/base', { Origin: 'https://a.test' })),
      { 'access-control-allow-origin': 'https://a.test', vary: 'Origin, Accept' },
      `${method} /base`,
    );
  }
});

t.test('async origin functions: the engine answers or hands on later, and fastify waits for it', async (t) => {
  const asked: string[] = [];
  const { send, fastifyWarnings } = await served(t, async (app) => {
    await app.register(fastifyCors, {
      logger: quiet.logger,
      origin: async (origin) => {
        asked.push(origin);
        await new Promise((resolve) => setTimeout(resolve, 20));
        return origin.endsWith('.trusted.test');
      },
    });
    app.post('/data', async () => ({ saved: true }));
  });
  const preflight = await send('OPTIONS', '/data', preflightOf('https://app.trusted.test', 'POST'));
  t.equal(preflight.status, 204);
  t.equal(preflight.headers['access-control-allow-origin'], 'https://app.trusted.test');
  const refusedPreflight = await send('OPTIONS', '/data', preflightOf('https://evil.test', 'POST'));
  t.equal(refusedPreflight.status, 204);
  t.notOk('access-control-allow-origin' in refusedPreflight.headers);
  const plain = await send('OPTIONS', '/data', { Origin: 'https://app.trusted.test' });
  t.same(corsHeadersOf(plain), { allow: 'POST, OPTIONS', 'access-control-allow-origin': 'https://app.trusted.test', vary: 'Origin' });
  const actual = await send('POST', '/data', { Origin: 'https://app.trusted.test' });
  t.equal(actual.body, '{"saved":true}');
  t.same(corsHeadersOf(actual), { 'access-control-allow-origin': 'https://app.trusted.test', vary: 'Origin' });
  const refused = await send('POST', '/data', { Origin: 'https://evil.test' });
  t.equal(refused.body, '{"saved":true}');
  t.same(corsHeadersOf(refused), { vary: 'Origin' });
  t.same(asked, ['https://app.trusted.test', 'https://evil.test', 'https://app.trusted.test', 'https://app.trusted.test', 'https://evil.test']);
  t.same(fastifyWarnings, []);
});

t.test("options are validated at registration, with our names; other packages' names get the pointed error", async (t) => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [
      { credentials: true },
      /credentials = true is the cors package \(and @fastify\/cors, hono\)'s name for allowCredentials\. Fix: use allowCredentials: true/,
    ],
    [{ methods: 'GET,POST' }, /methods = "GET,POST" .* name for allowedMethods\. Fix: use allowedMethods: \['GET', 'POST'\]/],
    [{ origin: '*', allowCredentials: true }, /allowCredentials/],
    [{ origin: 'https://app.example.com/' }, /origin = "https:\/\/app\.example\.com\/"/],
    [{ orgin: 'https://a.test' }, /did you mean origin\?/],
  ];
  for (const [options, message] of cases) {
    const app = Fastify();
    await t.rejects(
      async () => {
        await app.register(fastifyCors, options as never);
      },
      { name: 'CorsOptionsError', message },
      JSON.stringify(options),
    );
    await app.close().catch(() => {});
  }
  const error = await Fastify()
    .register(fastifyCors, { credentials: true } as never)
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
  t.type(error, CorsOptionsError);
  t.match((error as CorsOptionsError).message, /^@lib\/cors\/fastify: /, 'the message names the plugin');

  const app = Fastify();
  t.teardown(() => app.close());
  await app.register(fastifyCors, { logger: quiet.logger });
  t.throws(
    () => app.get('/x', { config: { cors: { credentials: true } as never } }, async () => 'x'),
    { name: 'CorsOptionsError', message: /allowCredentials/ },
    'config.cors too, when the route is declared',
  );
  t.throws(() => app.get('/y', { config: { cors: 'yes' as never } }, async () => 'y'), { name: 'CorsOptionsError', message: /is not an object/ });
});

t.test("fastify's register() options are not taken for CORS options; logLevel sets the level of the OPTIONS * route", async (t) => {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream } });
  t.teardown(() => app.close());
  await app.register(fastifyCors, { logger: quiet.logger, origin: LIST, logLevel: 'silent', prefix: '/ignored' } as never);
  app.get('/', async () => 'ok');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  t.equal((await fetchAnswer(`${base}/`, 'OPTIONS', preflightOf('https://a.test'))).status, 204);
  t.equal((await fetchAnswer(`${base}/`, 'GET')).status, 200);
  const methods = lines.map((line) => (line.req as { method?: string } | undefined)?.method).filter((method) => method !== undefined);
  t.same(methods, ['GET'], 'the preflight is not logged, the GET is');
});

const BEFORE_FIX =
  'Fix: await app.register(fastifyCors, options) before declaring routes and before registering the plugins that declare them ' +
  '(a route meant to have no CORS goes after it too, with config: { cors: false })';

/**
 * fastify shows a plugin only the routes declared after it, and lists its routes to no plugin: a
 * route declared before is seen only when a request reaches it. It then gets nothing (its options
 * are not known to the preflights of its path), and is named once, with the fix.
 */
async function servedWithErrors(t: Test, build: (app: FastifyInstance, logger: ReturnType<typeof captureLogger>['logger']) => Promise<void> | void) {
  const { logger, errors } = captureLogger();
  const server = await served(t, (app) => build(app, logger));
  return { ...server, errors };
}

t.test('a route declared before the plugin gets no CORS headers, and is named once at its first request, with the fix', async (t) => {
  const { send, errors } = await servedWithErrors(t, async (app, logger) => {
    app.get('/early', async () => 'early');
    await app.register(fastifyCors, { logger });
    app.get('/late', async () => 'late');
  });
  t.equal(errors.length, 0, 'nothing is said before a request reaches it');
  t.same(corsHeadersOf(await send('GET', '/early', { Origin: 'https://a.test' })), {});
  await send('GET', '/early');
  t.equal((await send('GET', '/late', { Origin: 'https://a.test' })).headers['access-control-allow-origin'], '*');
  t.same(errors, [
    '@lib/cors/fastify: the route GET /early was declared before the plugin was registered, so fastify never showed ' +
      'it to the plugin: it gets no CORS headers, and a preflight on its URL is answered from the routes the plugin knows, not from it. ' +
      `${BEFORE_FIX}.`,
  ]);
});

t.test('without await, or in a plugin loaded before it, a route comes before the plugin too', async (t) => {
  const { send, errors } = await servedWithErrors(t, (app, logger) => {
    app.register(async (routes) => void routes.get('/from-a-plugin', async () => 'x'), { prefix: '/v1' });
    void app.register(fastifyCors, { logger });
    app.get('/too-soon', async () => 'x');
  });
  t.same(corsHeadersOf(await send('GET', '/too-soon', { Origin: 'https://a.test' })), {});
  t.same(corsHeadersOf(await send('GET', '/v1/from-a-plugin', { Origin: 'https://a.test' })), {});
  t.match(errors, [/GET \/too-soon was declared before/, /GET \/v1\/from-a-plugin was declared before/]);
});

t.test("routes outside the plugin's context, declared before it, are none of its business", async (t) => {
  const { send, errors } = await servedWithErrors(t, (app, logger) => {
    app.get('/health', async () => 'ok');
    app.register(async (sibling) => void sibling.get('/sibling', async () => 'x'));
    app.register(
      async (api) => {
        await api.register(fastifyCors, { logger });
        api.get('/x', async () => 'x');
      },
      { prefix: '/api' },
    );
  });
  for (const path of ['/health', '/sibling']) t.same(corsHeadersOf(await send('GET', path, { Origin: 'https://a.test' })), {}, path);
  t.equal((await send('GET', '/api/x', { Origin: 'https://a.test' })).headers['access-control-allow-origin'], '*');
  t.same(errors, []);
});

t.test('a route covered by an earlier registration in a child context is not reported by a later one', async (t) => {
  const { send, errors } = await servedWithErrors(t, async (app, logger) => {
    app.register(
      async (api) => {
        await api.register(fastifyCors, { logger });
        api.get('/x', async () => 'x');
      },
      { prefix: '/api' },
    );
    await app.register(fastifyCors, { logger, origin: 'https://root.test' });
    app.get('/root', async () => 'root');
  });
  t.equal((await send('GET', '/api/x', { Origin: 'https://a.test' })).headers['access-control-allow-origin'], '*');
  t.equal((await send('GET', '/root', { Origin: 'https://root.test' })).headers['access-control-allow-origin'], 'https://root.test');
  t.same(errors, []);
});

t.test('prefixes and encapsulation: the plugin covers the routes of its context and below', async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(
      async (api) => {
        await api.register(fastifyCors, { logger: quiet.logger, origin: LIST });
        api.get('/', async () => 'api root');
        api.register(async (nested) => void nested.get('/deep', async () => 'deep'), { prefix: '/v1' });
      },
      { prefix: '/api' },
    );
    app.register(async (sibling) => void sibling.get('/', async () => 'other'), { prefix: '/other' });
  });
  for (const path of ['/api', '/api/', '/api/v1/deep']) {
    const preflight = await send('OPTIONS', path, preflightOf('https://a.test'));
    t.equal(preflight.status, 204, path);
    t.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS', path);
    t.equal((await send('GET', path, { Origin: 'https://a.test' })).headers['access-control-allow-origin'], 'https://a.test', path);
  }
  t.equal((await send('OPTIONS', '/other', preflightOf('https://a.test'))).status, 404, 'a sibling context is not covered');
  t.same(corsHeadersOf(await send('GET', '/other', { Origin: 'https://a.test' })), {});
  t.equal((await send('OPTIONS', '/apix', preflightOf('https://a.test'))).status, 404, 'OPTIONS * under the prefix matches /apix, which stays a 404');
});

t.test('two prefixed contexts, each with its own registration and policy', async (t) => {
  const { send } = await served(t, async (app) => {
    for (const [prefix, origin] of [
      ['/one', 'https://one.test'],
      ['/two', 'https://two.test'],
    ] as const) {
      app.register(
        async (scope) => {
          await scope.register(fastifyCors, { logger: quiet.logger, origin });
          scope.get('/data', async () => prefix);
        },
        { prefix },
      );
    }
  });
  t.equal((await send('OPTIONS', '/one/data', preflightOf('https://one.test'))).headers['access-control-allow-origin'], 'https://one.test');
  t.equal((await send('OPTIONS', '/two/data', preflightOf('https://two.test'))).headers['access-control-allow-origin'], 'https://two.test');
  t.equal((await send('GET', '/two/data', { Origin: 'https://two.test' })).headers['access-control-allow-origin'], 'https://two.test');
});

t.test('a custom not-found handler still answers OPTIONS on unknown paths', async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: LIST });
    app.setNotFoundHandler((_request, reply) => void reply.code(404).send('custom 404'));
    app.get('/known', async () => 'known');
  });
  for (const headers of [{}, preflightOf('https://a.test')]) {
    const answer = await send('OPTIONS', '/unknown', headers);
    t.equal(answer.status, 404);
    t.equal(answer.body, 'custom 404');
  }
});

/** Router options as the fastify running takes them: in `routerOptions` from 5.5 on, at the top level before. */
function routerOptionsFor(settings: NonNullable<FastifyServerOptions['routerOptions']>): FastifyServerOptions {
  const [major, minor] = Fastify().version.split('.').map(Number) as [number, number];
  return major > 5 || (major === 5 && minor >= 5) ? { routerOptions: settings } : (settings as FastifyServerOptions);
}

t.test("the engine matches paths with fastify's router options", async (t) => {
  const { send } = await served(
    t,
    async (app) => {
      await app.register(fastifyCors, { logger: quiet.logger, origin: LIST });
      app.get('/Users/:id', async () => 'user');
    },
    routerOptionsFor({ ignoreTrailingSlash: true, caseSensitive: false }),
  );
  for (const path of ['/Users/1', '/users/1/', '/USERS/1']) {
    const answer = await send('GET', path, { Origin: 'https://a.test' });
    t.equal(answer.status, 200, path);
    t.equal(answer.headers['access-control-allow-origin'], 'https://a.test', path);
    t.equal((await send('OPTIONS', path, preflightOf('https://a.test'))).status, 204, path);
  }
});

/** Two routes that both match GET /users/me: fastify runs the static one only for PUT. */
async function staticBesideParametric(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCors, { logger: quiet.logger, origin: 'https://default.test' });
  app.get('/users/:id', { config: { cors: { origin: 'https://reader.test' } } }, async () => 'a user');
  app.put('/users/me', { config: { cors: { origin: 'https://writer.test' } } }, async () => 'me');
}

t.test("a preflight is decided by the route fastify's router runs for the method it names", async (t) => {
  const { send } = await served(t, staticBesideParametric);
  // fastify runs GET /users/me on /users/:id, so the GET's preflight is that route's.
  const get = await send('OPTIONS', '/users/me', preflightOf('https://reader.test', 'GET'));
  t.equal(get.status, 204);
  t.equal(get.headers['access-control-allow-origin'], 'https://reader.test');
  // Two paths share the URL, each under its own policy: a preflight lists the methods of the one it asks for alone.
  t.equal(get.headers['access-control-allow-methods'], 'GET, HEAD');
  t.equal((await send('GET', '/users/me', { Origin: 'https://reader.test' })).headers['access-control-allow-origin'], 'https://reader.test');
  const put = await send('OPTIONS', '/users/me', preflightOf('https://writer.test', 'PUT'));
  t.equal(put.headers['access-control-allow-origin'], 'https://writer.test');
  t.equal(put.headers['access-control-allow-methods'], 'PUT');
  // A fixed origin is sent whoever asks (the browser compares it): the GET's is the reader's.
  t.equal((await send('OPTIONS', '/users/me', preflightOf('https://writer.test', 'GET'))).headers['access-control-allow-origin'], 'https://reader.test');
});

t.test('routes with constraints: a host is told apart as fastify tells it; a version, which no preflight carries, by path', async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: 'https://default.test' });
    // Every request of this test is sent to 127.0.0.1: the Host this constraint asks for.
    app.route({
      method: 'GET',
      url: '/hosts/main',
      constraints: { host: /^127\.0\.0\.1(:\d+)?$/ },
      config: { cors: { origin: 'https://local.test' } },
      handler: async () => 'local',
    });
    app.get('/hosts/:name', async () => 'any host');
    app.route({ method: 'PUT', url: '/versioned', constraints: { version: '1.2.0' }, handler: async () => 'v1' });
  });
  const hosted = await send('OPTIONS', '/hosts/main', preflightOf('https://local.test'));
  t.equal(hosted.headers['access-control-allow-origin'], 'https://local.test', 'the host-constrained route, which fastify runs for this Host');
  const versioned = await send('OPTIONS', '/versioned', preflightOf('https://default.test', 'PUT'));
  t.equal(versioned.status, 204);
  t.equal(versioned.headers['access-control-allow-methods'], 'PUT, OPTIONS');
});

t.test("a preflight for a method whose route is left out gets nothing from the path's other routes", async (t) => {
  // Found in review: the path's other routes used to answer it, and a POST needs no method granted.
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: LIST });
    app.get('/files/*', async () => 'files');
    app.post('/files/:id', { config: { cors: false } }, async () => 'written');
  });
  const preflight = await send('OPTIONS', '/files/1', preflightOf('https://a.test', 'POST', { 'Access-Control-Request-Headers': 'content-type' }));
  t.equal(preflight.status, 404, "handed on to fastify's 404, as for a path the plugin does not cover");
  t.same(corsHeadersOf(preflight), {});
  t.equal((await send('OPTIONS', '/files/1', preflightOf('https://a.test', 'GET'))).headers['access-control-allow-origin'], 'https://a.test');
});

t.test(
  'a route chosen by a version, which no preflight carries, and the route fastify runs without it: a preflight gets what both allow (rule F)',
  async (t) => {
    const { send } = await served(t, async (app) => {
      await app.register(fastifyCors, { logger: quiet.logger, origin: 'https://default.test' });
      app.route({
        method: 'GET',
        url: '/v',
        constraints: { version: '1.0.0' },
        config: { cors: { origin: ['https://versioned.test', 'https://both.test'] } },
        handler: async () => 'v1',
      });
      app.get('/:any', { config: { cors: { origin: ['https://any.test', 'https://both.test'] } } }, async () => 'any');
    });
    // What runs decides an actual request: the version sent chooses the route.
    const versioned = await send('GET', '/v', { Origin: 'https://versioned.test', 'Accept-Version': '1.x' });
    t.equal(versioned.body, 'v1');
    t.equal(versioned.headers['access-control-allow-origin'], 'https://versioned.test');
    const unversioned = await send('GET', '/v', { Origin: 'https://versioned.test' });
    t.equal(unversioned.body, 'any');
    t.equal(unversioned.headers['access-control-allow-origin'], undefined);
    // The browser names Accept-Version in the preflight's header list; it never sends its value.
    const ask = (origin: string) => send('OPTIONS', '/v', preflightOf(origin, 'GET', { 'Access-Control-Request-Headers': 'accept-version' }));
    t.equal((await ask('https://versioned.test')).headers['access-control-allow-origin'], undefined, 'not what /:any refuses');
    t.equal((await ask('https://any.test')).headers['access-control-allow-origin'], undefined, 'not what the versioned route refuses');
    t.equal((await ask('https://both.test')).headers['access-control-allow-origin'], 'https://both.test');
    t.equal((await send('OPTIONS', '/w', preflightOf('https://any.test'))).headers['access-control-allow-origin'], 'https://any.test');
  },
);

t.test('issue 45, case 3: a version-constrained PUT /v/:id open to a partner opens no preflight of PUT /v/me, an admin-only route', async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: 'https://admin.test', allowCredentials: true });
    app.put('/v/:id', { constraints: { version: '1.0.0' }, config: { cors: { origin: 'https://partner.test' } } }, async () => 'v1 item');
    app.put('/v/me', async () => 'admin only');
  });
  const preflight = await send('OPTIONS', '/v/me', preflightOf('https://partner.test', 'PUT'));
  t.equal(preflight.headers['access-control-allow-origin'], undefined);
  t.equal(preflight.headers['access-control-allow-credentials'], undefined);
  t.equal((await send('PUT', '/v/me', { Origin: 'https://partner.test' })).body, 'admin only', 'the route the PUT then runs');
  t.equal(
    (await send('OPTIONS', '/v/me', preflightOf('https://admin.test', 'PUT'))).headers['access-control-allow-origin'],
    undefined,
    'nor the admin: the partner route may run',
  );
});

t.test('a registration in the root and another in a prefixed child: the preflight takes the policy the actual request gets', async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: 'https://root.test' });
    app.get('/top', async () => 'top');
    await app.register(
      async (child) => {
        await child.register(fastifyCors, { logger: quiet.logger, origin: 'https://child.test' });
        child.get('/x', async () => 'x');
      },
      { prefix: '/api' },
    );
  });
  const actual = await send('GET', '/api/x', { Origin: 'https://child.test' });
  t.equal(actual.headers['access-control-allow-origin'], 'https://child.test');
  t.equal((await send('OPTIONS', '/api/x', preflightOf('https://child.test'))).headers['access-control-allow-origin'], 'https://child.test');
  t.equal((await send('OPTIONS', '/top', preflightOf('https://root.test'))).headers['access-control-allow-origin'], 'https://root.test');
});

t.test("a prefixed '/' route's HEAD twin on prefix + '/' shares the GET's table", async (t) => {
  const { send } = await served(t, async (app) => {
    await app.register(
      async (api) => {
        await api.register(fastifyCors, { logger: quiet.logger, origin: LIST });
        api.get('/', async () => 'root');
      },
      { prefix: '/api' },
    );
  });
  for (const path of ['/api', '/api/']) {
    const preflight = await send('OPTIONS', path, preflightOf('https://a.test', 'HEAD'));
    t.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS', path);
  }
});

t.test("a prefixed '/' route's twin on prefix + '/' is a path of its own: the routes at prefix lend it no method", async (t) => {
  // Found by hono-fastify-routes-property.test: the twin carries the prefix route's config, so it
  // was answered from the whole prefix path's table, whose DELETE on /a/ runs /:p1/:p2 instead.
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { logger: quiet.logger, origin: 'https://default.test' });
    app.delete('/a', { config: { cors: { origin: 'https://staff.test' } } }, async () => 'ran /a');
    app.delete('/:kind/:id', { config: { cors: { origin: 'https://other.test' } } }, async () => 'ran /:kind/:id');
    await app.register(async (scope) => void scope.put('/', { config: { cors: { origin: 'https://staff.test' } } }, async () => 'ran PUT [/a]/'), {
      prefix: '/a',
    });
  });
  t.equal((await send('DELETE', '/a/')).body, 'ran /:kind/:id', 'fastify runs the parametric route for a DELETE of /a/');
  const put = await send('OPTIONS', '/a/', preflightOf('https://staff.test', 'PUT'));
  t.equal(put.headers['access-control-allow-origin'], 'https://staff.test');
  t.equal(put.headers['access-control-allow-methods'], 'PUT', 'not DELETE, which runs under another policy here');
  const remove = await send('OPTIONS', '/a/', preflightOf('https://staff.test', 'DELETE'));
  t.equal(remove.headers['access-control-allow-origin'], 'https://other.test', "the DELETE's preflight is the parametric route's");
  t.equal((await send('OPTIONS', '/a')).headers.allow, 'DELETE, PUT, OPTIONS', 'at /a itself both routes of the path');
});

/** A route constrained to another Host than the tests send (127.0.0.1), beside a parametric route that fastify runs there instead. */
async function hostConstrained(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCors, { logger: quiet.logger, origin: 'https://default.test' });
  const elsewhere = { host: 'elsewhere.test' };
  app.route({ method: 'GET', url: '/hosts/main', constraints: elsewhere, config: { cors: { origin: 'https://local.test' } }, handler: async () => 'main' });
  app.get('/hosts/:name', async () => 'any host');
}

t.test('routes constrained by host are told apart by the Host, which a preflight and its request share', async (t) => {
  const { send } = await served(t, hostConstrained);
  // For this Host (127.0.0.1) fastify runs /hosts/:name.
  t.equal((await send('GET', '/hosts/main')).body, 'any host');
  t.equal(
    (await send('OPTIONS', '/hosts/main', preflightOf('https://local.test'))).headers['access-control-allow-origin'],
    'https://default.test',
    'the policy of /hosts/:name (one fixed origin, sent whoever asks), not that of a route fastify does not run for this Host',
  );
});

t.test('debug: refused CORS requests are logged through the logger given', async (t) => {
  const { logger, warnings } = captureLogger();
  const { send } = await served(t, async (app) => {
    await app.register(fastifyCors, { origin: LIST, logger, debug: true });
    app.get('/d', async () => 'd');
  });
  await send('GET', '/d', { Origin: 'https://evil.test' });
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.match(warnings, [/CORS refused .*GET \/d from https:\/\/evil\.test/]);
});

// Queued last: every plugin registered with the quiet logger warned and logged nothing.
t.test('nothing was logged where nothing should be', async (t) => {
  t.same(quiet.warnings, []);
  t.same(quiet.errors, []);
});
