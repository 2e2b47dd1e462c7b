/**
 * `npm run bench` (quick, about 4 minutes) or `npm run bench -- --full`: every server in its own
 * child process, checked for correct answers, warmed up, then timed with autocannon on every
 * scenario in alternating rounds. Writes its section of bench/RESULTS.md, and bench/results.svg.
 */
import autocannon from 'autocannon';

import { barChart, type BarGroup } from './chart.js';
import { unlikeAnswers, verdict } from './checks.js';
import { probe, startServer, type Running } from './child.js';
import { CONNECTIONS, type Measure, measure as measureLoad } from './load.js';
import { timeRuntimes } from './runtimes.js';
import { chartDate, machineLine, median, writeChart, writeResultsSection } from './report.js';
import {
  chosenServers,
  engines,
  hostPair,
  PATH,
  scenarioNamed,
  scenarios,
  serversChosen,
  timedServers as servers,
  type Scenario,
  type Server,
} from './scenarios.js';

interface Settings {
  rounds: number;
  /** Of each timed run. */
  seconds: number;
  /** Rounds of hono on Deno and Bun. */
  runtimeRounds: number;
  /** Routes registered before the one the scale case requests. */
  scaleSizes: number[];
  /** Whether the scale case runs every server, or only the two engines (the standalone middleware and the host). */
  scaleAllServers: boolean;
  scaleRounds: number;
  scaleSeconds: number;
  memoryPreflights: number;
}

const FULL: Settings = {
  rounds: 5,
  seconds: 10,
  runtimeRounds: 5,
  scaleSizes: [10, 1000, 10000],
  scaleAllServers: true,
  scaleRounds: 3,
  scaleSeconds: 5,
  memoryPreflights: 1_000_000,
};
// Under 5 minutes in all, the build included (each step says its time): each autocannon run
// costs about 0.4 s more than its duration, to connect and to finish. With the framework pairs
// (13 timed servers), 3 rounds of 0.5 s and the scale case on every server took the scenarios
// alone 267 s. The scale case of the other servers is in the full mode, and --startup counts
// every entry point's instructions at 10 and 100,000 routes.
const QUICK: Settings = {
  rounds: 2,
  seconds: 0.4,
  runtimeRounds: 1,
  scaleSizes: [10, 10000],
  scaleAllServers: false,
  scaleRounds: 1,
  scaleSeconds: 0.5,
  memoryPreflights: 50_000,
};

/** A server's measures over the rounds, by `scenario|server`; `wrong` holds what is wrong with the pairs not measured. */
interface ScenarioSamples {
  samples: Map<string, { rps: number[]; p99: number[]; cpu: number[] }>;
  wrong: Map<string, string>;
}

const start = (server: Server, extraRoutes = 0): Promise<Running> => startServer(server.entry, { ...server.env, EXTRA_ROUTES: String(extraRoutes) });
const keyOf = (scenario: Scenario, server: Server) => `${scenario.name}|${server.name}`;

/** One timed run against a node server, its CPU time read by its own probe. */
const measure = (server: Running, scenario: Scenario, seconds: number): Promise<Measure> =>
  measureLoad(server.url, scenario, seconds, async () => (await probe(server.child, 'cpu')).micros);

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** The steps: the scenarios on every server, hono on Deno and Bun, the host alone, the route-table scale case, memory; then the report and the chart. */
export async function timeServers(full: boolean): Promise<void> {
  const settings = full ? FULL : QUICK;
  const startedAt = Date.now();
  if (serversChosen()) {
    // A partial run (BENCH_SERVERS): the scenarios on the servers named, printed only.
    const list = chosenServers(servers);
    const { lines } = scenarioReport(list, await step('the scenarios', () => timeScenarios(list, settings)));
    const header = `${machineLine()}; ${full ? 'full' : 'quick'} mode, the servers BENCH_SERVERS names: ${settings.rounds} rounds of ${settings.seconds} s per scenario and server, ${CONNECTIONS} connections, median of the rounds; ${Math.round((Date.now() - startedAt) / 1000)} s in all; RESULTS.md and the chart left as they are.`;
    console.log(`\n${header}\n\n${lines.join('\n')}`);
    return;
  }
  const scenarioSamples = await step('the scenarios', () => timeScenarios(servers, settings));
  const runtimes = await step('Deno and Bun', () => timeRuntimes(settings.runtimeRounds, settings.seconds));
  const hostAlone = await step('the host alone', () => timeHostAlone(settings));
  const scale = await step('the route-table scale case', () => timeRouteScale(settings));
  const memory = await step('memory', () => measureMemory(settings));

  const header = `${machineLine()}; ${full ? 'full' : 'quick'} mode: ${settings.rounds} rounds of ${settings.seconds} s per scenario and server, ${CONNECTIONS} connections, median of the rounds; ${Math.round((Date.now() - startedAt) / 1000)} s in all.`;
  const { lines: scenarioLines, groups } = scenarioReport(servers, scenarioSamples);
  const report = [
    '## Timed: requests/s and server CPU per request',
    '',
    header,
    '',
    ...scenarioLines,
    '',
    ...runtimes,
    '',
    ...scaleReport(scale, settings),
    '',
    ...hostAloneReport(hostAlone),
    '',
    '### Memory',
    '',
    ...memory,
  ].join('\n');
  console.log(`\n${report}`);
  writeResultsSection('timed', report);
  writeChart('results.svg', barChart(`Work per request relative to the bare node:http ceiling: ceiling CPU / server CPU (${chartDate()})`, groups));
}

/** Runs one step of the timed run, and says how long it took (quick mode must stay under 5 minutes in all). */
async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  const startedAt = Date.now();
  const result = await run();
  console.log(`${name}: ${Math.round((Date.now() - startedAt) / 1000)} s`);
  return result;
}

/** Every scenario against every server of `servers`, checked first, in rounds whose order alternates so drift hits all alike. */
async function timeScenarios(servers: readonly Server[], settings: Settings): Promise<ScenarioSamples> {
  const wrong = new Map<string, string>();
  for (const [name, problem] of await unlikeAnswers(servers)) for (const scenario of scenarios) wrong.set(`${scenario.name}|${name}`, problem);
  const samples: ScenarioSamples['samples'] = new Map();
  const running = await Promise.all(servers.map((server) => start(server)));
  try {
    for (const scenario of scenarios) {
      for (const [index, server] of servers.entries()) {
        if (wrong.has(keyOf(scenario, server))) continue;
        const problem = await verdict(running[index]!.url, scenario);
        if (problem !== undefined) wrong.set(keyOf(scenario, server), problem);
        else await measure(running[index]!, scenario, 0.3); // warm-up
      }
    }
    for (let round = 0; round < settings.rounds; round++) {
      for (const scenario of scenarios) {
        const order = round % 2 === 0 ? [...servers.keys()] : [...servers.keys()].reverse();
        for (const index of order) {
          const key = keyOf(scenario, servers[index]!);
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
  return { samples, wrong };
}

/** The host's own cost: a GET route of @lib/rest against a bare handler writing the same body, medians of alternating rounds. */
async function timeHostAlone(settings: Settings): Promise<[bare: Measure, host: Measure]> {
  const hostScenario = scenarioNamed('GET without Origin');
  const running = await Promise.all(hostPair.map((server) => start(server)));
  const samples = hostPair.map(() => ({ rps: [] as number[], p99: [] as number[], cpu: [] as number[] }));
  try {
    for (const [index, server] of hostPair.entries()) {
      const problem = await verdict(running[index]!.url, hostScenario);
      if (problem !== undefined) throw new Error(`${server.name} answers wrongly: ${problem}`);
      await measure(running[index]!, hostScenario, 0.5);
    }
    for (let round = 0; round < settings.rounds; round++) {
      for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const { rps, p99, cpu } = await measure(running[index]!, hostScenario, settings.seconds);
        samples[index]!.rps.push(rps);
        samples[index]!.p99.push(p99);
        samples[index]!.cpu.push(cpu);
      }
    }
  } finally {
    for (const { child } of running) child.kill();
  }
  const [bare, host] = samples.map(({ rps, p99, cpu }) => ({ rps: median(rps), p99: median(p99), cpu: median(cpu) }));
  return [bare!, host!];
}

/** Route-table scale: CPU per request of GET with Origin on a route registered after N others, by `N|server`. */
async function timeRouteScale(settings: Settings): Promise<Map<string, number[]>> {
  const scaleScenario = scenarioNamed('GET with Origin');
  const scale = new Map<string, number[]>();
  for (const size of settings.scaleSizes) {
    for (const server of settings.scaleAllServers ? servers.slice(1) : engines) {
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
  return scale;
}

/**
 * Memory of the ceiling and the standalone middleware: RSS and heap (after a full collection)
 * once RSS has levelled off, then after as many preflights again: 1,000,000 (50,000 in quick
 * mode). node:http's own RSS climbs over its first million requests whatever answers them, so a
 * short warm-up would blame the library for node's growth; the ceiling is measured alongside to
 * show it. Returns the report's lines.
 */
async function measureMemory(settings: Settings): Promise<string[]> {
  const lines: string[] = [];
  const preflight = scenarioNamed('preflight');
  for (const server of servers.slice(0, 2)) {
    const instance = await start(server);
    try {
      const send = () =>
        autocannon({
          url: instance.url + PATH,
          method: preflight.method,
          headers: preflight.headers,
          connections: CONNECTIONS,
          amount: settings.memoryPreflights,
        });
      const warmUp = await send();
      const before = await probe(instance.child, 'memory');
      const result = await send();
      const after = await probe(instance.child, 'memory');
      lines.push(
        `- ${server.name}: ${result.requests.total.toLocaleString('en')} preflights after a warm-up of ${warmUp.requests.total.toLocaleString('en')}: RSS ${mb(before.rss)} -> ${mb(after.rss)} MB, heap after GC ${mb(before.heapUsed)} -> ${mb(after.heapUsed)} MB (${result.errors + warmUp.errors} errors).`,
      );
    } finally {
      instance.child.kill();
    }
  }
  return lines;
}

/** The scenario table of `servers` (the ceiling first), as ratios to the ceiling of the same run, and the chart's groups. */
function scenarioReport(servers: readonly Server[], { samples, wrong }: ScenarioSamples): { lines: string[]; groups: BarGroup[] } {
  const lines: string[] = [
    'Requests/s drift with whatever else this shared machine runs; the server\'s CPU time per request (µs, user + system, measured inside the server process) is the steadier measure of the work a request costs. Both are medians of the rounds; "vs ceiling" compares each to the bare node:http server of the same run.',
    '',
    "| scenario | server | requests/s | vs ceiling | CPU µs/request | ceiling's CPU / this CPU | p99 ms |",
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  const groups: BarGroup[] = [];
  for (const scenario of scenarios) {
    const ceilingSample = samples.get(keyOf(scenario, servers[0]!))!;
    const ceiling = median(ceilingSample.rps);
    const ceilingCpu = median(ceilingSample.cpu);
    const bars: BarGroup['bars'] = [];
    for (const server of servers) {
      const problem = wrong.get(keyOf(scenario, server));
      if (problem !== undefined) {
        lines.push(`| ${scenario.name} | ${server.name} | not timed: answers wrongly (${problem}) | | | | |`);
        bars.push({ label: server.name, color: server.color, value: undefined });
        continue;
      }
      const sample = samples.get(keyOf(scenario, server))!;
      const rps = median(sample.rps);
      const cpu = median(sample.cpu);
      lines.push(
        `| ${scenario.name} | ${server.name} | ${Math.round(rps).toLocaleString('en')} | ${((rps / ceiling) * 100).toFixed(1)}% | ${cpu.toFixed(1)} | ${((ceilingCpu / cpu) * 100).toFixed(1)}% | ${median(sample.p99)} |`,
      );
      bars.push({ label: server.name, color: server.color, value: (ceilingCpu / cpu) * 100 });
    }
    groups.push({ group: scenario.name, bars });
  }
  return { lines, groups };
}

function scaleReport(scale: Map<string, number[]>, { scaleSizes: sizes, scaleAllServers }: Settings): string[] {
  const lines = [
    '### Route-table scale: GET with Origin, with N routes registered before it (server CPU µs per request)',
    '',
    `| server | ${sizes.map((size) => `${size} routes`).join(' | ')} | ${sizes.at(-1)} vs ${sizes[0]} |`,
    `|---|${sizes.map(() => '---:').join('|')}|---:|`,
  ];
  for (const server of scaleAllServers ? servers.slice(1) : engines) {
    const values = sizes.map((size) => scale.get(`${size}|${server.name}`));
    const first = values[0] === undefined ? undefined : median(values[0]);
    const last = values.at(-1) === undefined ? undefined : median(values.at(-1)!);
    lines.push(
      `| ${server.name} | ${values.map((value) => (value === undefined ? 'n/a' : median(value).toFixed(1))).join(' | ')} | ${first && last ? `${(last / first).toFixed(2)} x` : 'n/a'} |`,
    );
  }
  return lines;
}

function hostAloneReport([bare, host]: [bare: Measure, host: Measure]): string[] {
  return [
    '### The host alone',
    '',
    `A GET route of @lib/rest: ${Math.round(host.rps).toLocaleString('en')} requests/s, ${((host.rps / bare.rps) * 100).toFixed(1)}% of a bare node:http handler writing the same body (${Math.round(bare.rps).toLocaleString('en')}); ${host.cpu.toFixed(1)} µs of CPU per request against ${bare.cpu.toFixed(1)} (${((bare.cpu / host.cpu) * 100).toFixed(1)}%).`,
  ];
}
