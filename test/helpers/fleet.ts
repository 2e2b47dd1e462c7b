/**
 * Issue 48's fleet: four processes of an origin-store example (examples/origin-store-redis or
 * -postgres, as a user would run them) on one real store, under a steady load of preflights and
 * credentialed GETs, while this process grants and revokes origins and kills the store with
 * SIGKILL halfway. Used by origin-store-fleet-redis.test.ts and -postgres.test.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';

import { Redis } from 'ioredis';
import pg from 'pg';
import type { Test } from 'tap';

import { type OriginStore, postgresOrigins, redisOrigins } from '@lib/cors/origin-store';

import { ask, INSTANCES, ORIGINS, percentile, TENANT } from './fleet-traffic.js';
import { written } from './origin-store-scenarios.js';
import { type StoreServer, startPostgres, startRedis } from './stores.js';

/**
 * How long after a change's acknowledgement an answer may still show the state before it. The
 * examples keep a denied verdict 5 s and an allowed one a minute, so an answer within this bound
 * is the feed's work; convergence itself is measured (and printed) far below it.
 */
const BOUND = 2_000;
/** The same after the store came back, when instances reconnect with their clients' back-off. */
const BOUND_AFTER_RESTART = 20_000;

interface Answer {
  readonly instance: number;
  readonly origin: string;
  readonly sentAt: number;
  readonly receivedAt: number;
  readonly status: number;
  readonly granted: boolean;
}

interface Change {
  readonly origin: string;
  readonly allowed: boolean;
  readonly startedAt: number;
  readonly ackedAt: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

async function startInstance(t: Test, example: string, env: Record<string, string>): Promise<number> {
  const entry = fileURLToPath(new URL(`../../examples/${example}/server.js`, import.meta.url));
  const child: ChildProcess = spawn(process.execPath, [entry], { env: { ...process.env, ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(async () => {
    if (child.exitCode === null) {
      child.kill();
      await once(child, 'exit');
    }
  });
  let output = '';
  child.stdout!.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: string) => {
      output += chunk;
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
      if (port !== undefined) resolve(Number(port));
    });
    child.once('exit', (code) => reject(new Error(`the ${example} example exited (${code}) before listening: ${output}`)));
  });
}

export async function fleetScenario(t: Test, kind: 'redis' | 'postgres'): Promise<void> {
  const server: StoreServer = kind === 'redis' ? await startRedis(t) : await startPostgres(t);
  let writer: OriginStore;
  if (kind === 'redis') {
    const client = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
    client.on('error', () => {});
    writer = redisOrigins({ client, logger: { error: () => {} } });
    t.teardown(async () => {
      await writer.close();
      client.disconnect();
    });
  } else {
    const pool = new pg.Pool({ connectionString: server.url, connectionTimeoutMillis: 500 });
    pool.on('error', () => {});
    writer = postgresOrigins({ client: pool, createTable: true, reconnectDelay: 100, logger: { error: () => {} } });
    t.teardown(async () => {
      await writer.close();
      await pool.end();
    });
  }
  await writer.ready;
  const env: Record<string, string> = kind === 'redis' ? { REDIS_URL: server.url } : { DATABASE_URL: server.url };
  const ports = await Promise.all(Array.from({ length: INSTANCES }, () => startInstance(t, `origin-store-${kind}`, env)));

  const allowed = new Map(ORIGINS.map((origin) => [origin, false]));
  const changes: Change[] = [];
  const answers: Answer[] = [];
  let stop = false;
  let preflight = false;
  const load = Promise.all(
    ports.map(async (port, instance) => {
      for (let i = instance; !stop; i++) {
        const origin = ORIGINS[i % ORIGINS.length]!;
        preflight = !preflight;
        const sentAt = Date.now();
        const { status, granted } = await ask(port, origin, preflight, agent);
        answers.push({ instance, origin, sentAt, receivedAt: Date.now(), status, granted });
      }
    }),
  );

  /** Flips one origin, then waits until every instance answers the new state: the convergence of each. */
  const convergence: number[] = [];
  const afterRestart: number[] = [];
  const change = async (index: number, into: number[], bound: number) => {
    const origin = ORIGINS[index % ORIGINS.length]!;
    const next = !allowed.get(origin);
    const startedAt = Date.now();
    await written(() => (next ? writer.grant(TENANT, origin) : writer.revoke(TENANT, origin)));
    const ackedAt = Date.now();
    allowed.set(origin, next);
    changes.push({ origin, allowed: next, startedAt, ackedAt });
    await Promise.all(
      ports.map(async (port, instance) => {
        for (;;) {
          const { granted } = await ask(port, origin, false, agent);
          if (granted === next) break;
          if (Date.now() - ackedAt > bound) throw new Error(`instance ${instance} still answers ${origin} as ${!next} ${bound} ms after the change`);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        into.push(Date.now() - ackedAt);
      }),
    );
  };

  for (let i = 0; i < 24; i++) await change(i, convergence, BOUND);

  // The store killed mid-run: answers go on, from the cache where it may, refused where not.
  const killedAt = Date.now();
  await server.kill();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await server.start();
  const restartedAt = Date.now();
  for (let i = 24; i < 40; i++) await change(i, afterRestart, BOUND_AFTER_RESTART);
  stop = true;
  await load;

  // Every answer agrees with the store as it stood at some moment from `bound` before it was sent
  // to when it came back (a change in flight counts as either state); no grant ever goes further.
  const stateAt = (origin: string, at: number) => {
    let state = false;
    for (const changed of changes) if (changed.origin === origin && changed.ackedAt <= at) state = changed.allowed;
    return state;
  };
  const inconsistent = answers.filter((answer) => {
    // While the store is down or the instance reconnects, an origin it could not check is refused: safe, and expected.
    if (!answer.granted && answer.sentAt >= killedAt && answer.sentAt < restartedAt + BOUND_AFTER_RESTART) return false;
    const bound = answer.sentAt >= killedAt ? BOUND_AFTER_RESTART : BOUND;
    const from = answer.sentAt - bound;
    const possible = new Set([stateAt(answer.origin, from)]);
    for (const changed of changes) {
      if (changed.origin === answer.origin && changed.ackedAt >= from && changed.startedAt <= answer.receivedAt) possible.add(changed.allowed);
    }
    return !possible.has(answer.granted);
  });
  t.same(inconsistent.slice(0, 5), [], `every one of ${answers.length} answers agrees with the store within the bound`);
  t.same(answers.filter((answer) => answer.status !== 200 && answer.status !== 204).slice(0, 5), [], 'no answer but 200 or 204, the outage included');
  const duringOutage = answers.filter((answer) => answer.sentAt >= killedAt && answer.sentAt < restartedAt);
  t.ok(duringOutage.length > 0, `${duringOutage.length} answers while the store was down`);
  t.ok(
    duringOutage.every((answer) => answer.receivedAt - answer.sentAt < 5_000),
    'none waited on the store',
  );
  t.ok(
    duringOutage.some((answer) => answer.granted),
    'origins allowed before the outage are still granted from the cache during it',
  );
  const sorted = [...convergence].sort((a, b) => a - b);
  t.comment(
    `${kind}: convergence over ${sorted.length} instance-changes: p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1)} ms; after the restart, max ${Math.max(...afterRestart)} ms`,
  );
  t.equal(convergence.length, 24 * INSTANCES, 'every instance converged on every change within the bound');
  t.equal(afterRestart.length, 16 * INSTANCES, 'and after the restart, no revocation lost');
}
