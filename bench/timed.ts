/**
 * `npm run bench` (quick, under 3 minutes) or `npm run bench -- --full`: every server in its own
 * child process, checked for correct answers, warmed up, then timed with autocannon on every
 * scenario in alternating rounds. Writes its section of bench/RESULTS.md, and bench/results.svg.
 */
import { writeFileSync } from 'node:fs';

import autocannon from 'autocannon';

import { barChart } from './chart.js';
import { probe, startServer, type Running } from './child.js';
import { benchDir, hostPair, machineLine, median, PATH, scenarioNamed, scenarios, servers, verdict, writeResultsSection, type Scenario, type Server } from './scenarios.js';

const CONNECTIONS = 50;

const start = (server: Server, extraRoutes = 0): Promise<Running> => startServer(server.entry, { EXTRA_ROUTES: String(extraRoutes) });

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

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

export async function timeServers(full: boolean): Promise<void> {
  const settings = full
    ? { rounds: 5, seconds: 10, scaleRounds: 3, scaleSeconds: 5, memoryPreflights: 1_000_000 }
    : { rounds: 3, seconds: 0.6, scaleRounds: 1, scaleSeconds: 0.5, memoryPreflights: 50_000 };
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
    const hostScenario = scenarioNamed('GET without Origin');
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
  const scaleScenario = scenarioNamed('GET with Origin');
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

  // 3. Memory: RSS and heap (after a full collection) once RSS has levelled off, then after as
  // many preflights again: 1,000,000 (50,000 in quick mode). node:http's own RSS climbs by 20-25
  // MB over its first million requests whatever answers them, so a short warm-up would blame
  // the library for node's growth; the ceiling is measured alongside to show it.
  const memoryReport: string[] = [];
  const preflight = scenarioNamed('preflight');
  for (const server of servers.slice(0, 2)) {
    const instance = await start(server);
    try {
      const send = () => autocannon({ url: instance.url + PATH, method: preflight.method, headers: preflight.headers, connections: CONNECTIONS, amount: settings.memoryPreflights });
      const warmUp = await send();
      const before = await probe(instance.child, 'memory');
      const result = await send();
      const after = await probe(instance.child, 'memory');
      memoryReport.push(
        `- ${server.name}: ${result.requests.total.toLocaleString('en')} preflights after a warm-up of ${warmUp.requests.total.toLocaleString('en')}: RSS ${mb(before.rss)} -> ${mb(after.rss)} MB, heap after GC ${mb(before.heapUsed)} -> ${mb(after.heapUsed)} MB (${result.errors + warmUp.errors} errors).`,
      );
    } finally {
      instance.child.kill();
    }
  }

  // 4. The report.
  const header = `${machineLine()}; ${full ? 'full' : 'quick'} mode: ${settings.rounds} rounds of ${settings.seconds} s per scenario and server, ${CONNECTIONS} connections, median of the rounds; ${Math.round((Date.now() - startedAt) / 1000)} s in all.`;
  const lines: string[] = [
    '## Timed: requests/s and server CPU per request',
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
  lines.push('', `### Route-table scale: GET with Origin, with N routes registered before it (server CPU µs per request)`, '', `| server | ${scaleSizes.map((size) => `${size} routes`).join(' | ')} | ${scaleSizes.at(-1)} vs ${scaleSizes[0]} |`, `|---|${scaleSizes.map(() => '---:').join('|')}|---:|`);
  for (const server of servers.slice(1)) {
    const values = scaleSizes.map((size) => scale.get(`${size}|${server.name}`));
    const first = values[0] === undefined ? undefined : median(values[0]);
    const last = values.at(-1) === undefined ? undefined : median(values.at(-1)!);
    lines.push(`| ${server.name} | ${values.map((value) => (value === undefined ? 'n/a' : median(value).toFixed(1))).join(' | ')} | ${first && last ? `${(last / first).toFixed(2)} x` : 'n/a'} |`);
  }
  const [bare, host] = hostSamples.map(({ rps, cpu }) => ({ rps: median(rps), cpu: median(cpu) })) as [{ rps: number; cpu: number }, { rps: number; cpu: number }];
  lines.push(
    '',
    '### The host alone',
    '',
    `A GET route of @lib/rest: ${Math.round(host.rps).toLocaleString('en')} requests/s, ${((host.rps / bare.rps) * 100).toFixed(1)}% of a bare node:http handler writing the same body (${Math.round(bare.rps).toLocaleString('en')}); ${host.cpu.toFixed(1)} µs of CPU per request against ${bare.cpu.toFixed(1)} (${((bare.cpu / host.cpu) * 100).toFixed(1)}%).`,
  );
  lines.push('', '### Memory', '', ...memoryReport);
  const report = lines.join('\n');
  console.log(`\n${report}`);
  writeResultsSection('timed', report);
  writeFileSync(new URL('results.svg', benchDir), barChart(`Work per request relative to the bare node:http ceiling: ceiling CPU / server CPU (${new Date().toISOString().slice(0, 10)}, Node ${process.version})`, ratios));
}
