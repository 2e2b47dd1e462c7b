/**
 * `npm run bench -- --fleet`: issue 48's origin store (`@lib/cors/origin-store`) on the real
 * stores, Debian's redis-server and PostgreSQL, each started here on loopback and stopped after,
 * however the run ends.
 *
 * 1. Convergence: 4 processes of an origin-store example (examples/origin-store-redis or
 *    -postgres, as a user runs them) share one store, each under a paced load of preflights and
 *    credentialed GETs. This process grants and revokes origins one at a time through a store of
 *    its own; after each write is acknowledged, every instance is asked back to back until it
 *    answers the change. Convergence is the time from the acknowledgement to the end of that
 *    first agreeing answer: an upper bound, its round trip included.
 * 2. Per-request cost: the standalone server of `--instructions` (servers/standalone-app.ts) with
 *    a static list of two origins, with a synchronous origin function over them (what the engine
 *    does for any origin function, the store's included), and with the same two origins granted
 *    in each store, cached (the store's defaults) and uncached (no TTL and no staleness, since
 *    `ttl` 0 alone still serves an allowed verdict stale while it is read again: the store answers
 *    every request), counted under callgrind exactly as `--instructions` counts. The static list
 *    is counted twice more, in a process with each store open and subscribed but never asked:
 *    what else a process runs moves a server's count by a few percent either way, through V8's
 *    inline caches in the code both use (streams, sockets, events), so what the cached lookup
 *    itself adds is its difference from that (bench/RESULTS.md, "Many instances"). `perf stat -e
 *    instructions` would count a process outside valgrind, but this machine's kernel offers no
 *    such counter (perf says "not supported"), and callgrind counts the server's process alone,
 *    whatever it waits on: the store's own work is not in the count, the client's is.
 *
 * Run as a child (by callgrind) with FLEET_ORIGINS set, this file is that counted server.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { Agent, type IncomingMessage } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { Redis } from 'ioredis';
import pg from 'pg';
import { type OriginStore, type OriginStoreOptions, postgresOrigins, redisOrigins } from '@lib/cors/origin-store';

import { accepting, freePort } from '../test/helpers/ports.js';
import { ask, INSTANCES, ORIGINS, percentile, TENANT } from '../test/helpers/fleet-traffic.js';
import { type Count, countServer, valgrindVersion } from './instructions.js';
import { machineLine, percent, thousands, writeResultsSection } from './report.js';
import { scenarioNamed, type Server } from './scenarios.js';
import { ALLOWED_ORIGIN } from './servers/policy.js';

type Kind = 'redis' | 'postgres';

/** Requests per second each instance is sent, half preflights and half credentialed GETs, at most IN_FLIGHT at once. */
const RATE = 250;
const IN_FLIGHT = 8;
/** Changes per store: each origin granted, then revoked, in turn (half grants, half revocations). */
const CHANGES = 100;
/** Between two changes, so the load runs on its own for a moment. */
const PAUSE_MS = 25;
/** The load alone before the first change, so the instances are warm. */
const WARM_MS = 1500;
/** An instance that has not answered a change after this long fails the run. */
const GIVE_UP_MS = 10_000;

/** The counted servers' two origins (servers/origin-lookup.ts's static list), on the default tenant. */
const COUNTED_ORIGINS = [ALLOWED_ORIGIN, 'https://admin.example.com'];
const COUNTED_SCENARIOS = [scenarioNamed('preflight'), scenarioNamed('GET with Origin')];
/** Requests per counted window (BENCH_WINDOW), as `--instructions` takes it. */
const WINDOW = Number(process.env.BENCH_WINDOW ?? 1000);
/** The goal: a cached origin within 3% of a static list. */
const COST_GOAL = 0.03;
/** The goal: p99 under 100 ms with 4 instances. */
const CONVERGENCE_GOAL_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// The processes: every one started here is in `started` until it is stopped, and killed at exit
// if a failure skipped its stop.

const started = new Set<ChildProcess>();

function track(child: ChildProcess): ChildProcess {
  started.add(child);
  child.once('exit', () => started.delete(child));
  return child;
}

function killLeftovers(): void {
  for (const child of started) child.kill('SIGKILL');
}

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Sends `signal`, and SIGKILL after 10 s; resolves once the process is gone. */
async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!hasExited(child)) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  }
  started.delete(child);
}

/** Resolves once `check` passes; rejects if `child` exits first or 30 s go by. */
async function until(child: ChildProcess, what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (hasExited(child)) throw new Error(`${what} exited (${child.signalCode ?? child.exitCode}) before it was ready`);
    if (Date.now() > deadline) throw new Error(`${what} was not ready after 30 s`);
    await sleep(50);
  }
}

// ---------------------------------------------------------------------------------------------
// The stores.

interface StoreProcess {
  readonly kind: Kind;
  /** As the report names it, with its version. */
  readonly name: string;
  readonly url: string;
  /** What an example reads to find the store. */
  readonly env: Record<string, string>;
  stop(): Promise<void>;
}

/** Debian's redis-server, writes kept as the tests keep them (append-only file, fsync on every write). */
async function startRedis(): Promise<StoreProcess> {
  const binary = '/usr/bin/redis-server';
  const version = /v=(\S+)/.exec(execFileSync(binary, ['--version'], { encoding: 'utf8' }))?.[1] ?? '';
  const dir = mkdtempSync(join(tmpdir(), 'bench-fleet-redis-'));
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''];
  const child = track(spawn(binary, args, { stdio: 'ignore' }));
  const stop = async () => {
    await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await accepting(port, {
      timeout: 30_000,
      gone: () => (hasExited(child) ? new Error(`redis-server exited (${child.signalCode ?? child.exitCode}) before it was ready`) : undefined),
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const url = `redis://127.0.0.1:${port}`;
  return { kind: 'redis', name: `Redis ${version}`, url, env: { REDIS_URL: url }, stop };
}

/**
 * A PostgreSQL cluster of its own (Debian's newest under /usr/lib/postgresql), trusting loopback,
 * with fsync off: the convergence is timed from the acknowledgement, so what a commit costs is not
 * in it. PostgreSQL refuses to run as root, so under root it runs as the `postgres` user.
 */
async function startPostgres(): Promise<StoreProcess> {
  const major = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))[0];
  if (major === undefined) throw new Error('no PostgreSQL under /usr/lib/postgresql (apt-get install -y postgresql)');
  const bin = join('/usr/lib/postgresql', major, 'bin');
  const version = /\d+(\.\d+)*/.exec(execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }))?.[0] ?? major;
  const dir = mkdtempSync(join(tmpdir(), 'bench-fleet-postgres-'));
  const user =
    process.getuid?.() === 0
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
          gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
        }
      : undefined;
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const asUser = user ?? {};
  const data = join(dir, 'data');
  let child: ChildProcess | undefined;
  const stop = async () => {
    // SIGINT: the fast shutdown, which does not wait for clients to leave.
    if (child !== undefined) await stopProcess(child, 'SIGINT');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    execFileSync(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], { stdio: 'ignore', cwd: dir, ...asUser });
    const port = await freePort();
    const args = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'];
    const postmaster = track(spawn(join(bin, 'postgres'), args, { stdio: 'ignore', cwd: dir, ...asUser }));
    child = postmaster;
    // Accepting connections is not yet answering queries: pg_isready says when it does.
    const ready = () =>
      new Promise<boolean>((resolve) =>
        execFile(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-q'], (error) => resolve(error === null)),
      );
    await until(postmaster, 'postgres', ready);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    return { kind: 'postgres', name: `PostgreSQL ${version}`, url, env: { DATABASE_URL: url }, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** An origin store on `url` with a client of its own, as an application makes one; `close()` ends both. */
function openStore(kind: Kind, url: string, options: OriginStoreOptions<IncomingMessage> = {}): { store: OriginStore; close(): Promise<void> } {
  if (kind === 'redis') {
    const client = new Redis(url, { maxRetriesPerRequest: 1 });
    client.on('error', () => {});
    const store = redisOrigins({ client, ...options });
    return {
      store,
      async close() {
        await store.close();
        client.disconnect();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: url });
  pool.on('error', () => {});
  const store = postgresOrigins({ client: pool, createTable: true, ...options });
  return {
    store,
    async close() {
      await store.close();
      await pool.end();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Convergence.

/** One example process; resolves with its port once it says it listens. */
async function startInstance(kind: Kind, env: Record<string, string>, outage: () => void): Promise<{ port: number; child: ChildProcess }> {
  const entry = fileURLToPath(new URL(`../examples/origin-store-${kind}/server.js`, import.meta.url));
  const child = track(spawn(process.execPath, [entry], { env: { ...process.env, ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] }));
  // Passed on, and each outage the store tells (once per outage, as issue 48 asks) counted.
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    process.stderr.write(chunk);
    for (const _ of chunk.matchAll(/origin store: .* cannot be reached/g)) outage();
  });
  let output = '';
  child.stdout!.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: string) => {
      output += chunk;
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
      if (port !== undefined) resolve({ port: Number(port), child });
    });
    child.once('exit', (code, signal) => reject(new Error(`examples/origin-store-${kind} exited (${signal ?? code}) before listening: ${output}`)));
  });
}

interface LoadTally {
  answered: number;
  /** Answers other than 200 and 204: a refusal is a 200 or 204 without the grant, never an error. */
  unexpected: number;
  failed: number;
  seconds: number;
}

/** RATE requests a second to each instance, on kept-alive connections, at most IN_FLIGHT at once each. */
function startLoad(ports: readonly number[]): { stop(): Promise<LoadTally> } {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const tally = { answered: 0, unexpected: 0, failed: 0 };
  const startedAt = performance.now();
  let running = true;
  const loops = ports.map(async (port, instance) => {
    const pending = new Set<Promise<void>>();
    let next = performance.now();
    for (let i = instance; running; i++) {
      next += 1000 / RATE;
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      if (pending.size >= IN_FLIGHT) await Promise.race(pending);
      const sent: Promise<void> = ask(port, ORIGINS[i % ORIGINS.length]!, i % 2 === 0, agent)
        .then(
          ({ status }) => {
            tally.answered++;
            if (status !== 200 && status !== 204) tally.unexpected++;
          },
          () => {
            tally.failed++;
          },
        )
        .finally(() => pending.delete(sent));
      pending.add(sent);
    }
    await Promise.all(pending);
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      agent.destroy();
      return { ...tally, seconds: (performance.now() - startedAt) / 1000 };
    },
  };
}

interface Convergence {
  /** Per instance and change, ms from the acknowledgement to the end of the first agreeing answer. */
  all: number[];
  revocations: number[];
  load: LoadTally;
  /** Outages the instances told (a read past lookupTimeout, or the feed cut off), before the first change and after it. */
  outages: { warming: number; changing: number };
}

/** `store`'s fleet: 4 example processes under load, CHANGES grants and revocations, each instance timed to each. */
async function converge(store: StoreProcess): Promise<Convergence> {
  const writer = openStore(store.kind, store.url, { logger: { error: () => {} } });
  const instances: ChildProcess[] = [];
  const probes = new Agent({ keepAlive: true, maxSockets: 1 });
  let load: ReturnType<typeof startLoad> | undefined;
  try {
    await writer.store.ready;
    // Every origin starts refused: revoked, in case the store holds it from an earlier change.
    for (const origin of ORIGINS) await writer.store.revoke(TENANT, origin);
    const outages = { warming: 0, changing: 0 };
    let changing = false;
    const outage = () => {
      if (changing) outages.changing++;
      else outages.warming++;
    };
    const started = await Promise.all(Array.from({ length: INSTANCES }, () => startInstance(store.kind, store.env, outage)));
    instances.push(...started.map(({ child }) => child));
    const ports = started.map(({ port }) => port);
    load = startLoad(ports);
    await sleep(WARM_MS);
    const allowed = new Map(ORIGINS.map((origin) => [origin, false]));
    const result: Convergence = { all: [], revocations: [], load: { answered: 0, unexpected: 0, failed: 0, seconds: 0 }, outages };
    changing = true;
    for (let change = 0; change < CHANGES; change++) {
      const origin = ORIGINS[change % ORIGINS.length]!;
      const next = !allowed.get(origin);
      await (next ? writer.store.grant(TENANT, origin) : writer.store.revoke(TENANT, origin));
      const ackedAt = performance.now();
      allowed.set(origin, next);
      const times = await Promise.all(
        ports.map(async (port, instance) => {
          for (;;) {
            const { granted } = await ask(port, origin, false, probes);
            const after = performance.now() - ackedAt;
            if (granted === next) return after;
            if (after > GIVE_UP_MS) throw new Error(`${store.name}: instance ${instance} still answers ${origin} as before ${GIVE_UP_MS} ms after the change`);
          }
        }),
      );
      result.all.push(...times);
      if (!next) result.revocations.push(...times);
      await sleep(PAUSE_MS);
    }
    result.load = await load.stop();
    load = undefined;
    return result;
  } finally {
    await load?.stop();
    probes.destroy();
    await Promise.all(instances.map((child) => stopProcess(child)));
    await writer.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The per-request cost.

/**
 * The counted server as a child: FLEET_ORIGINS is `list`, `function` (a synchronous origin
 * function over the same set), or `<kind>-open` (the list, the store open beside it),
 * `<kind>-cached` or `<kind>-uncached` on REDIS_URL / DATABASE_URL.
 */
async function serveCounted(policy: string): Promise<void> {
  // Imported here: the parent has no use for the server's module.
  const { serveStandalone } = await import('./servers/standalone-app.js');
  if (policy === 'list') return serveStandalone({ origin: COUNTED_ORIGINS });
  // The engine's path for any origin function, without a store: what the store's cache adds is the rest.
  const allowed = new Set(COUNTED_ORIGINS);
  if (policy === 'function') return serveStandalone({ origin: (origin) => allowed.has(origin) });
  const [kind, cache] = policy.split('-') as [Kind, string];
  const url = kind === 'redis' ? process.env.REDIS_URL : process.env.DATABASE_URL;
  if ((kind !== 'redis' && kind !== 'postgres') || (cache !== 'open' && cache !== 'cached' && cache !== 'uncached') || url === undefined) {
    throw new Error(`FLEET_ORIGINS must be list, function, or redis- or postgres- then open, cached or uncached, with its store's URL, not ${policy}`);
  }
  // lookupTimeout of 5 s: valgrind slows a cold process's first reads past the default 250 ms,
  // and a refused first answer would fail the check. It changes no request's work.
  const { store } = openStore(kind, url, {
    lookupTimeout: 5000,
    ...(cache === 'uncached' ? { ttl: { allowed: 0, denied: 0 }, maxStale: 0 } : {}),
  });
  await store.ready;
  // open: the store runs beside the list, as in an application that has it, and is never asked.
  serveStandalone({ origin: cache === 'open' ? COUNTED_ORIGINS : store.origin });
}

const POLICIES = [
  { policy: 'list', label: 'static list of 2 origins' },
  { policy: 'function', label: 'sync origin function, no store' },
  { policy: 'redis-open', label: 'static list, Redis store open' },
  { policy: 'postgres-open', label: 'static list, PostgreSQL store open' },
  { policy: 'redis-cached', label: 'Redis, cached' },
  { policy: 'postgres-cached', label: 'PostgreSQL, cached' },
  { policy: 'redis-uncached', label: 'Redis, uncached' },
  { policy: 'postgres-uncached', label: 'PostgreSQL, uncached' },
] as const;

async function countPolicies(stores: readonly StoreProcess[]): Promise<Map<string, Map<string, Count | string>>> {
  const env: Record<string, string> = Object.assign({}, ...stores.map((store) => store.env));
  // The two origins granted on the default tenant, the one list the counted servers ask about.
  for (const { kind, url } of stores) {
    const writer = openStore(kind, url, { logger: { error: () => {} } });
    try {
      await writer.store.ready;
      for (const origin of COUNTED_ORIGINS) await writer.store.grant('default', origin);
    } finally {
      await writer.close();
    }
  }
  const counts = new Map<string, Map<string, Count | string>>();
  for (const { policy, label } of POLICIES) {
    const server: Server = {
      name: `@lib/cors standalone, ${label}`,
      entry: new URL(import.meta.url),
      color: '#1565c0',
      env: { ...env, FLEET_ORIGINS: policy },
    };
    counts.set(policy, await countServer(server, COUNTED_SCENARIOS, { window: WINDOW }));
  }
  return counts;
}

// ---------------------------------------------------------------------------------------------
// The report.

const ms = (value: number) => `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
const signed = (value: number) => `${value >= 0 ? '+' : ''}${percent(value)}`;

function report(
  stores: readonly StoreProcess[],
  converged: Map<Kind, Convergence>,
  counts: Map<string, Map<string, Count | string>>,
  valgrind: string,
  seconds: number,
  loadAverage: number,
): string {
  const loads = [...converged.values()].map(({ load }) => load);
  const answered = loads.reduce((sum, load) => sum + load.answered, 0);
  const unexpected = loads.reduce((sum, load) => sum + load.unexpected + load.failed, 0);
  const rate = Math.min(...loads.map((load) => load.answered / load.seconds / INSTANCES));
  const lines = [
    '## Many instances: the origin store, its convergence and its cost per request',
    '',
    `${machineLine()} (load average ${loadAverage.toFixed(1)} at the start), ${stores.map((store) => store.name).join(', ')}, ${valgrind}; ${Math.round(seconds)} s in all. ` +
      `Convergence: ${INSTANCES} processes of examples/origin-store-redis or -postgres on one store, each sent ${RATE} requests/s (at least ${Math.round(rate)} answered) of preflights and credentialed GETs on ${ORIGINS.length} origins of one tenant ` +
      `(${thousands(answered)} answers, ${unexpected === 0 ? 'none' : thousands(unexpected)} but 200 or 204); ${CHANGES} changes per store (half grants, half revocations), one at a time; ` +
      "per instance and change, from the store's acknowledgement to the end of the instance's first answer that agrees (GETs back to back, round trip included); " +
      "outages: the instances' log lines telling one (a read past `lookupTimeout`, 250 ms, or the feed cut off), in the warm-up of the load and during the changes. " +
      `Cost: the standalone server of \`--instructions\` on the preflight and the GET with Origin, counted by callgrind as that mode counts (windows of ${WINDOW.toLocaleString('en')}), ` +
      "the server's process only (the store's own work is not counted; perf has no instruction counter here); cached: the store's defaults; uncached: `ttl: { allowed: 0, denied: 0 }, maxStale: 0`, every request read from the store; " +
      'static list, store open: the list, with the store open and subscribed in the same process but never asked, what an application that keeps its origins there pays before any lookup.',
    '',
    `| store | answers timed | p50 | p99 | max | max of revocations | outages, warm-up / changes | p99 under ${CONVERGENCE_GOAL_MS} ms |`,
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const store of stores) {
    const result = converged.get(store.kind)!;
    const sorted = [...result.all].sort((a, b) => a - b);
    const p99 = percentile(sorted, 99);
    lines.push(
      `| ${store.name} | ${sorted.length} | ${ms(percentile(sorted, 50))} | ${ms(p99)} | ${ms(sorted.at(-1)!)} | ${ms(Math.max(...result.revocations))} | ${result.outages.warming} / ${result.outages.changing} | ${p99 < CONVERGENCE_GOAL_MS ? 'holds' : '**not reached**'} |`,
    );
  }
  lines.push(
    '',
    `| scenario | ${POLICIES.map(({ label }) => label).join(' | ')} | cached (Redis, PostgreSQL) against the list with its store open, within ${COST_GOAL * 100}% |`,
    `|---|${POLICIES.map(() => '---:').join('|')}|---|`,
  );
  const list = counts.get('list')!;
  for (const scenario of COUNTED_SCENARIOS) {
    const reference = list.get(scenario.name);
    const ratioOf = (policy: string) => {
      const count = counts.get(policy)?.get(scenario.name);
      return typeof count === 'object' && typeof reference === 'object' ? count.perRequest / reference.perRequest - 1 : undefined;
    };
    const cells = POLICIES.map(({ policy }) => {
      const count = counts.get(policy)?.get(scenario.name);
      if (typeof count !== 'object') return count ?? 'n/a';
      const ratio = ratioOf(policy);
      return policy === 'list' || ratio === undefined ? thousands(count.perRequest) : `${thousands(count.perRequest)} (${signed(ratio)})`;
    });
    // The goal is the cached lookup's own cost: against the list in a process with the same store open.
    const lookups = (['redis', 'postgres'] as const).map((kind) => {
      const open = counts.get(`${kind}-open`)?.get(scenario.name);
      const cached = counts.get(`${kind}-cached`)?.get(scenario.name);
      return typeof open === 'object' && typeof cached === 'object' ? cached.perRequest / open.perRequest - 1 : undefined;
    });
    const within = lookups.every((ratio) => ratio !== undefined && ratio <= COST_GOAL);
    const goal = `${lookups.map((ratio) => (ratio === undefined ? 'n/a' : signed(ratio))).join(', ')}: ${within ? 'holds' : '**not reached**'}`;
    lines.push(`| ${scenario.name} | ${cells.join(' | ')} | ${goal} |`);
  }
  return lines.join('\n');
}

export async function measureFleet(): Promise<void> {
  const valgrind = await valgrindVersion();
  const startedAt = Date.now();
  // Other work on this shared machine shows in the convergence (timed), not in the counts.
  const loadAverage = loadavg()[0]!;
  process.once('exit', killLeftovers);
  const stores: StoreProcess[] = [];
  const converged = new Map<Kind, Convergence>();
  let counts: Map<string, Map<string, Count | string>>;
  try {
    stores.push(await startRedis());
    stores.push(await startPostgres());
    for (const store of stores) {
      console.log(`${store.name}: ${INSTANCES} instances under load, ${CHANGES} changes...`);
      const result = await converge(store);
      const sorted = [...result.all].sort((a, b) => a - b);
      console.log(`${store.name}: p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted.at(-1)!)}`);
      converged.set(store.kind, result);
    }
    counts = await countPolicies(stores);
  } finally {
    for (const store of [...stores].reverse()) await store.stop();
    killLeftovers();
  }
  const section = report(stores, converged, counts, valgrind, (Date.now() - startedAt) / 1000, loadAverage);
  console.log(`\n${section}`);
  writeResultsSection('fleet', section);
}

// Started by callgrind as the counted server.
if (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url && process.env.FLEET_ORIGINS !== undefined) {
  await serveCounted(process.env.FLEET_ORIGINS);
}
