/** The servers and scenarios every benchmark mode runs, and how a correct answer looks. */
import { cpus, totalmem } from 'node:os';

import { ALLOWED_ORIGIN } from './servers/policy.js';

export interface Server {
  name: string;
  /** Compiled from bench/servers (ours), or bench/peers (JavaScript, with bench/package.json's dependencies). */
  entry: URL;
}

export const benchDir = new URL('../../bench/', import.meta.url);
const ours = (file: string) => new URL(`servers/${file}.js`, import.meta.url);
const peer = (file: string) => new URL(`peers/${file}.mjs`, benchDir);

/** The first is the ceiling every other server is compared with. */
export const servers: Server[] = [
  { name: 'ceiling (bare node:http)', entry: ours('ceiling') },
  { name: '@lib/cors standalone', entry: ours('standalone') },
  { name: '@lib/rest + CorsModule', entry: ours('module') },
  { name: 'fastify + @fastify/cors', entry: peer('fastify') },
  { name: 'express + cors', entry: peer('express') },
  { name: 'hono + hono/cors', entry: peer('hono') },
];

/** The host's own cost: a GET route of @lib/rest against a bare handler writing the same body. */
export const hostPair: [bare: Server, host: Server] = [
  { name: 'bare node:http handler', entry: ours('bare') },
  { name: '@lib/rest route', entry: ours('host') },
];

export const PATH = '/users/42';

export interface Scenario {
  name: string;
  method: 'GET' | 'OPTIONS';
  headers: Record<string, string>;
  /** What a correct answer has; a server that answers fast and wrong is not measured. */
  check(response: Response, body: string): string | undefined;
}

const json = (response: Response, body: string) => (response.status === 200 && body.includes('"Ada"') ? undefined : `${response.status} ${body.slice(0, 40)}`);
export const scenarios: Scenario[] = [
  {
    name: 'preflight',
    method: 'OPTIONS',
    headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type,x-request-id' },
    check: (response) =>
      response.status >= 200 && response.status < 300 && response.headers.get('access-control-allow-origin') === ALLOWED_ORIGIN && response.headers.get('access-control-allow-headers') === 'content-type,x-request-id' && response.headers.get('access-control-max-age') === '600'
        ? undefined
        : `${response.status}, allow-origin ${response.headers.get('access-control-allow-origin')}, allow-headers ${response.headers.get('access-control-allow-headers')}`,
  },
  {
    name: 'GET with Origin',
    method: 'GET',
    headers: { origin: ALLOWED_ORIGIN },
    check: (response, body) => json(response, body) ?? (response.headers.get('access-control-allow-origin') === ALLOWED_ORIGIN ? undefined : 'no Access-Control-Allow-Origin'),
  },
  { name: 'plain OPTIONS', method: 'OPTIONS', headers: {}, check: (response) => (response.status >= 200 && response.status < 300 ? undefined : `answers ${response.status}`) },
  { name: 'GET without Origin', method: 'GET', headers: {}, check: json },
];

/** `undefined` when the server at `url` answers `scenario` correctly, else what is wrong. */
export async function verdict(url: string, scenario: Scenario): Promise<string | undefined> {
  const response = await fetch(url + PATH, { method: scenario.method, headers: scenario.headers });
  return scenario.check(response, await response.text());
}

export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The line that heads every report: date, Node, machine. */
export function machineLine(): string {
  return `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB`;
}
