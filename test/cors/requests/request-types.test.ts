/**
 * Each entry point hands an origin function its own request type, and says so in its types:
 * IncomingMessage (the node middleware, CorsModule), Request (@lib/cors/fetch), FastifyRequest
 * (@lib/cors/fastify). This file is compiled by `tsc --strict` (npm run build) before it runs:
 * each `@ts-expect-error` line must be an error, or the build fails, so the wrong request type
 * is proven refused. At run time, each function checks what it was really given.
 */
import { IncomingMessage } from 'node:http';

import fastify, { type FastifyRequest } from 'fastify';
import t from 'tap';

import { CorsOptions as ModuleCorsOptions } from '@lib/cors';
import { fastifyCors, type FastifyCorsOptions } from '@lib/cors/fastify';
import { createCors as createFetchCors, type CorsOptions as FetchCorsOptions } from '@lib/cors/fetch';
import { createCors, type CorsOptions, type OriginFunction } from '@lib/cors/standalone';

import { echoApp, serve } from '../../helpers/http.js';

const app = 'https://app.test';

t.test('the node middleware hands an origin function the IncomingMessage', async (t) => {
  const seen: boolean[] = [];
  const origin: OriginFunction<IncomingMessage> = (candidate, req) => {
    seen.push(req instanceof IncomingMessage && typeof req.socket.remoteAddress === 'string');
    return candidate === app;
  };
  const cors = createCors({ origin }).route('GET', '/');
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  const answer = await server.send('GET', '/', { Origin: app });
  t.equal(answer.headers['access-control-allow-origin'], app);
  t.same(seen, [true]);

  // @ts-expect-error a fetch Request is not what the node middleware hands over
  createCors({ origin: (_origin: string, req: Request) => req.headers.has('x') });
  // CorsModule's options are the node middleware's.
  const forModule: ModuleCorsOptions = { origin: (_origin, req) => req.socket.remoteAddress !== undefined };
  t.type(forModule.origin, 'function');
});

t.test('the fetch adapter hands an origin function the Request', async (t) => {
  const seen: boolean[] = [];
  const options: FetchCorsOptions<Request> = {
    origin: (candidate, request) => {
      seen.push(request instanceof Request && request.headers.get('origin') === candidate);
      return candidate === app;
    },
  };
  const cors = createFetchCors(options).route('GET', '/');
  const response = await cors.handle(new Request('http://127.0.0.1/', { headers: { Origin: app } }), () => new Response('ok'));
  t.equal(response.headers.get('access-control-allow-origin'), app);
  t.same(seen, [true]);

  // @ts-expect-error an IncomingMessage is not what the fetch adapter hands over
  createFetchCors({ origin: (_origin: string, req: IncomingMessage) => req.socket.remoteAddress !== undefined });
});

t.test('the fastify plugin hands an origin function the FastifyRequest', async (t) => {
  const seen: boolean[] = [];
  const options: FastifyCorsOptions = {
    origin: (candidate, request) => {
      // (inject() hands fastify a light-my-request stand-in for the IncomingMessage, so the check reads fastify's own fields.)
      seen.push(request.routeOptions.url === '/' && typeof request.ip === 'string' && request.raw !== undefined);
      return candidate === app;
    },
    logger: { warn: () => {}, error: () => {} },
  };
  const server = fastify();
  t.teardown(() => server.close());
  await server.register(fastifyCors, options);
  server.get('/', async () => 'ok');
  // A route's own options take the same request type.
  server.get('/own', { config: { cors: { origin: (_candidate: string, request: FastifyRequest) => request.url === '/own' } } }, async () => 'own');
  const answer = await server.inject({ method: 'GET', url: '/', headers: { origin: app } });
  t.equal(answer.headers['access-control-allow-origin'], app);
  const own = await server.inject({ method: 'GET', url: '/own', headers: { origin: app } });
  t.equal(own.headers['access-control-allow-origin'], app);
  t.same(seen, [true]);

  // @ts-expect-error a fetch Request is not what the fastify plugin hands over
  const wrong: FastifyCorsOptions = { origin: (_origin: string, req: Request) => req.headers.has('x') };
  t.ok(wrong);
});

t.test('a function that ignores the request fits every entry point', async (t) => {
  const anyEntry: CorsOptions<unknown> = { origin: (candidate) => candidate === app };
  createCors(anyEntry);
  createFetchCors(anyEntry);
  const options: FastifyCorsOptions = anyEntry;
  t.ok(options);
});
