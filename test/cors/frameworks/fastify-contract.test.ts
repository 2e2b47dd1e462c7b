/**
 * docs/CONTRACT.md, section 3, through fastify: for every policy kind (test/helpers/policy-kinds.ts)
 * and every request of rows 1-5 (no Origin, an allowed one, a refused one), a fastify app with
 * `@lib/cors/fastify` answers with the same status, body and CORS headers (access-control-*,
 * vary, allow) as the standalone node middleware in front of a node:http app serving the same
 * routes. The contract itself is proved for the middleware in contract.test.ts; this proves the
 * plugin adds nothing and loses nothing. Over real sockets, one client (fetch) for both servers.
 */
import type { AddressInfo } from 'node:net';

import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import t from 'tap';

import fastifyCors from '@lib/cors/fastify';
import { createCors, type CorsOptions } from '@lib/cors/standalone';

import { bundledFastify } from '../../helpers/other-fastifies.js';
import { captureLogger, corsHeadersOf, deepFreeze, echoApp, fetchAnswer, serve, type Answer } from '../../helpers/http.js';
import { POLICY_CASES, requestOfRow } from '../../helpers/policy-kinds.js';

const PATH = '/users/7';
/** A fastify whose router the plugin cannot reach: the engine's own tree then finds the tables. */
const bundle = bundledFastify();
t.teardown(bundle.remove);

/** echoApp (test/helpers/http.ts) as a fastify handler: the same status, headers and body. */
function echo(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Total', '42').type('text/plain').send(`app saw ${request.method} ${request.url}`);
}

/** Ways a fastify application gives a route its policy, and the plugin finds it; each must answer alike. */
const LAYOUTS: {
  name: string;
  fastify?: typeof Fastify;
  build(app: FastifyInstance, options: CorsOptions<unknown>, logger: ReturnType<typeof captureLogger>['logger']): Promise<void>;
}[] = [
  {
    name: 'plugin options, one route for GET and POST',
    build: async (app, options, logger) => {
      await app.register(fastifyCors, { ...options, logger });
      app.route({ method: ['GET', 'POST'], url: '/users/:id', handler: echo });
    },
  },
  {
    name: 'plugin options, GET and POST declared apart',
    build: async (app, options, logger) => {
      await app.register(fastifyCors, { ...options, logger });
      app.get('/users/:id', echo);
      app.post('/users/:userId', echo);
    },
  },
  {
    name: 'the policy in config.cors over empty plugin options',
    build: async (app, options, logger) => {
      await app.register(fastifyCors, { logger });
      app.route({ method: ['GET', 'POST'], url: '/users/:id', config: { cors: options }, handler: echo });
    },
  },
  {
    name: "GET and POST declared apart, on a fastify bundled into one file, whose router the plugin cannot reach (the engine's own tree)",
    fastify: bundle.Fastify,
    build: async (app, options, logger) => {
      await app.register(fastifyCors, { ...options, logger });
      app.get('/users/:id', echo);
      app.post('/users/:userId', echo);
    },
  },
];

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** What the contract fixes about an answer. */
function essentials(answer: Answer) {
  return {
    status: answer.status,
    body: answer.body,
    cors: corsHeadersOf(answer),
    contentLength: answer.headers['content-length'],
  };
}

for (const policy of POLICY_CASES) {
  t.test(`policy: ${policy.name}`, async (t) => {
    const options = deepFreeze(policy.options);
    const reference = captureLogger();
    const cors = createCors(options, { logger: reference.logger }).route(['GET', 'POST'], '/users/:id');
    const node = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
    t.teardown(node.close);

    const origins = [undefined, policy.allowed, policy.denied].filter((origin, index) => index === 0 || origin !== undefined);
    const requests = new Map<string, ReturnType<typeof requestOfRow> & { row: number }>();
    for (const row of [1, 2, 3, 4, 5] as const) {
      for (const origin of origins) {
        const request = requestOfRow(row, origin);
        requests.set(JSON.stringify(request), { ...request, row });
      }
    }

    for (const layout of LAYOUTS) {
      t.test(layout.name, async (t) => {
        const { logger, warnings, errors } = captureLogger();
        const app = (layout.fastify ?? Fastify)();
        t.teardown(() => app.close());
        await layout.build(app, options, logger);
        const base = await listen(app);

        for (const { row, method, headers } of requests.values()) {
          const expected = essentials(await fetchAnswer(`${node.origin}${PATH}`, method, headers));
          const actual = essentials(await fetchAnswer(`${base}${PATH}`, method, headers));
          t.same(actual, expected, `row ${row}: ${method} ${JSON.stringify(headers)}`);
        }
        t.same(warnings, [], 'no warning');
        t.same(errors, [], 'no error');
      });
    }
    t.same(reference.errors, []);
  });
}
