/**
 * `npm run bench -- --startup`: start-up time and memory as the route table grows, and the
 * instructions a request costs in the smallest and the largest table. Writes its section of
 * bench/RESULTS.md, and bench/startup.svg.
 *
 * Start-up is measured from the moment the server's own code starts (its imports loaded: the
 * server files import servers/policy.ts last, which marks it) to its first answer: the time it
 * listens (read inside the server) plus the round trip of its first request (read here). Node's
 * own boot and the framework's import do not grow with the routes and would blur the ratios, so
 * they are reported apart ("load"); and listening is not enough, since some routers build their
 * matcher on the first request (hono's regex, our engine's sealed tree). Memory is the server's
 * heap and RSS after a full collection, once it has answered.
 */
import { barChart, logAxis, type BarGroup } from './chart.js';
import { countServer, valgrindVersion, type Count } from './instructions.js';
import { probe, startServer } from './child.js';
import { chartDate, machineLine, median, thousands, writeChart, writeResultsSection } from './report.js';
import { engines, flatnessServers, PATH, routerAlone, scenarioNamed, startupServers, type Server } from './scenarios.js';

/** Routes registered before the ones the scenarios hit (servers/policy.ts's EXTRA_PATHS; 6 more follow). */
const SIZES = [10, 1_000, 10_000, 100_000];
/** A server that has not answered its first request by then is stopped, and not run at larger sizes. */
const LIMIT_MS = 15_000;
/** A start-up shorter than this is run RUNS times (the median is shown): short ones spread most. */
const REPEAT_BELOW_MS = 1_000;
const RUNS = 3;
/**
 * Uncounted requests before the per-request counts: with one scenario (\`--instructions\` warms up
 * on four, 5,000 each), the counted windows settle sooner after a longer warm-up, which costs less
 * under callgrind than counted windows do.
 */
const COUNT_WARM_UP = 10_000;
/** Distinct paths requested twice, in --startup's last step, at the largest size. */
const DEFERRED_PATHS = 5_000;

interface Start {
  /** Process start to the server's own code (Node's boot and the imports). */
  loadMs: number;
  /** The server's own code to its first answer. */
  startupMs: number;
  heapUsed: number;
  rss: number;
}

/** A start, or why there is none. */
type Outcome = Start | { failure: string; cell: string };

const getWithOrigin = scenarioNamed('GET with Origin');
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function startOnce(server: Server, size: number): Promise<Outcome> {
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    running = await startServer(server.entry, { EXTRA_ROUTES: String(size) }, [], { limitMs: LIMIT_MS, keepStderr: true });
  } catch (error) {
    const text = message(error);
    return { failure: text, cell: text.startsWith('not listening') ? `over ${LIMIT_MS / 1000} s` : 'crashes' };
  }
  try {
    const sent = performance.now();
    const left = LIMIT_MS - (running.listeningAt - running.importedAt);
    let response: Response;
    let body: string;
    try {
      response = await fetch(running.url + PATH, { headers: getWithOrigin.headers, signal: AbortSignal.timeout(Math.max(Math.round(left), 1)) });
      body = await response.text();
    } catch (error) {
      // Give a crash time to reach stderr.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const crash = running.firstError();
      if (crash !== undefined) return { failure: `crashes on its first request: ${crash}`, cell: 'crashes' };
      return message(error).includes('aborted') || message(error).includes('timeout')
        ? { failure: `no first answer within ${LIMIT_MS / 1000} s: stopped`, cell: `over ${LIMIT_MS / 1000} s` }
        : { failure: `first request failed: ${message(error)}`, cell: 'fails' };
    }
    const answered = performance.now();
    const problem = getWithOrigin.check(response, body);
    if (problem !== undefined) {
      // What it logged comes through another pipe than its answer: give it time to arrive.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const logged = running.firstError();
      return { failure: `answers ${problem.trim()}${logged === undefined ? '' : `; it logs ${logged}`}`, cell: `answers ${response.status}` };
    }
    const memory = await probe(running.child, 'memory');
    return { loadMs: running.importedAt, startupMs: running.listeningAt - running.importedAt + (answered - sent), heapUsed: memory.heapUsed, rss: memory.rss };
  } finally {
    running.child.kill('SIGKILL');
  }
}

/** Every size for `server`, smallest first; after a failure the larger sizes are not run. */
async function startSizes(server: Server): Promise<Map<number, Outcome>> {
  const outcomes = new Map<number, Outcome>();
  let stop: string | undefined;
  for (const size of SIZES) {
    if (stop !== undefined) {
      outcomes.set(size, { failure: stop, cell: 'not run' });
      continue;
    }
    const runs: Outcome[] = [await startOnce(server, size)];
    while ('startupMs' in runs[0]! && runs[0].startupMs < REPEAT_BELOW_MS && runs.length < RUNS) runs.push(await startOnce(server, size));
    const starts = runs.filter((run): run is Start => 'startupMs' in run);
    const outcome: Outcome =
      starts.length === runs.length
        ? {
            loadMs: median(starts.map((start) => start.loadMs)),
            startupMs: median(starts.map((start) => start.startupMs)),
            heapUsed: median(starts.map((start) => start.heapUsed)),
            rss: median(starts.map((start) => start.rss)),
          }
        : runs.find((run) => !('startupMs' in run))!;
    outcomes.set(size, outcome);
    console.log(
      `${server.name}, ${size} routes: ${'startupMs' in outcome ? `${outcome.startupMs.toFixed(0)} ms, heap ${mb(outcome.heapUsed)} MB` : outcome.failure}`,
    );
    if (!('startupMs' in outcome)) stop = `not run: ${outcome.cell} at ${size.toLocaleString('en')} routes`;
  }
  return outcomes;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const isStart = (outcome: Outcome | undefined): outcome is Start => outcome !== undefined && 'startupMs' in outcome;

/** The per-request counts at the smallest size and at the largest this server starts at. */
interface Flatness {
  server: Server;
  sizes: [small: number, large: number];
  counts: [small: Map<string, Count | string>, large: Map<string, Count | string>];
  note?: string;
}

export async function measureStartup(): Promise<void> {
  const startedAt = Date.now();
  const valgrind = await valgrindVersion();
  const list = [routerAlone, ...startupServers];
  const table = new Map<string, Map<number, Outcome>>();
  for (const server of list) table.set(server.name, await startSizes(server));
  console.log(`the start-up table took ${Math.round((Date.now() - startedAt) / 1000)} s`);

  const flatness: Flatness[] = [];
  const smallest = SIZES[0]!;
  const largest = SIZES.at(-1)!;
  for (const { server, upTo } of flatnessServers) {
    const outcomes = table.get(server.name)!;
    const started = [...SIZES].reverse().find((size) => isStart(outcomes.get(size))) ?? smallest;
    const large = upTo === undefined ? started : Math.min(started, upTo.routes);
    const failed = outcomes.get(SIZES[SIZES.indexOf(large) + 1] ?? largest) as { failure: string } | undefined;
    const note =
      large === largest
        ? undefined
        : large < started
          ? `counted at ${large.toLocaleString('en')} routes: ${upTo!.why}`
          : `counted at ${large.toLocaleString('en')} routes, the largest table it starts with (${failed?.failure ?? 'no start'})`;
    const counts: Flatness['counts'] = [new Map(), new Map()];
    for (const [index, size] of [smallest, large].entries()) {
      try {
        counts[index] = await countServer(server, [getWithOrigin], { env: { EXTRA_ROUTES: String(size) }, warmUp: COUNT_WARM_UP });
      } catch (error) {
        counts[index] = new Map([[getWithOrigin.name, `fails under callgrind: ${message(error)}`]]);
      }
    }
    flatness.push({ server, sizes: [smallest, large], counts, ...(note === undefined ? {} : { note }) });
  }

  const deferred = [];
  for (const server of [routerAlone, engines[0]!]) deferred.push(await firstRequestsOfPaths(server, SIZES.at(-1)!));

  const seconds = Math.round((Date.now() - startedAt) / 1000);
  const report = [
    '## Start-up and memory as the route table grows',
    '',
    `${machineLine()}, ${valgrind}; ${SIZES.map((size) => size.toLocaleString('en')).join(', ')} routes registered before the 6 of the benchmark's route set (GET \`/scale<i>/items/:id\`); ${seconds} s in all.`,
    '',
    `Start-up is from the server's own code (its imports loaded) to its first answer, a GET with Origin on \`${PATH}\`, registered after all the others: the time to listen, read inside the server, plus the round trip of that first request, since some routers build their matcher on it. Node's boot and the imports ("load", process start to the server's own code) do not grow with the routes and are shown apart. Memory is read after a full collection (\`--expose-gc\`), once the first answer is out. A start-up under ${REPEAT_BELOW_MS / 1000} s is the median of ${RUNS} starts; longer ones are one start. "x" columns are the ratio per 10-fold step of the table: 10.0 x is linear, less is better than linear. A server that has not answered after ${LIMIT_MS / 1000} s is stopped; after a failure the larger sizes are not run.`,
    '',
    ...startupTable(list, table),
    '',
    ...memoryTable(list, table, 'heapUsed', '### Heap after GC (MB)', true),
    '',
    ...memoryTable(list, table, 'rss', '### RSS after GC (MB)', false),
    '',
    ...failureNotes(list, table),
    '',
    ...flatnessReport(flatness),
    '',
    ...deferredReport(deferred, SIZES.at(-1)!),
  ].join('\n');
  console.log(`\n${report}`);
  writeResultsSection('startup', report);
  writeChart('startup.svg', startupChart(list, table));
}

const ratioHeader = SIZES.slice(1).map((size, index) => `x ${SIZES[index]!.toLocaleString('en')} to ${size.toLocaleString('en')}`);
const sizeHeader = SIZES.map((size) => `${size.toLocaleString('en')} routes`);

/** The ratios per 10-fold step, where both ends were measured. */
function ratios(values: (number | undefined)[]): string[] {
  return values.slice(1).map((value, index) => {
    const previous = values[index];
    return value === undefined || previous === undefined ? '' : `${(value / previous).toFixed(1)} x`;
  });
}

function startupTable(list: Server[], table: Map<string, Map<number, Outcome>>): string[] {
  const lines = [
    "### Start-up: the server's own code to its first answer (ms)",
    '',
    `| server | load | ${sizeHeader.join(' | ')} | ${ratioHeader.join(' | ')} |`,
    `|---|---:|${SIZES.map(() => '---:').join('|')}|${ratioHeader.map(() => '---:').join('|')}|`,
  ];
  for (const server of list) {
    const outcomes = SIZES.map((size) => table.get(server.name)!.get(size));
    const values = outcomes.map((outcome) => (isStart(outcome) ? outcome.startupMs : undefined));
    const first = outcomes.find(isStart);
    const cells = outcomes.map((outcome) => (isStart(outcome) ? thousands(outcome.startupMs) : (outcome?.cell ?? '')));
    lines.push(`| ${server.name} | ${first === undefined ? '' : thousands(first.loadMs)} | ${cells.join(' | ')} | ${ratios(values).join(' | ')} |`);
  }
  return lines;
}

function memoryTable(list: Server[], table: Map<string, Map<number, Outcome>>, field: 'heapUsed' | 'rss', title: string, perRoute: boolean): string[] {
  const lines = [
    title,
    '',
    `| server | ${sizeHeader.join(' | ')} | ${ratioHeader.join(' | ')} |${perRoute ? ' KB per route |' : ''}`,
    `|---|${SIZES.map(() => '---:').join('|')}|${ratioHeader.map(() => '---:').join('|')}|${perRoute ? '---:|' : ''}`,
  ];
  for (const server of list) {
    const outcomes = SIZES.map((size) => table.get(server.name)!.get(size));
    const values = outcomes.map((outcome) => (isStart(outcome) ? outcome[field] : undefined));
    const cells = outcomes.map((outcome) => (isStart(outcome) ? mb(outcome[field]) : (outcome?.cell ?? '')));
    // What a route adds: the largest measured table against the smallest.
    const lastIndex = values.findLastIndex((value) => value !== undefined);
    const perRouteCell =
      lastIndex > 0 && values[0] !== undefined
        ? `${((values[lastIndex]! - values[0]) / (SIZES[lastIndex]! - SIZES[0]!) / 1024).toFixed(2)} (at ${SIZES[lastIndex]!.toLocaleString('en')})`
        : '';
    lines.push(`| ${server.name} | ${cells.join(' | ')} | ${ratios(values).join(' | ')} |${perRoute ? ` ${perRouteCell} |` : ''}`);
  }
  return lines;
}

function failureNotes(list: Server[], table: Map<string, Map<number, Outcome>>): string[] {
  const notes: string[] = [];
  for (const server of list) {
    for (const size of SIZES) {
      const outcome = table.get(server.name)!.get(size);
      if (outcome !== undefined && !isStart(outcome) && outcome.cell !== 'not run')
        notes.push(`- ${server.name}, ${size.toLocaleString('en')} routes: ${outcome.failure}.`);
    }
  }
  return notes.length === 0 ? ['Every server started at every size.'] : ['### Failures', '', ...notes];
}

function flatnessReport(flatness: Flatness[]): string[] {
  const lines = [
    '### Instructions per request in the smallest and the largest table',
    '',
    `Counted by callgrind as in \`--instructions\` (${COUNT_WARM_UP.toLocaleString('en')} warm-up requests, then windows of 1,000 until 3 agree within 1%), on the request the start-up table times: a GET with Origin on \`${PATH}\`, which passes through both the CORS engine's lookup and the application's router. Flat is the goal: a request should cost the same whatever the size of the table.`,
    '',
    '| server | small table | instructions per request | large table | instructions per request | change |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  const notes: string[] = [];
  for (const { server, sizes, counts, note } of flatness) {
    const [a, b] = counts.map((count) => count.get(getWithOrigin.name));
    const show = (count: Count | string | undefined) => (count === undefined ? 'n/a' : typeof count === 'string' ? count : thousands(count.perRequest));
    const change =
      typeof a === 'object' && typeof b === 'object'
        ? `${b.perRequest >= a.perRequest ? '+' : ''}${((b.perRequest / a.perRequest - 1) * 100).toFixed(1)}%`
        : '';
    lines.push(`| ${server.name} | ${sizes[0].toLocaleString('en')} | ${show(a)} | ${sizes[1].toLocaleString('en')} | ${show(b)} | ${change} |`);
    if (note !== undefined) notes.push(`- ${server.name}: ${note}.`);
  }
  return notes.length === 0 ? lines : [...lines, '', ...notes];
}

function startupChart(list: Server[], table: Map<string, Map<number, Outcome>>): string {
  const groups: BarGroup[] = SIZES.map((size) => ({
    group: `${size.toLocaleString('en')} routes`,
    bars: list.map((server) => {
      const outcome = table.get(server.name)!.get(size);
      return { label: server.name, color: server.color, value: isStart(outcome) ? outcome.startupMs : undefined };
    }),
  }));
  return barChart(
    `Start-up to the first answer, by routes registered, log scale (${chartDate()})`,
    groups,
    logAxis(groups, 'ms'),
    `no answer: crashed, answered wrongly, stopped after ${LIMIT_MS / 1000} s, or not run after one of those`,
  );
}

interface Deferred {
  server: Server;
  /** Server CPU µs per request: each path's first request, then its second. */
  firstMicros: number;
  repeatMicros: number;
  /** Heap after GC grown over the first requests, per path. */
  heapPerPath: number;
}

/**
 * The work deferred to a path's first request. Past 1,000 routes the standalone middleware builds a
 * mirrored path's table at the path's first request (core/shared-router.ts) instead of at
 * mirror(): DEFERRED_PATHS distinct paths of the table are each requested once, then once again, in
 * order, one request at a time, and the server's own CPU time and heap are read around each pass.
 * The router alone, run the same way, shows what a first request costs any server (V8 and the
 * router meeting a new path).
 */
export async function firstRequestsOfPaths(server: Server, size: number): Promise<Deferred> {
  const running = await startServer(server.entry, { EXTRA_ROUTES: String(size) });
  try {
    const step = Math.max(1, Math.floor(size / DEFERRED_PATHS));
    const urls = Array.from({ length: DEFERRED_PATHS }, (_, index) => `${running.url}/scale${index * step}/items/1`);
    const pass = async () => {
      const before = (await probe(running.child, 'cpu')).micros;
      for (const url of urls) {
        const response = await fetch(url, { headers: getWithOrigin.headers });
        await response.arrayBuffer();
        if (response.headers.get('access-control-allow-origin') === null) throw new Error(`${server.name}: no grant on ${url}`);
      }
      return ((await probe(running.child, 'cpu')).micros - before) / urls.length;
    };
    const heapBefore = (await probe(running.child, 'memory')).heapUsed;
    const firstMicros = await pass();
    const heapAfter = (await probe(running.child, 'memory')).heapUsed;
    const repeatMicros = await pass();
    return { server, firstMicros, repeatMicros, heapPerPath: (heapAfter - heapBefore) / urls.length };
  } finally {
    running.child.kill('SIGKILL');
  }
}

function deferredReport(deferred: Deferred[], size: number): string[] {
  return [
    `### Work deferred to a path's first request (${size.toLocaleString('en')} routes)`,
    '',
    `${DEFERRED_PATHS.toLocaleString('en')} distinct paths of the table, each requested once with a GET with Origin, then each once again; one request at a time. The server's CPU time per request (µs, user + system, read inside it) and its heap after GC grown over the first pass, per path. The standalone middleware builds a mirrored path's table at that path's first request past 1,000 routes; the router alone shows what a first request costs without CORS.`,
    '',
    '| server | first request of a path (µs CPU) | second request (µs CPU) | heap grown per path over the first pass (bytes) |',
    '|---|---:|---:|---:|',
    ...deferred.map(
      ({ server, firstMicros, repeatMicros, heapPerPath }) =>
        `| ${server.name} | ${firstMicros.toFixed(1)} | ${repeatMicros.toFixed(1)} | ${Math.round(heapPerPath).toLocaleString('en')} |`,
    ),
  ];
}
