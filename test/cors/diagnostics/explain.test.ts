/**
 * explain(): every reason code, through both entry points (the standalone middleware, and
 * CorsService in the host with CorsModule), with the same routes and policies. Each row is a
 * request, the verdict a browser would reach, and the option the message must name. Then the
 * debug log: one line per refusal, bounded.
 */
import type { IncomingMessage } from 'node:http';

import t, { type Test } from 'tap';

import { CORS_DEBUG, CORS_LOGGER, CorsModule, CorsOptions, CorsService, createCors, type ExplainRequest, type Explanation } from '@lib/cors';
import { controller, RequestContext, RestApplication, restRootModule, route } from '@lib/rest';

import { captureLogger, echoApp, serve } from '../../helpers/http.js';

const app = 'https://app.test';

/** One table of routes for both entry points. */
const ROUTES: { methods: string[]; path: string; options: CorsOptions }[] = [
  { methods: ['GET', 'PUT'], path: '/users/:id', options: { origin: [app, 'https://b.test'], allowedHeaders: ['X-Request-Id'] } },
  { methods: ['GET'], path: '/open', options: { origin: '*' } },
  { methods: ['GET'], path: '/one', options: { origin: 'https://only.test' } },
  { methods: ['GET'], path: '/off', options: { origin: false } },
  { methods: ['POST'], path: '/login', options: { origin: [app, 'https://b.test'] } },
  { methods: ['POST'], path: '/session', options: { origin: [app, 'https://b.test'], allowCredentials: true } },
  { methods: ['PUT'], path: '/reflect', options: { origin: [app, 'https://b.test'] } },
  { methods: ['PUT'], path: '/continued', options: { origin: [app, 'https://b.test'], preflightContinue: true } },
];

interface Row {
  name: string;
  request: ExplainRequest;
  credentials?: boolean;
  expect: Partial<Omit<Explanation, 'message'>> & { message: RegExp };
}

const preflight = (path: string, method: string, headers: Record<string, string> = {}): ExplainRequest => ({
  method: 'OPTIONS',
  url: path,
  headers: { origin: app, 'access-control-request-method': method, ...headers },
});

const ROWS: Row[] = [
  {
    name: 'allowed actual request',
    request: { method: 'GET', url: '/users/7', headers: { origin: app } },
    expect: { covered: true, kind: 'actual', allowed: true, reason: 'allowed', message: /^https:\/\/app\.test may read the answers of \/users\/:id\.$/ },
  },
  {
    name: 'no Origin',
    request: { method: 'GET', url: '/users/7', headers: {} },
    expect: { kind: 'not-cors', allowed: true, reason: 'not-cors', message: /^No Origin: not a CORS request/ },
  },
  {
    name: 'a path not covered',
    request: { method: 'GET', url: '/nowhere', headers: { origin: app } },
    expect: { covered: false, allowed: false, reason: 'not-covered', message: /\/nowhere is not covered.*route\(\) or mirror\(\)/ },
  },
  {
    name: 'an origin not in the list',
    request: { method: 'GET', url: '/users/7', headers: { origin: 'https://evil.test' } },
    expect: { allowed: false, reason: 'origin-not-allowed', message: /^https:\/\/evil\.test is not allowed by origin for \/users\/:id: add it to origin\.$/ },
  },
  {
    name: 'a fixed origin, another page',
    request: { method: 'GET', url: '/one', headers: { origin: app } },
    expect: { allowed: false, reason: 'origin-mismatch', message: /which allows https:\/\/only\.test only: add https:\/\/app\.test to origin/ },
  },
  {
    name: 'CORS off',
    request: { method: 'GET', url: '/off', headers: { origin: app } },
    expect: { allowed: false, reason: 'cors-off', message: /^CORS is off for \/off \(origin: false\)/ },
  },
  {
    name: "'*' with credentials",
    request: { method: 'GET', url: '/open', headers: { origin: app } },
    credentials: true,
    expect: { allowed: false, reason: 'wildcard-with-credentials', message: /list the origins in origin and set allowCredentials: true/ },
  },
  {
    name: 'credentials not allowed',
    request: { method: 'POST', url: '/login', headers: { origin: app } },
    credentials: true,
    expect: { allowed: false, reason: 'credentials-not-allowed', message: /^allowCredentials is not set for \/login/ },
  },
  {
    name: 'credentials allowed',
    request: preflight('/session', 'POST', { 'access-control-request-headers': 'content-type' }),
    credentials: true,
    expect: { kind: 'preflight', allowed: true, reason: 'allowed', message: /may send POST to \/session/ },
  },
  {
    name: 'a method not registered',
    request: preflight('/users/7', 'DELETE'),
    expect: {
      kind: 'preflight',
      allowed: false,
      reason: 'method-not-allowed',
      message: /^DELETE is not a method \/users\/:id registers \(GET, HEAD, PUT, OPTIONS\)/,
    },
  },
  {
    name: 'a header not listed',
    request: preflight('/users/7', 'PUT', { 'access-control-request-headers': 'x-other' }),
    expect: { allowed: false, reason: 'header-not-allowed', message: /^x-other is not in allowedHeaders for \/users\/:id\.$/ },
  },
  {
    name: 'a header list not reflected',
    request: preflight('/reflect', 'PUT', { 'access-control-request-headers': 'x-ok, bad header' }),
    expect: { allowed: false, reason: 'header-not-allowed', message: /was not reflected for \/reflect/ },
  },
  {
    name: 'preflightContinue',
    request: preflight('/continued', 'PUT'),
    expect: { allowed: true, reason: 'preflight-continued', message: /preflightContinue is set for \/continued/ },
  },
  {
    name: "Origin 'null'",
    request: { method: 'GET', url: '/users/7', headers: { origin: 'null' } },
    expect: { allowed: false, reason: 'origin-not-allowed', message: /only when 'null' is listed in origin/ },
  },
  {
    name: 'private network',
    request: preflight('/users/7', 'PUT', { 'access-control-request-private-network': 'true' }),
    expect: { allowed: true, message: /Local Network Access, a permission only the user can grant/ },
  },
];

type Explain = (request: ExplainRequest, credentials: boolean) => Promise<Explanation>;

async function standaloneExplainer(_t: Test): Promise<Explain> {
  const cors = createCors({}, { logger: { warn: () => {}, error: () => {} } });
  for (const spec of ROUTES) cors.route(spec.methods, spec.path, spec.options);
  return (request, credentials) => cors.explain(request, { credentials });
}

async function moduleExplainer(t: Test): Promise<Explain> {
  const controllers = ROUTES.map((spec, index) => {
    class RouteController {
      handle() {}
    }
    Object.defineProperty(RouteController, 'name', { value: `Explain${index}Controller` });
    const descriptor = Object.getOwnPropertyDescriptor(RouteController.prototype, 'handle')!;
    for (const method of spec.methods) route(method, spec.path)(RouteController.prototype, 'handle', descriptor);
    controller({ providersPerRou: [{ token: CorsOptions, useValue: spec.options }] })(RouteController);
    return RouteController;
  });
  // A controller whose route hands back what CorsService.explain() says of the request it is given.
  let service: CorsService | undefined;
  @controller()
  class Probe {
    constructor(
      private readonly cors: CorsService,
      private readonly ctx: RequestContext,
    ) {}
    @route('GET', 'probe')
    probe() {
      service = this.cors;
      this.ctx.send('ok');
    }
  }
  @restRootModule({
    imports: [CorsModule],
    controllers: [...controllers, Probe],
    providersPerApp: [{ token: CORS_LOGGER, useValue: { warn: () => {}, error: () => {} } }],
  })
  class ExplainApp {}
  const application = await RestApplication.create(ExplainApp);
  const { port } = await application.listen(0, '127.0.0.1');
  t.teardown(() => application.close());
  await fetch(`http://127.0.0.1:${port}/probe`);
  return (request, credentials) => service!.explain(request, { credentials });
}

for (const [entry, make] of [
  ['standalone middleware', standaloneExplainer],
  ['host with CorsModule (CorsService.explain)', moduleExplainer],
] as const) {
  t.test(entry, async (t) => {
    const explain = await make(t);
    for (const row of ROWS) {
      const explanation = await explain(row.request, row.credentials ?? false);
      t.match(explanation, row.expect, row.name);
      // The same link cors-check prints: the section of docs/errors.md named after the reason.
      t.equal(explanation.docs, `docs/errors.md#${explanation.reason}`, `${row.name}: docs`);
    }
    const codes = new Set(ROWS.map((row) => row.expect.reason).filter((code) => code !== undefined));
    t.same(
      [...codes].sort(),
      [
        'allowed',
        'cors-off',
        'credentials-not-allowed',
        'header-not-allowed',
        'method-not-allowed',
        'not-cors',
        'not-covered',
        'origin-mismatch',
        'origin-not-allowed',
        'preflight-continued',
        'wildcard-with-credentials',
      ],
      'every reason code but preflight-status (an application answer) has a row',
    );
  });
}

t.test('explain() sends nothing and reports the headers the engine would send', async (t) => {
  const cors = createCors({ origin: [app, 'https://b.test'], maxAge: 60 }).route('PUT', '/x');
  const explanation = await cors.explain(preflight('/x', 'PUT', { 'access-control-request-headers': 'x-a' }));
  t.same(explanation.headers, {
    vary: 'Origin, Access-Control-Request-Headers',
    'access-control-allow-methods': 'PUT, OPTIONS',
    'access-control-max-age': '60',
    'access-control-allow-origin': app,
    'access-control-allow-headers': 'x-a',
  });
});

t.test('debug: one line per refused request, at most 5 a second, then a count of the rest', async (t) => {
  const { logger, warnings } = captureLogger();
  const cors = createCors({ origin: [app, 'https://b.test'] }, { logger, debug: true }).route('GET', '/users/:id');
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  await server.send('GET', '/users/1', { Origin: app });
  await server.send('GET', '/users/1');
  t.same(warnings, [], 'allowed and non-CORS requests log nothing');
  const started = Date.now();
  for (let i = 0; i < 20; i++) await server.send('GET', `/users/${i}`, { Origin: 'https://evil.test' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const seconds = (Date.now() - started) / 1000;
  const burst = warnings.length;
  // A bound, not a timing: a slow machine only spreads the burst over more seconds.
  t.ok(burst >= 5 && burst <= 5 * Math.ceil(seconds + 1), `${burst} lines for 20 refusals in ${seconds.toFixed(2)} s`);
  t.match(
    warnings[0],
    /^CORS refused \[origin-not-allowed\] GET \/users\/0 from https:\/\/evil\.test: https:\/\/evil\.test is not allowed by origin for \/users\/:id: add it to origin\. See docs\/errors\.md#origin-not-allowed$/,
  );
  // Over a second after the burst's last line, a new line carries the count of those not written.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await server.send('GET', '/users/99', { Origin: 'https://evil.test' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.equal(warnings.length, burst + 1);
  const dropped = Number(/\((\d+) more refused requests were not logged\)$/.exec(warnings.at(-1)!)?.[1] ?? 0);
  t.equal(burst + dropped, 20, 'every refusal of the burst was written or counted');
});

t.test('debug mode asks the origin function once, with the real request, and logs the refusal that request got', async (t) => {
  for (const debug of [false, true]) {
    const { logger, warnings, errors } = captureLogger();
    const seen: string[] = [];
    // The replay of the old debug mode handed a copy without a socket: this function threw on it.
    const origin = (candidate: string, req: IncomingMessage) => {
      seen.push(`${candidate} from ${req.socket.remoteAddress}`);
      return candidate === app;
    };
    const cors = createCors({ origin }, { logger, debug }).route('GET', '/users/:id');
    const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
    t.teardown(server.close);
    const allowed = await server.send('GET', '/users/1', { Origin: app });
    const refused = await server.send('GET', '/users/2', { Origin: 'https://evil.test' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    t.equal(allowed.headers['access-control-allow-origin'], app, `debug ${debug}: allowed`);
    t.notOk('access-control-allow-origin' in refused.headers, `debug ${debug}: refused`);
    t.same(seen, [`${app} from 127.0.0.1`, 'https://evil.test from 127.0.0.1'], `debug ${debug}: asked once per request, on the real request`);
    t.same(errors, [], `debug ${debug}: no fault`);
    t.same(
      warnings,
      debug
        ? [
            `CORS refused [origin-not-allowed] GET /users/2 from https://evil.test: https://evil.test is not allowed by origin for /users/:id: add it to origin. See docs/errors.md#origin-not-allowed`,
          ]
        : [],
      `debug ${debug}: the one refusal, and only with debug on`,
    );
  }
});

t.test('CORS_DEBUG turns the refusal log on in the host', async (t) => {
  const { logger, warnings } = captureLogger();
  @controller()
  class Users {
    @route('GET', 'users')
    list() {
      return [];
    }
  }
  @restRootModule({
    imports: [CorsModule.withOpts({ origin: [app, 'https://b.test'] })],
    controllers: [Users],
    providersPerApp: [
      { token: CORS_LOGGER, useValue: logger },
      { token: CORS_DEBUG, useValue: true },
    ],
  })
  class DebugApp {}
  const application = await RestApplication.create(DebugApp);
  const { port } = await application.listen(0, '127.0.0.1');
  t.teardown(() => application.close());
  await fetch(`http://127.0.0.1:${port}/users`, { headers: { Origin: 'https://evil.test' } });
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.match(warnings, [/^CORS refused \[origin-not-allowed\] GET \/users from https:\/\/evil\.test/]);
});
