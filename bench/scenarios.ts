/** The table every benchmark mode runs: the servers, the scenarios, and how a correct answer looks. */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

import { ALLOWED_ORIGIN } from './servers/policy.js';

export interface Server {
  name: string;
  /** Compiled from bench/servers (ours), or bench/peers (JavaScript, with bench/package.json's dependencies). */
  entry: URL;
  /** Its bars in both charts. */
  color: string;
  /** Counted by `--instructions` only: what it shows is a few percent at most, which timing here cannot resolve. */
  countedOnly?: true;
  /**
   * Built another way to answer exactly as this server: checked against it on every route of
   * servers/policy.ts's ROUTES, header by header, before it is measured.
   */
  answersLike?: Server;
  /** Given to its process, beside what a mode sets (EXTRA_ROUTES). */
  env?: Record<string, string>;
}

export const benchDir = new URL('../../bench/', import.meta.url);
const ours = (file: string) => new URL(`servers/${file}.js`, import.meta.url);
const peer = (file: string) => new URL(`peers/${file}.mjs`, benchDir);

const hostWithCors: Server = { name: '@lib/rest + CorsModule', entry: ours('module'), color: '#42a5f5' };
const tenModules: Server = {
  name: '@lib/rest + CorsModule, 10 importing modules',
  entry: ours('ten-modules'),
  color: '#90caf9',
  countedOnly: true,
  answersLike: hostWithCors,
};

const standalone: Server = { name: '@lib/cors standalone', entry: ours('standalone'), color: '#1565c0' };
const fastify: Server = { name: 'fastify + @fastify/cors', entry: peer('fastify'), color: '#2e7d32' };
/** Ours in a peer's framework: the same fastify, with the @lib/cors/fastify plugin in place of @fastify/cors. */
const fastifyLib: Server = { name: 'fastify + @lib/cors/fastify', entry: peer('fastify-lib'), color: '#81c784' };
const express: Server = { name: 'express + cors', entry: peer('express'), color: '#ef6c00' };
/** Ours in a peer's framework: the same express, with the @lib/cors/express middleware in place of cors. */
const expressLib: Server = { name: 'express + @lib/cors/express', entry: peer('express-lib'), color: '#ffb74d' };
const koa: Server = { name: 'koa + @koa/cors', entry: peer('koa'), color: '#c62828' };
/** Ours in a peer's framework: the same Koa and @koa/router, with the @lib/cors/koa middleware in place of @koa/cors. */
const koaLib: Server = { name: 'koa + @lib/cors/koa', entry: peer('koa-lib'), color: '#ef9a9a' };
const hono: Server = { name: 'hono + hono/cors', entry: peer('hono'), color: '#8e24aa' };
/** Ours in a peer's framework: hono on @hono/node-server, with @lib/cors/fetch as its middleware in place of hono/cors. */
const honoFetch: Server = { name: 'hono + @lib/cors/fetch', entry: peer('hono-fetch'), color: '#ce93d8' };
/** Ours in a peer's framework: the same hono, with the @lib/cors/hono middleware in place of hono/cors. */
const honoLib: Server = { name: 'hono + @lib/cors/hono', entry: peer('hono-lib'), color: '#e1bee7' };
/** Ditsmod 3.0.0-alpha.3, whose @ditsmod/cors the specification comes from. */
const ditsmod: Server = { name: 'Ditsmod + @ditsmod/cors', entry: peer('ditsmod'), color: '#6d4c41' };

const ceiling: Server = { name: 'ceiling (bare node:http)', entry: ours('ceiling'), color: '#9e9e9e' };

/** The first is the ceiling every other server is compared with. */
export const servers: Server[] = [
  ceiling,
  standalone,
  hostWithCors,
  tenModules,
  fastify,
  fastifyLib,
  express,
  expressLib,
  koa,
  koaLib,
  hono,
  honoFetch,
  honoLib,
  ditsmod,
];

/**
 * BENCH_SERVERS, a comma list of server names: `--instructions` and the timed mode then measure
 * only those of `list` (the ceiling always, as every ratio is to it), run none of their further
 * sections, and print their report without writing RESULTS.md or a chart. Unset: all of `list`.
 */
export function chosenServers(list: readonly Server[]): Server[] {
  const names = process.env.BENCH_SERVERS?.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names === undefined || names.length === 0) return [...list];
  const unknown = names.filter((name) => !list.some((server) => server.name === name));
  if (unknown.length > 0)
    throw new Error(`BENCH_SERVERS names no server of this mode: ${unknown.join(', ')}; its servers: ${list.map((server) => server.name).join(', ')}`);
  return list.filter((server) => server === ceiling || names.includes(server.name));
}

/** Whether BENCH_SERVERS picks the servers (a partial run: nothing is written). */
export const serversChosen = (): boolean => (process.env.BENCH_SERVERS ?? '').trim() !== '';

/** The servers the timed modes run (the ceiling still first). */
export const timedServers: Server[] = servers.filter((server) => server.countedOnly !== true);

const restRoute: Server = { name: '@lib/rest route', entry: ours('host'), color: '#42a5f5' };

/** The host's own cost: a GET route of @lib/rest against a bare handler writing the same body. */
export const hostPair: [bare: Server, host: Server] = [{ name: 'bare node:http handler', entry: ours('bare'), color: '#9e9e9e' }, restRoute];

/** The two engines of ours, the standalone middleware and the host with CorsModule: the quick mode's scale case. */
export const engines: Server[] = [standalone, hostWithCors];

/** One importing module against ten: the same routes, policy and scenarios. */
export const moduleCountPair: [one: Server, ten: Server] = [hostWithCors, tenModules];

/** Our adapters against their frameworks' own CORS: the same framework, routes and policy in each pair. */
export const adapterPairs: [framework: Server, adapter: Server][] = [
  [fastify, fastifyLib],
  [hono, honoFetch],
  [express, expressLib],
  [koa, koaLib],
  [hono, honoLib],
];

/** Ditsmod + @ditsmod/cors against ours. */
export const ditsmodTrio: [standalone: Server, host: Server, ditsmod: Server] = [standalone, hostWithCors, ditsmod];

/** A standalone server (servers/origin-lookup.ts) with the origin policy ORIGIN_POLICY names. */
const withOriginPolicy = (policy: string, name: string, color: string): Server => ({
  name: `@lib/cors standalone, ${name}`,
  entry: ours('origin-lookup'),
  color,
  env: { ORIGIN_POLICY: policy },
});

/** Origins kept in a database: a static list, an origin function awaiting a lookup, and that function with originCache. */
export const originLookupTrio: [list: Server, lookup: Server, cached: Server] = [
  withOriginPolicy('list', 'a static list of 2 origins', '#1565c0'),
  withOriginPolicy('lookup', 'an origin function awaiting a lookup', '#ffb300'),
  withOriginPolicy('cached-lookup', 'the same function with originCache', '#ffe082'),
];

/**
 * `--channels`: the standalone server without a subscriber on `lib-cors:decision`, and with a
 * no-op one; BENCH_BASE, a built clone of another commit, adds that clone's standalone server
 * (its own build of the library, resolved from its own node_modules), and its subscribed server
 * when the clone has one (a commit since the channels): a subscriber's cost moves by 6% between
 * two processes of one build, so it compares only side by side.
 */
export function channelServers(): { base: Server | undefined; baseWith: Server | undefined; without: Server; with: Server } {
  const base = process.env.BENCH_BASE?.trim();
  const clone = base === undefined || base === '' ? undefined : pathToFileURL(`${base.replace(/\/$/, '')}/`);
  const baseWith = clone === undefined ? undefined : new URL('build/bench/servers/subscribed.js', clone);
  return {
    base:
      clone === undefined ? undefined : { ...standalone, name: `@lib/cors standalone at ${base}`, entry: new URL('build/bench/servers/standalone.js', clone) },
    baseWith:
      baseWith === undefined || !existsSync(baseWith)
        ? undefined
        : { ...standalone, name: `@lib/cors standalone at ${base}, a no-op subscriber on lib-cors:decision`, entry: baseWith },
    without: { ...standalone, name: '@lib/cors standalone, no subscriber' },
    with: { ...standalone, name: '@lib/cors standalone, a no-op subscriber on lib-cors:decision', entry: ours('subscribed') },
  };
}

/** `--startup`'s reference: the standalone server's own find-my-way router with the same routes, and no CORS. */
export const routerAlone: Server = { name: 'find-my-way alone (no CORS)', entry: ours('router'), color: '#bdbdbd' };

/**
 * The GET with Origin, from the ceiling to our servers, one piece of work added at each step:
 * the handler's setHeader() calls in place of one writeHead(); the application's route lookup;
 * then the CORS middleware. The host's steps: its route without CORS, then with CorsModule.
 */
export const getPathSteps: { standalone: Server[]; host: Server[] } = {
  standalone: [
    ceiling,
    { name: 'ceiling, headers by setHeader()', entry: ours('ceiling'), color: '#9e9e9e', env: { CEILING_WRITES: 'setHeader' } },
    { ...routerAlone, name: 'find-my-way app, Access-Control-Allow-Origin by setHeader() (no CORS)' },
    standalone,
  ],
  host: [{ ...restRoute, name: '@lib/rest route (no CORS)' }, hostWithCors],
};

/**
 * `--startup`: start-up and memory as the route table grows: ours, and each framework with its
 * own CORS beside the same framework with ours (issue 26 compares each pair at 100,000 routes).
 */
export const startupServers: Server[] = servers.filter((server) => server !== ceiling);

/** A server `--startup` counts per request in its smallest and largest table, and the largest it may be counted at. */
export interface FlatnessServer {
  server: Server;
  /** Counted at no more routes than this (else at the largest table it starts with), for the reason given. */
  upTo?: { routes: number; why: string };
}

const linearRouter = (framework: string) => ({
  routes: 1_000,
  why: `${framework}'s router tests every route's pattern in turn on each request, so at 100,000 routes one counted window of 1,000 requests is about 10^11 instructions of ${framework}'s own, hours under callgrind`,
});
const honoRegExp = {
  routes: 1_000,
  why: "hono's RegExpRouter builds one regular expression of every route at the first request and V8 compiles it again at the second: at 10,000 routes that takes 12 s and 10 s natively for hono alone, far longer under valgrind (and hono answers 500 at 100,000)",
};

/**
 * `--startup`: per-request instructions at the smallest and the largest route table (each is in
 * startupServers too): every entry point of ours, as issue 26 asks each to stay flat; express and
 * Koa with their own CORS beside them at the same sizes, as their routers grow per request.
 */
export const flatnessServers: FlatnessServer[] = [
  { server: standalone },
  { server: hostWithCors },
  { server: fastifyLib },
  { server: express, upTo: linearRouter('express') },
  { server: expressLib, upTo: linearRouter('express') },
  { server: koa, upTo: linearRouter('@koa/router') },
  { server: koaLib, upTo: linearRouter('@koa/router') },
  { server: honoFetch, upTo: honoRegExp },
  { server: honoLib, upTo: honoRegExp },
];

export const PATH = '/users/42';

export interface Scenario {
  name: string;
  method: 'GET' | 'OPTIONS';
  headers: Record<string, string>;
  /** What a correct answer has; a server that answers fast and wrong is not measured. */
  check(response: Response, body: string): string | undefined;
}

export const json = (response: Response, body: string) =>
  response.status === 200 && body.includes('"Ada"') ? undefined : `${response.status} ${body.slice(0, 40)}`;
export const scenarios: Scenario[] = [
  {
    name: 'preflight',
    method: 'OPTIONS',
    headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type,x-request-id' },
    check: (response) =>
      response.status >= 200 &&
      response.status < 300 &&
      response.headers.get('access-control-allow-origin') === ALLOWED_ORIGIN &&
      response.headers.get('access-control-allow-headers') === 'content-type,x-request-id' &&
      response.headers.get('access-control-max-age') === '600'
        ? undefined
        : `${response.status}, allow-origin ${response.headers.get('access-control-allow-origin')}, allow-headers ${response.headers.get('access-control-allow-headers')}`,
  },
  {
    name: 'GET with Origin',
    method: 'GET',
    headers: { origin: ALLOWED_ORIGIN },
    check: (response, body) =>
      json(response, body) ?? (response.headers.get('access-control-allow-origin') === ALLOWED_ORIGIN ? undefined : 'no Access-Control-Allow-Origin'),
  },
  {
    name: 'plain OPTIONS',
    method: 'OPTIONS',
    headers: {},
    check: (response) => (response.status >= 200 && response.status < 300 ? undefined : `answers ${response.status}`),
  },
  { name: 'GET without Origin', method: 'GET', headers: {}, check: json },
];

/** The scenario of that name (the report's sections each use one). */
export function scenarioNamed(name: 'preflight' | 'GET with Origin' | 'plain OPTIONS' | 'GET without Origin'): Scenario {
  return scenarios.find((scenario) => scenario.name === name)!;
}
