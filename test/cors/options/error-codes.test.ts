/**
 * Every error code: the list is pinned here, each code has its section in docs/errors.md, and
 * each is thrown by a real mistake, with the class the docs give it.
 */
import { readFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

import KoaRouter from '@koa/router';
import express from 'express';
import Koa from 'koa';
import Router from 'find-my-way';
import t from 'tap';

import { CorsService } from '@lib/cors';
import { createCors as createExpressCors } from '@lib/cors/express';
import { createCors as createKoaCors } from '@lib/cors/koa';
import {
  CorsOptionsError,
  CorsUsageError,
  createCors,
  OPTION_ERROR_CODES,
  ROUTE_ERROR_CODES,
  RouteRegistrationError,
  setCorsCookie,
  USAGE_ERROR_CODES,
} from '@lib/cors/standalone';

const PINNED = [
  'CORS_OPTIONS_NOT_OBJECT',
  'CORS_UNKNOWN_OPTION',
  'CORS_OPTION_OF_ANOTHER_PACKAGE',
  'CORS_INVALID_ORIGIN',
  'CORS_INVALID_ORIGIN_PATTERN',
  'CORS_INVALID_ORIGIN_POLICY',
  'CORS_EMPTY_ORIGIN_LIST',
  'CORS_WILDCARD_IN_LIST',
  'CORS_STATEFUL_REGEXP',
  'CORS_WILDCARD_WITH_CREDENTIALS',
  'CORS_PRIVATE_NETWORK_TO_EVERY_ORIGIN',
  'CORS_INSECURE_ORIGIN',
  'CORS_INVALID_NAME_LIST',
  'CORS_INVALID_NAME',
  'CORS_METHOD_NOT_UPPER_CASE',
  'CORS_NO_METHOD',
  'CORS_INVALID_NUMBER',
  'CORS_INVALID_BOOLEAN',
  'CORS_ORIGIN_CACHE_WITHOUT_FUNCTION',
  'CORS_ROUTE_INVALID_METHOD',
  'CORS_ROUTE_INVALID_PATH',
  'CORS_ROUTE_CONFLICT',
  'CORS_ROUTES_SEALED',
  'CORS_NOT_A_ROUTER',
  'CORS_ROUTER_EMPTY',
  'CORS_MATCHING_CONFLICT',
  'CORS_MOUNT_UNSEEN',
  'CORS_MARKER_OUTSIDE_ROUTE',
  'CORS_INVALID_COOKIE',
  'CORS_NO_ENGINE',
];

const quiet = { warn: () => {}, error: () => {} };
const options = (value: unknown) => () => createCors(value as never, { logger: quiet });

/** A real mistake for each code: a call that must throw it (or return a promise that rejects with it). */
const MISTAKES: Record<string, () => unknown> = {
  CORS_OPTIONS_NOT_OBJECT: options('https://a.example'),
  CORS_UNKNOWN_OPTION: options({ orgin: 'https://a.example' }),
  CORS_OPTION_OF_ANOTHER_PACKAGE: options({ credentials: true }),
  CORS_INVALID_ORIGIN: options({ origin: 'https://a.example/' }),
  CORS_INVALID_ORIGIN_PATTERN: options({ origin: 'https://*.*.example.com' }),
  CORS_INVALID_ORIGIN_POLICY: options({ origin: 42 }),
  CORS_EMPTY_ORIGIN_LIST: options({ origin: [] }),
  CORS_WILDCARD_IN_LIST: options({ origin: ['*', 'https://a.example'] }),
  CORS_STATEFUL_REGEXP: options({ origin: /^https:\/\/a\.example$/g }),
  CORS_WILDCARD_WITH_CREDENTIALS: options({ allowCredentials: true }),
  CORS_PRIVATE_NETWORK_TO_EVERY_ORIGIN: options({ allowPrivateNetwork: true }),
  CORS_INSECURE_ORIGIN: options({ origin: 'http://app.example', allowCredentials: true }),
  CORS_INVALID_NAME_LIST: options({ allowedHeaders: 42 }),
  CORS_INVALID_NAME: options({ allowedHeaders: ['X Bad'] }),
  CORS_METHOD_NOT_UPPER_CASE: options({ allowedMethods: ['put'] }),
  CORS_NO_METHOD: options({ allowedMethods: [] }),
  CORS_INVALID_NUMBER: options({ maxAge: -1 }),
  CORS_INVALID_BOOLEAN: options({ allowCredentials: 'yes' }),
  CORS_ORIGIN_CACHE_WITHOUT_FUNCTION: options({ origin: 'https://a.example', originCache: { max: 1, ttl: 1 } }),
  CORS_ROUTE_INVALID_METHOD: () => createCors().route('get', '/'),
  CORS_ROUTE_INVALID_PATH: () => createCors().route('GET', 'no-leading-slash'),
  CORS_ROUTE_CONFLICT: () => createCors().route('GET', '/x').route('GET', '/x', { origin: false }),
  CORS_ROUTES_SEALED: () => {
    const cors = createCors().route('GET', '/');
    void cors.explain({ method: 'GET', url: '/', headers: {} });
    return cors.route('GET', '/late');
  },
  CORS_NOT_A_ROUTER: () => createCors().mirror({} as never),
  CORS_ROUTER_EMPTY: () => createCors().mirror(Router()),
  CORS_MATCHING_CONFLICT: () => {
    const router = Router({ caseSensitive: false });
    router.on('GET', '/b', () => {});
    return createCors().route('GET', '/a').mirror(router);
  },
  CORS_MOUNT_UNSEEN: () => {
    const app = express();
    app.use('/inner', express());
    return createExpressCors().mirror(app);
  },
  CORS_MARKER_OUTSIDE_ROUTE: () => {
    const app = new Koa();
    const cors = createKoaCors();
    const router = new KoaRouter();
    router.get('/internal/report', (ctx) => {
      ctx.body = 'report';
    });
    app.use(cors);
    app.use(cors.route({ origin: false }));
    app.use(router.routes());
    return cors.mirror(app);
  },
  CORS_INVALID_COOKIE: () => {
    const req = new IncomingMessage(new Socket());
    setCorsCookie(req, new ServerResponse(req), 'no spaces allowed', 'v');
  },
  CORS_NO_ENGINE: () => new CorsService({} as never, { core: undefined } as never).explain({ method: 'GET', url: '/', headers: {} }),
};

const CLASS_OF: Record<string, new (...args: never[]) => Error> = {};
for (const code of OPTION_ERROR_CODES) CLASS_OF[code] = CorsOptionsError;
for (const code of ROUTE_ERROR_CODES) CLASS_OF[code] = RouteRegistrationError;
for (const code of USAGE_ERROR_CODES) CLASS_OF[code] = CorsUsageError;

t.test('the codes are the pinned list, and docs/errors.md has one section for each', async (t) => {
  t.same([...OPTION_ERROR_CODES, ...ROUTE_ERROR_CODES, ...USAGE_ERROR_CODES], PINNED);
  const docs = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');
  t.same(
    [...docs.matchAll(/^### (CORS_[A-Z_]+)$/gm)].map((match) => match[1]),
    PINNED,
    'docs/errors.md: the same codes, in the same order',
  );
});

for (const code of PINNED) {
  t.test(`${code} is thrown by a real mistake, as a ${CLASS_OF[code]?.name}`, async (t) => {
    const mistake = MISTAKES[code];
    if (mistake === undefined) return t.fail(`no mistake throws ${code}: add one`);
    let thrown: unknown;
    try {
      await mistake();
    } catch (error) {
      thrown = error;
    }
    t.match(thrown, { code, name: CLASS_OF[code]!.name });
    t.type(thrown, CLASS_OF[code]!);
    t.match((thrown as Error).message, /Fix: |cannot be|no module importing CorsModule/, 'the message says what to do');
  });
}

t.test('a CorsUsageError is a TypeError, as a wrong argument is', async (t) => {
  t.type(new CorsUsageError('CORS_INVALID_COOKIE', 'x'), TypeError);
});
