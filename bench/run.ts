/**
 * `npm run bench` (quick) or `npm run bench -- --full`: each server in its own child process,
 * every scenario against every server in alternating rounds, reported as the median
 * requests/s and as a ratio to the ceiling measured in the same run.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

import autocannon from 'autocannon';

import { ALLOWED_ORIGIN } from './servers/policy.js';

const full = process.argv.includes('--full');
const duration = full ? 10 : 3;
const rounds = full ? 5 : 3;

interface Scenario {
  name: string;
  method: 'GET' | 'OPTIONS';
  headers: Record<string, string>;
  /** A server that answers fast and wrong does not count: checked before timing. */
  expect: { status: number; header: [string, string] };
}

const scenarios: Scenario[] = [
  {
    name: 'preflight',
    method: 'OPTIONS',
    headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type,x-request-id' },
    expect: { status: 204, header: ['access-control-allow-headers', 'content-type,x-request-id'] },
  },
  { name: 'GET with Origin', method: 'GET', headers: { origin: ALLOWED_ORIGIN }, expect: { status: 200, header: ['access-control-allow-origin', ALLOWED_ORIGIN] } },
  { name: 'plain OPTIONS', method: 'OPTIONS', headers: {}, expect: { status: 204, header: ['allow', 'GET, HEAD, PUT, OPTIONS'] } },
  { name: 'GET without Origin', method: 'GET', headers: {}, expect: { status: 200, header: ['content-type', 'application/json'] } },
];
const PATH = '/users/42';

/** Each suite's first server is the baseline its ratios are taken against. */
const suites: { name: string; servers: string[]; scenarios: Scenario[] }[] = [
  { name: 'CORS', servers: ['ceiling', 'standalone'], scenarios },
  {
    name: 'host',
    servers: ['bare', 'host'],
    scenarios: [{ name: 'GET route', method: 'GET', headers: {}, expect: { status: 200, header: ['content-type', 'application/json; charset=utf-8'] } }],
  },
];
const servers = [...new Set(suites.flatMap((suite) => suite.servers))];

async function start(name: string): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(fileURLToPath(new URL(`servers/${name}.js`, import.meta.url)), { stdio: 'inherit' });
  const [message] = (await once(child, 'message')) as [{ port: number }];
  return { child, url: `http://127.0.0.1:${message.port}` };
}

async function check(server: string, url: string, scenario: Scenario): Promise<void> {
  const response = await fetch(url + PATH, { method: scenario.method, headers: scenario.headers });
  const [name, value] = scenario.expect.header;
  const got = response.headers.get(name);
  // The ceiling does no routing, so its Allow is a constant for another path.
  if (response.status !== scenario.expect.status || (got !== value && !(server === 'ceiling' && name === 'allow'))) {
    throw new Error(`${server} answers "${scenario.name}" wrongly: ${response.status}, ${name}: ${got}`);
  }
}

async function measure(url: string, scenario: Scenario, seconds: number): Promise<{ rps: number; p99: number }> {
  const result = await autocannon({ url: url + PATH, method: scenario.method, headers: scenario.headers, connections: 50, pipelining: 1, duration: seconds });
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`errors during ${scenario.name}: ${result.errors} errors, ${result.non2xx} non-2xx`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const running = new Map(await Promise.all(servers.map(async (name) => [name, await start(name)] as const)));
const urlOf = (server: string): string => running.get(server)!.url;
try {
  const samples = new Map<string, { rps: number[]; p99: number[] }>();
  for (const suite of suites) {
    for (const scenario of suite.scenarios) {
      for (const server of suite.servers) {
        await check(server, urlOf(server), scenario);
        await measure(urlOf(server), scenario, 1); // warm-up
      }
    }
  }
  for (let round = 0; round < rounds; round++) {
    for (const suite of suites) {
      for (const scenario of suite.scenarios) {
        // Alternate the order each round, so drift on a shared machine hits every server alike.
        const order = round % 2 === 0 ? suite.servers : [...suite.servers].reverse();
        for (const server of order) {
          const key = `${scenario.name}|${server}`;
          const sample = samples.get(key) ?? { rps: [], p99: [] };
          const { rps, p99 } = await measure(urlOf(server), scenario, duration);
          sample.rps.push(rps);
          sample.p99.push(p99);
          samples.set(key, sample);
        }
      }
    }
  }
  console.log(`\n${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${rounds} rounds of ${duration} s, 50 connections\n`);
  console.log('| suite | scenario | server | requests/s (median) | p99 ms | vs baseline |');
  console.log('|---|---|---|---:|---:|---:|');
  for (const suite of suites) {
    for (const scenario of suite.scenarios) {
      const baseline = median(samples.get(`${scenario.name}|${suite.servers[0]}`)!.rps);
      for (const server of suite.servers) {
        const sample = samples.get(`${scenario.name}|${server}`)!;
        const rps = median(sample.rps);
        console.log(`| ${suite.name} | ${scenario.name} | ${server} | ${Math.round(rps)} | ${median(sample.p99)} | ${((rps / baseline) * 100).toFixed(1)}% |`);
      }
    }
  }
} finally {
  for (const { child } of running.values()) child.kill();
}
