/**
 * `npm run bench -- --instructions`: the instructions each server executes per request,
 * counted by valgrind's callgrind. Time on this shared machine spreads by 25-30% for one and the
 * same server; an instruction count does not depend on the neighbours, so it can rank servers
 * a few percent apart. Writes its section of bench/RESULTS.md, and bench/instructions.svg.
 *
 * Each server starts once under callgrind with counting off, and is warmed up on every
 * scenario in turn (real servers see mixed traffic, and the JIT sees it too). Then, for each
 * scenario, counting is switched on and windows of MAIN_WINDOW sequential keep-alive requests are
 * counted (each dump zeroes the counters) until the last STEADY windows lie within TOLERANCE of
 * each other: the first few thousand requests under counting still cost more, while valgrind's
 * slowed-down threads finish their background compiles. Their instructions over their requests
 * is the figure, and their spread is reported with it. A server whose windows never settle
 * (its collections fall in every other window, or one window holds a rare full collection) gets
 * the median of the later half of its windows, with their spread. Every server runs with V8's
 * young generation fixed (FIXED_YOUNG_GENERATION): how often it collects then depends on what the
 * server allocates, not on how fast the loaded machine lets it run.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { barChart, type BarGroup } from './chart.js';
import { unlikeAnswers, verdict } from './checks.js';
import { FIXED_YOUNG_GENERATION, startServer, type Running } from './child.js';
import { chartDate, machineLine, median, percent, thousands, writeChart, writeResultsSection } from './report.js';
import {
  adapterPairs,
  chosenServers,
  ditsmodTrio,
  getPathSteps,
  hostPair,
  json,
  moduleCountPair,
  originLookupTrio,
  PATH,
  scenarioNamed,
  scenarios,
  servers,
  serversChosen,
  type Scenario,
  type Server,
} from './scenarios.js';

const WARM_UP = 5000;
/** Requests per counted window, unless a caller asks for others. */
const WINDOW = 1000;
/**
 * This mode's window (BENCH_WINDOW), as `--channels` takes it: windows of 1,000 lie about 1% apart,
 * so a question at the 0.5% level (the preflight against the ceiling) wants longer ones.
 */
const MAIN_WINDOW = Number(process.env.BENCH_WINDOW ?? WINDOW);
const STEADY = 3;
const TOLERANCE = 0.01;
const MAX_WINDOWS = 8;
/**
 * The GET path's steps: windows of 1,000 requests lie up to 2% apart on Node 22 and steps differ
 * by 1% to 5%, so each window is 4,000 requests there.
 */
const STEP_WINDOW = 4000;

const run = promisify(execFile);

/** The requests an origin policy answers: the ones that carry an Origin. */
const ORIGIN_SCENARIOS = [scenarioNamed('preflight'), scenarioNamed('GET with Origin')];

export interface Count {
  /** Instructions per request: the mean of the windows that count, i.e. their instructions over their requests. */
  perRequest: number;
  /** Of those windows: (largest - smallest) / mean. */
  spread: number;
}

/** Sends `count` requests of `scenario` one after the other on one kept-alive connection. */
async function sendSequentially(url: string, scenario: Scenario, count: number, agent: Agent): Promise<void> {
  for (let i = 0; i < count; i++) {
    await new Promise<void>((resolve, reject) => {
      const req = request(url + PATH, { method: scenario.method, headers: scenario.headers, agent }, (res) => {
        res.resume().on('end', resolve).on('error', reject);
      });
      req.on('error', reject).end();
    });
  }
}

const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;
const spreadOf = (values: number[]): number => (Math.max(...values) - Math.min(...values)) / mean(values);

class CallgrindServer {
  readonly #dir = mkdtempSync(join(tmpdir(), 'callgrind-'));
  #dumps = 0;
  #running: Running | undefined;

  async start(server: Server, env: Record<string, string>): Promise<Running> {
    this.#running = await startServer(
      server.entry,
      { ...server.env, ...env },
      ['valgrind', '--quiet', '--fair-sched=yes', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${this.#dir}/out`],
      { nodeFlags: FIXED_YOUNG_GENERATION },
    );
    return this.#running;
  }

  /** Sends a callgrind_control command to the server (valgrind keeps node's pid). */
  async control(flag: string): Promise<void> {
    await run('callgrind_control', [flag, String(this.#running!.child.pid)]);
  }

  /** Dumps the counters (which zeroes them) and returns the instructions counted since the last dump. */
  async dump(): Promise<number> {
    await this.control('--dump');
    const file = join(this.#dir, `out.${++this.#dumps}`);
    const summary = /^summary: (\d+)$/m.exec(readFileSync(file, 'utf8'));
    if (summary === null) throw new Error(`no summary line in ${file}`);
    return Number(summary[1]);
  }

  async stop(): Promise<void> {
    const child = this.#running?.child;
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/**
 * Counts every scenario `server` answers correctly; a wrong answer is reported instead of a count.
 * `env` goes to the server (EXTRA_ROUTES for a larger route table); `warmUp` requests of each
 * scenario go uncounted first.
 */
export async function countServer(
  server: Server,
  list: readonly Scenario[],
  { env = {}, warmUp = WARM_UP, window = WINDOW }: { env?: Record<string, string>; warmUp?: number; window?: number } = {},
): Promise<Map<string, Count | string>> {
  const results = new Map<string, Count | string>();
  const callgrind = new CallgrindServer();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { url } = await callgrind.start(server, env);
    const correct: Scenario[] = [];
    for (const scenario of list) {
      const problem = await verdict(url, scenario);
      if (problem === undefined) correct.push(scenario);
      else results.set(scenario.name, `not counted: answers wrongly (${problem})`);
    }
    for (const scenario of correct) await sendSequentially(url, scenario, warmUp, agent);
    await callgrind.control('--instr=on');
    for (const scenario of correct) {
      await callgrind.dump(); // zeroes whatever came before this scenario
      const windows: number[] = [];
      let steady: number[] = [];
      do {
        await sendSequentially(url, scenario, window, agent);
        windows.push((await callgrind.dump()) / window);
        steady = windows.slice(-STEADY);
      } while (windows.length < MAX_WINDOWS && (steady.length < STEADY || spreadOf(steady) > TOLERANCE));
      // Unsettled: the median of the later half, which one window with a rare event in it (a
      // full collection, a recompile) cannot move; the spread shows how far they lay apart.
      const settled = spreadOf(steady) <= TOLERANCE;
      const later = windows.slice(windows.length >> 1);
      results.set(scenario.name, settled ? { perRequest: mean(steady), spread: spreadOf(steady) } : { perRequest: median(later), spread: spreadOf(later) });
      console.log(`${server.name}, ${scenario.name}: ${windows.map(thousands).join(', ')}`);
    }
  } finally {
    agent.destroy();
    await callgrind.stop();
  }
  return results;
}

export async function valgrindVersion(): Promise<string> {
  try {
    return (await run('valgrind', ['--version'])).stdout.trim();
  } catch {
    throw new Error('valgrind is not installed; install it with: apt-get install -y valgrind');
  }
}

export async function countInstructions(): Promise<void> {
  const valgrind = await valgrindVersion();
  const startedAt = Date.now();
  // One server at a time: a count includes the work node does on timers (the Date header's
  // refresh, V8's idle tasks), which grows per request when the process is slowed down, and two
  // valgrinds on two cores moved the ceiling's count by 3%.
  const getNoOrigin = scenarioNamed('GET without Origin');
  const counts = new Map<string, Map<string, Count | string>>();
  const list = chosenServers(servers);
  const unlike = await unlikeAnswers(list);
  for (const server of list) {
    const problem = unlike.get(server.name);
    counts.set(
      server.name,
      problem === undefined
        ? await countServer(server, scenarios, { window: MAIN_WINDOW })
        : new Map(scenarios.map((scenario) => [scenario.name, `not counted: ${problem}`])),
    );
  }
  if (serversChosen()) {
    // A partial run (BENCH_SERVERS): the main table and the adapter pairs it holds, printed only.
    const report = [...mainTable(list, counts), '', ...adapterReport(counts)].join('\n');
    console.log(
      `\n${machineLine()}, ${valgrind}; the servers BENCH_SERVERS names, counted as in the full run (windows of ${MAIN_WINDOW.toLocaleString('en')} requests), ${Math.round((Date.now() - startedAt) / 1000)} s; RESULTS.md and the chart left as they are.\n\n${report}`,
    );
    return;
  }
  for (const server of hostPair) counts.set(server.name, await countServer(server, [getNoOrigin], { window: MAIN_WINDOW }));
  for (const server of originLookupTrio) counts.set(server.name, await countServer(server, ORIGIN_SCENARIOS, { window: MAIN_WINDOW }));
  // Counted apart, in longer windows: the steps lie 1% to 5% apart. The host's route without CORS
  // sends no grant, so only its body is checked.
  const stepGet = { ...scenarioNamed('GET with Origin'), check: json };
  const stepCounts = new Map<string, Count | string>();
  for (const server of [...getPathSteps.standalone, ...getPathSteps.host]) {
    stepCounts.set(server.name, (await countServer(server, [stepGet], { window: STEP_WINDOW })).get(stepGet.name)!);
  }
  const [bare, host] = hostPair.map((server) => counts.get(server.name));

  const groups: BarGroup[] = [];
  const lines = [
    '## Instructions per request, counted by callgrind',
    '',
    `${machineLine()}, ${valgrind}; ${WARM_UP.toLocaleString('en')} warm-up requests per scenario, then windows of ${MAIN_WINDOW.toLocaleString('en')} sequential keep-alive requests until ${STEADY} in a row lie within ${TOLERANCE * 100}% and their mean (else the median of the later half of ${MAX_WINDOWS}); ${Math.round((Date.now() - startedAt) / 1000)} s in all.`,
    '',
    'Counted by callgrind inside the server process only: the load generator is not counted. Each cell: instructions per request (ceiling / server, spread). "ceiling / server" is the ceiling\'s count over the server\'s, so 100% means as little work as the bare node:http server; "spread" is how far those last windows lay apart.',
    '',
    ...mainTable(servers, counts, groups),
  ];
  const [bareCount, hostCount] = [bare!.get(getNoOrigin.name), host!.get(getNoOrigin.name)] as [Count, Count];
  lines.push(
    '',
    '### The host alone',
    '',
    `A GET route of @lib/rest (no CORS): ${thousands(hostCount.perRequest)} instructions per request against ${thousands(bareCount.perRequest)} for a bare node:http handler writing the same body (${percent(bareCount.perRequest / hostCount.perRequest)}).`,
  );
  lines.push(
    '',
    ...moduleCountReport(counts),
    '',
    ...adapterReport(counts),
    '',
    ...ditsmodReport(counts),
    '',
    ...originLookupReport(counts),
    '',
    ...getPathReport(stepCounts),
  );
  const report = lines.join('\n');
  console.log(`\n${report}`);
  writeResultsSection('instructions', report);
  writeChart('instructions.svg', barChart(`Instructions per request relative to the bare node:http ceiling: ceiling / server (${chartDate()})`, groups));
}

/**
 * The main table: a row per server of `list`, a column per scenario, each cell the count with the
 * ceiling's (the first server's) over it and the windows' spread; fills the chart's `groups` when given.
 */
function mainTable(list: readonly Server[], counts: Map<string, Map<string, Count | string>>, groups?: BarGroup[]): string[] {
  const lines = [`| server | ${scenarios.map((scenario) => scenario.name).join(' | ')} |`, `|---|${scenarios.map(() => '---:').join('|')}|`];
  const cells = new Map<string, string[]>(list.map((server) => [server.name, []]));
  for (const scenario of scenarios) {
    const ceiling = counts.get(list[0]!.name)!.get(scenario.name) as Count;
    const bars: BarGroup['bars'] = [];
    for (const server of list) {
      const count = counts.get(server.name)!.get(scenario.name)!;
      if (typeof count === 'string') {
        cells.get(server.name)!.push(count);
        bars.push({ label: server.name, color: server.color, value: undefined });
        continue;
      }
      const ratio = ceiling.perRequest / count.perRequest;
      cells.get(server.name)!.push(`${thousands(count.perRequest)} (${percent(ratio)}, ${percent(count.spread)})`);
      bars.push({ label: server.name, color: server.color, value: ratio * 100 });
    }
    groups?.push({ group: scenario.name, bars });
  }
  for (const server of list) lines.push(`| ${server.name} | ${cells.get(server.name)!.join(' | ')} |`);
  return lines;
}

/** CorsModule imported by one module and by ten, side by side: one engine per application should make them cost the same. */
function moduleCountReport(counts: Map<string, Map<string, Count | string>>): string[] {
  const [one, ten] = moduleCountPair;
  const lines = [
    '### One engine per application: CorsModule imported by 1 module and by 10',
    '',
    `"${one.name}" imports CorsModule in its one module; "${ten.name}" spreads the same routes over 10 feature modules, each importing \`CorsModule.withOpts()\` with the same policy (6 of them hold one extra GET route each, on paths the scenarios never request; the route the scenarios hit is in the last one). It is checked to answer every route of the benchmark exactly as the one-module server does before it is counted.`,
    '',
    '| scenario | 1 importing module | 10 importing modules | 10 vs 1 |',
    '|---|---:|---:|---:|',
  ];
  for (const scenario of scenarios) {
    const [a, b] = [counts.get(one.name)!.get(scenario.name)!, counts.get(ten.name)!.get(scenario.name)!];
    const show = (count: Count | string) => (typeof count === 'string' ? count : thousands(count.perRequest));
    const change =
      typeof a === 'string' || typeof b === 'string' ? '' : `${b.perRequest >= a.perRequest ? '+' : ''}${percent(b.perRequest / a.perRequest - 1)}`;
    lines.push(`| ${scenario.name} | ${show(a)} | ${show(b)} | ${change} |`);
  }
  return lines;
}

const show = (count: Count | string | undefined): string => (count === undefined ? 'n/a' : typeof count === 'string' ? count : thousands(count.perRequest));
const signed = (value: number): string => `${value >= 0 ? '+' : ''}${percent(value)}`;

/** How each adapter is wired into its framework, for the report. */
const ADAPTER_WIRING: Record<string, string> = {
  'fastify + @lib/cors/fastify':
    "the @lib/cors/fastify plugin registered with `await` before the routes, each route taken through `onRoute` (an `OPTIONS` request then finds its route in fastify's own router)",
  'hono + @lib/cors/fetch':
    '`createCors().route()` of @lib/cors/fetch as its middleware, as the main README shows it (`c.res` assigned only when the adapter answered itself or copied the response)',
  'express + @lib/cors/express':
    'the @lib/cors/express middleware, one `app.use()` before the routes, which it reads from the application at the first request',
  'koa + @lib/cors/koa':
    'the @lib/cors/koa middleware, one `app.use()` before the @koa/router router (and its `allowedMethods()`), whose routes it reads at the first request',
  'hono + @lib/cors/hono':
    'the @lib/cors/hono middleware, `app.use(createCors(app, options))` before the routes, which it reads from the app at the first request',
};

/** Our adapters against their frameworks' own CORS: the same framework, routes and policy in each pair. */
function adapterReport(counts: Map<string, Map<string, Count | string>>): string[] {
  const counted = adapterPairs.filter((pair) => pair.every((server) => counts.has(server.name)));
  // A partial run (BENCH_SERVERS) may hold no whole pair: then no heading either.
  if (counted.length === 0) return [];
  const lines = ["### The adapters against their frameworks' own CORS", ''];
  for (const [framework, adapter] of counted) {
    lines.push(
      `"${adapter.name}" is ${ADAPTER_WIRING[adapter.name]}, in place of "${framework.name}"; the framework, routes and policy are the same.`,
      '',
      `| scenario | ${framework.name} | ${adapter.name} | adapter vs framework's |`,
      '|---|---:|---:|---:|',
    );
    for (const scenario of scenarios) {
      const [a, b] = [counts.get(framework.name)?.get(scenario.name), counts.get(adapter.name)?.get(scenario.name)];
      const change = typeof a === 'object' && typeof b === 'object' ? signed(b.perRequest / a.perRequest - 1) : '';
      lines.push(`| ${scenario.name} | ${show(a)} | ${show(b)} | ${change} |`);
    }
    lines.push('');
  }
  return lines.slice(0, -1);
}

/** Ditsmod + @ditsmod/cors, whose specification this library implements, against our two servers. */
function ditsmodReport(counts: Map<string, Map<string, Count | string>>): string[] {
  const [standalone, host, ditsmod] = ditsmodTrio;
  const lines = [
    '### Ditsmod against ours',
    '',
    `"${ditsmod.name}": Ditsmod 3.0.0-alpha.3 (@ditsmod/core, @ditsmod/routing, @ditsmod/cors, whose CORS is @ts-stack/cors), a context-scoped controller, the same routes and policy. "x" is Ditsmod's count over ours.`,
    '',
    `| scenario | ${standalone.name} | ${host.name} | ${ditsmod.name} | x standalone | x host |`,
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const scenario of scenarios) {
    const [a, b, c] = [standalone, host, ditsmod].map((server) => counts.get(server.name)?.get(scenario.name));
    const times = (ours: Count | string | undefined) =>
      typeof ours === 'object' && typeof c === 'object' ? `${(c.perRequest / ours.perRequest).toFixed(2)} x` : '';
    lines.push(`| ${scenario.name} | ${show(a)} | ${show(b)} | ${show(c)} | ${times(a)} | ${times(b)} |`);
  }
  return lines;
}

/** A static list of origins, an origin function awaiting a lookup, and that function with originCache. */
function originLookupReport(counts: Map<string, Map<string, Count | string>>): string[] {
  const [list, lookup, cached] = originLookupTrio;
  const lines = [
    '### Origins kept in a database: an async origin function, with and without originCache',
    '',
    'The standalone server of the main table with a dynamic origin policy in place of its one origin (servers/origin-lookup.ts): ' +
      `"${list.name}"; "${lookup.name}" (async, answering one event-loop turn later, by \`setImmediate\`, as the cheapest real lookup would); ` +
      `"${cached.name}" (\`originCache: { max: 1000, ttl: 60000 }\`: after the first request the answer is kept and given synchronously).`,
    '',
    '| scenario | static list | lookup | with originCache | lookup vs list | with originCache vs list |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const scenario of ORIGIN_SCENARIOS) {
    const [a, b, c] = originLookupTrio.map((server) => counts.get(server.name)?.get(scenario.name));
    const versus = (other: Count | string | undefined) =>
      typeof a === 'object' && typeof other === 'object' ? signed(other.perRequest / a.perRequest - 1) : '';
    lines.push(`| ${scenario.name} | ${show(a)} | ${show(b)} | ${show(c)} | ${versus(b)} | ${versus(c)} |`);
  }
  return lines;
}

/** The GET with Origin from the ceiling to our servers, step by step: what each piece of work costs. */
function getPathReport(counts: Map<string, Count | string>): string[] {
  const lines = [
    '### The GET path, step by step',
    '',
    `A GET with Origin from the ceiling to each of our servers, one piece of work added at each step, each counted in windows of ${STEP_WINDOW.toLocaleString('en')} requests (the main table's are ${MAIN_WINDOW.toLocaleString('en')}); "added" is the step's count less the one before it, "ceiling / step" as in the main table.`,
    '',
    '| step | instructions per request | added | ceiling / step |',
    '|---|---:|---:|---:|',
  ];
  const ceiling = counts.get(getPathSteps.standalone[0]!.name);
  for (const steps of [getPathSteps.standalone, getPathSteps.host]) {
    let before: Count | string | undefined;
    for (const server of steps) {
      const count = counts.get(server.name);
      const delta = typeof before === 'object' && typeof count === 'object' ? count.perRequest - before.perRequest : undefined;
      const added = delta === undefined ? '' : `${delta >= 0 ? '+' : ''}${thousands(delta)}`;
      const ratio = typeof ceiling === 'object' && typeof count === 'object' ? percent(ceiling.perRequest / count.perRequest) : '';
      lines.push(`| ${server.name} | ${show(count)} | ${added} | ${ratio} |`);
      before = count;
    }
  }
  return lines;
}
