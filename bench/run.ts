/**
 * `npm run bench` (quick, under 3 minutes) or `npm run bench -- --full`: every server in its own
 * child process, checked for correct answers, warmed up, then timed with autocannon on every
 * scenario in alternating rounds. Writes bench/RESULTS.md and bench/results.svg.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

import autocannon from 'autocannon';

import { barChart } from './chart.js';
import { probe, startServer, type Running } from './child.js';
import { ALLOWED_ORIGIN } from './servers/policy.js';

const full = process.argv.includes('--full');
const settings = full
  ? { rounds: 5, seconds: 10, scaleRounds: 3, scaleSeconds: 5, memoryPreflights: 1_000_000 }
  : { rounds: 3, seconds: 0.7, scaleRounds: 1, scaleSeconds: 1, memoryPreflights: 200_000 };
const CONNECTIONS = 50;
const PATH = '/users/42';
const benchDir = new URL('../../bench/', import.meta.url);

interface Server {
  name: string;
  /** Compiled from bench/servers (ours), or bench/peers (JavaScript, with bench/package.json's dependencies). */
  entry: URL;
}

const ours = (file: string) => new URL(`servers/${file}.js`, import.meta.url);
const peer = (file: string) => new URL(`peers/${file}.mjs`, benchDir);
const servers: Server[] = [
  { name: 'ceiling (bare node:http)', entry: ours('ceiling') },
  { name: '@lib/cors standalone', entry: ours('standalone') },
  { name: '@lib/rest + CorsModule', entry: ours('module') },
  { name: 'fastify + @fastify/cors', entry: peer('fastify') },
  { name: 'express + cors', entry: peer('express') },
  { name: 'hono + hono/cors', entry: peer('hono') },
];

interface Scenario {
  name: string;
  method: 'GET' | 'OPTIONS';
  headers: Record<string, string>;
  /** What a correct answer has; a server that answers fast and wrong is not timed. */
  check(response: Response, body: string): string | undefined;
}

const json = (response: Response, body: string) => (response.status === 200 && body.includes('"Ada"') ? undefined : `${response.status} ${body.slice(0, 40)}`);
const scenarios: Scenario[] = [
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

const start = (server: Server, extraRoutes = 0): Promise<Running> => startServer(server.entry, { EXTRA_ROUTES: String(extraRoutes) });

async function verdict(url: string, scenario: Scenario): Promise<string | undefined> {
  const response = await fetch(url + PATH, { method: scenario.method, headers: scenario.headers });
  return scenario.check(response, await response.text());
}

/**
 * Requests per second, p99, and the server's own CPU time per request: on a shared machine the
 * throughput drifts with the neighbours, while CPU per request measures the work each request
 * costs the server, which is what the library controls.
 */
async function measure(server: Running, scenario: Scenario, seconds: number): Promise<{ rps: number; p99: number; cpu: number }> {
  const cpuBefore = await probe(server.child, 'cpu');
  const result = await autocannon({ url: server.url + PATH, method: scenario.method, headers: scenario.headers, connections: CONNECTIONS, duration: seconds });
  const cpuAfter = await probe(server.child, 'cpu');
  if (result.errors > 0 || result.timeouts > 0) throw new Error(`${scenario.name}: ${result.errors} errors, ${result.timeouts} timeouts`);
  return { rps: result.requests.average, p99: result.latency.p99, cpu: (cpuAfter.micros - cpuBefore.micros) / result.requests.total };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** The peers' dependencies live in bench/package.json, installed here on first use. */
function ensurePeers(): void {
  if (existsSync(new URL('node_modules/.package-lock.json', benchDir))) return;
  console.log('installing the peers (bench/package.json)...');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: fileURLToPath(benchDir), stdio: 'inherit' });
}

ensurePeers();
const startedAt = Date.now();

// 1. Scenarios: every server, alternating order each round so drift hits all alike.
const running = await Promise.all(servers.map((server) => start(server)));
const wrong = new Map<string, string>();
const samples = new Map<string, { rps: number[]; p99: number[]; cpu: number[] }>();
try {
  for (const scenario of scenarios) {
    for (const [index, server] of servers.entries()) {
      const problem = await verdict(running[index]!.url, scenario);
      if (problem !== undefined) wrong.set(`${scenario.name}|${server.name}`, problem);
      else await measure(running[index]!, scenario, 0.3); // warm-up
    }
  }
  for (let round = 0; round < settings.rounds; round++) {
    for (const scenario of scenarios) {
      const order = round % 2 === 0 ? [...servers.keys()] : [...servers.keys()].reverse();
      for (const index of order) {
        const key = `${scenario.name}|${servers[index]!.name}`;
        if (wrong.has(key)) continue;
        const { rps, p99, cpu } = await measure(running[index]!, scenario, settings.seconds);
        const sample = samples.get(key) ?? { rps: [], p99: [], cpu: [] };
        sample.rps.push(rps);
        sample.p99.push(p99);
        sample.cpu.push(cpu);
        samples.set(key, sample);
      }
    }
  }
} finally {
  for (const { child } of running) child.kill();
}

// 1b. The host's own cost: a GET route of @lib/rest against a bare handler writing the same body.
const hostPair = [
  { name: 'bare node:http handler', entry: ours('bare') },
  { name: '@lib/rest route', entry: ours('host') },
];
const hostScenario = scenarios[3]!;
const hostRunning = await Promise.all(hostPair.map((server) => start(server)));
const hostSamples: { rps: number[]; cpu: number[] }[] = [
  { rps: [], cpu: [] },
  { rps: [], cpu: [] },
];
try {
  for (const [index, server] of hostPair.entries()) {
    const problem = await verdict(hostRunning[index]!.url, hostScenario);
    if (problem !== undefined) throw new Error(`${server.name} answers wrongly: ${problem}`);
    await measure(hostRunning[index]!, hostScenario, 0.5);
  }
  for (let round = 0; round < settings.rounds; round++) {
    for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const { rps, cpu } = await measure(hostRunning[index]!, hostScenario, settings.seconds);
      hostSamples[index]!.rps.push(rps);
      hostSamples[index]!.cpu.push(cpu);
    }
  }
} finally {
  for (const { child } of hostRunning) child.kill();
}

// 2. Route-table scale: GET with Origin on a route registered after N others.
const scaleSizes = [10, 1000, 10000];
const scaleScenario = scenarios[1]!;
const scale = new Map<string, number[]>();
for (const size of scaleSizes) {
  for (const server of servers.slice(1)) {
    const instance = await start(server, size);
    try {
      // Some routers build their matcher lazily, in seconds for 10,000 routes: a few requests first.
      let problem: string | undefined;
      for (let i = 0; i < 3; i++) problem ??= await verdict(instance.url, scaleScenario);
      if (problem !== undefined) continue;
      await measure(instance, scaleScenario, 0.3);
      const values: number[] = [];
      for (let round = 0; round < settings.scaleRounds; round++) values.push((await measure(instance, scaleScenario, settings.scaleSeconds)).cpu);
      scale.set(`${size}|${server.name}`, values);
    } finally {
      instance.child.kill();
    }
  }
}

// 3. Memory: the standalone middleware after a warm-up and after 1,000,000 preflights (200,000 in quick mode).
const memoryServer = await start(servers[1]!);
let memoryReport: string;
try {
  const preflight = scenarios[0]!;
  await autocannon({ url: memoryServer.url + PATH, method: preflight.method, headers: preflight.headers, connections: CONNECTIONS, amount: 50_000 });
  const before = await probe(memoryServer.child, 'memory');
  const result = await autocannon({ url: memoryServer.url + PATH, method: preflight.method, headers: preflight.headers, connections: CONNECTIONS, amount: settings.memoryPreflights });
  const after = await probe(memoryServer.child, 'memory');
  memoryReport = `${result.requests.total.toLocaleString('en')} preflights to the standalone middleware: RSS ${mb(before.rss)} -> ${mb(after.rss)} MB, heap after GC ${mb(before.heapUsed)} -> ${mb(after.heapUsed)} MB (${result.errors} errors).`;
} finally {
  memoryServer.child.kill();
}

// 4. The report.
const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB`;
const header = `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${machine}; ${full ? 'full' : 'quick'} mode: ${settings.rounds} rounds of ${settings.seconds} s per scenario and server, ${CONNECTIONS} connections, median of the rounds; ${Math.round((Date.now() - startedAt) / 1000)} s in all.`;
const lines: string[] = [
  '# Benchmark results',
  '',
  header,
  '',
  'Requests/s drift with whatever else this shared machine runs; the server\'s CPU time per request (µs, user + system, measured inside the server process) is the steadier measure of the work a request costs. Both are medians of the rounds; "vs ceiling" compares each to the bare node:http server of the same run.',
  '',
  '| scenario | server | requests/s | vs ceiling | CPU µs/request | ceiling\'s CPU / this CPU | p99 ms |',
  '|---|---|---:|---:|---:|---:|---:|',
];
const ratios: { group: string; bars: { label: string; value: number | undefined }[] }[] = [];
for (const scenario of scenarios) {
  const ceilingSample = samples.get(`${scenario.name}|${servers[0]!.name}`)!;
  const ceiling = median(ceilingSample.rps);
  const ceilingCpu = median(ceilingSample.cpu);
  const bars: { label: string; value: number | undefined }[] = [];
  for (const server of servers) {
    const key = `${scenario.name}|${server.name}`;
    const problem = wrong.get(key);
    if (problem !== undefined) {
      lines.push(`| ${scenario.name} | ${server.name} | not timed: answers wrongly (${problem}) | | | | |`);
      bars.push({ label: server.name, value: undefined });
      continue;
    }
    const sample = samples.get(key)!;
    const rps = median(sample.rps);
    const cpu = median(sample.cpu);
    lines.push(`| ${scenario.name} | ${server.name} | ${Math.round(rps).toLocaleString('en')} | ${((rps / ceiling) * 100).toFixed(1)}% | ${cpu.toFixed(1)} | ${((ceilingCpu / cpu) * 100).toFixed(1)}% | ${median(sample.p99)} |`);
    bars.push({ label: server.name, value: (ceilingCpu / cpu) * 100 });
  }
  ratios.push({ group: scenario.name, bars });
}
lines.push('', `## Route-table scale: GET with Origin, with N routes registered before it (server CPU µs per request)`, '', `| server | ${scaleSizes.map((size) => `${size} routes`).join(' | ')} | ${scaleSizes.at(-1)} vs ${scaleSizes[0]} |`, `|---|${scaleSizes.map(() => '---:').join('|')}|---:|`);
for (const server of servers.slice(1)) {
  const values = scaleSizes.map((size) => scale.get(`${size}|${server.name}`));
  const first = values[0] === undefined ? undefined : median(values[0]);
  const last = values.at(-1) === undefined ? undefined : median(values.at(-1)!);
  lines.push(`| ${server.name} | ${values.map((value) => (value === undefined ? 'n/a' : median(value).toFixed(1))).join(' | ')} | ${first && last ? `${(last / first).toFixed(2)} x` : 'n/a'} |`);
}
const [bare, host] = hostSamples.map(({ rps, cpu }) => ({ rps: median(rps), cpu: median(cpu) })) as [{ rps: number; cpu: number }, { rps: number; cpu: number }];
lines.push(
  '',
  '## The host alone',
  '',
  `A GET route of @lib/rest: ${Math.round(host.rps).toLocaleString('en')} requests/s, ${((host.rps / bare.rps) * 100).toFixed(1)}% of a bare node:http handler writing the same body (${Math.round(bare.rps).toLocaleString('en')}); ${host.cpu.toFixed(1)} µs of CPU per request against ${bare.cpu.toFixed(1)} (${((bare.cpu / host.cpu) * 100).toFixed(1)}%).`,
);
lines.push('', '## Memory', '', memoryReport, '', 'What the profiles showed, and the targets: [README.md](README.md).', '');
const report = lines.join('\n');
console.log(`\n${report}`);
writeFileSync(new URL('RESULTS.md', benchDir), report);
writeFileSync(new URL('results.svg', benchDir), barChart(`Work per request relative to the bare node:http ceiling: ceiling CPU / server CPU (${new Date().toISOString().slice(0, 10)}, Node ${process.version})`, ratios));
