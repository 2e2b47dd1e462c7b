/**
 * Debian's redis-server and PostgreSQL, started on loopback for one test file and stopped after
 * it (scripts/test-tools.sh installs them before tap). Each can be killed with SIGKILL and started
 * again on the same port and data, to prove what an outage does. Under root, PostgreSQL runs as
 * the `postgres` user Debian's package creates (it refuses to run as root).
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Test } from 'tap';

import { accepting, freePort } from './ports.js';

export interface StoreServer {
  readonly port: number;
  readonly url: string;
  /** SIGKILL, and wait for the process to be gone. */
  kill(): Promise<void>;
  /** Start again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
}

/** SIGKILL, and the process gone. */
async function killed(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined) return;
  child.kill('SIGKILL');
  await stopped(child);
}

function stopped(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A redis-server whose acknowledged writes survive SIGKILL (append-only file, fsync on every write). */
export async function startRedis(t: Test): Promise<StoreServer> {
  const dir = mkdtempSync(join(tmpdir(), 'lib-cors-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const server: StoreServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      await killed(child);
      child = undefined;
    },
    async start() {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''];
      child = spawn('/usr/bin/redis-server', args, { stdio: 'ignore' });
      await accepting(port);
    },
  };
  await server.start();
  t.teardown(async () => {
    await server.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  return server;
}

/** Waits until PostgreSQL answers queries on `port` (pg_isready exits 0). */
async function answering(bin: string, port: number): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const ready = await new Promise<boolean>((resolve) =>
      execFile(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-q'], (error) => resolve(error === null)),
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`PostgreSQL on port ${port} did not become ready`);
}

/** The `postgres` user's ids where the tests run as root; else the current user's (undefined). */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
  };
}

/** Debian's PostgreSQL binaries: /usr/lib/postgresql/<major>/bin. */
function postgresBin(): string {
  const majors = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  return join('/usr/lib/postgresql', majors[0]!, 'bin');
}

/** A PostgreSQL cluster of its own, trusting loopback, user `postgres`, database `postgres`. */
export async function startPostgres(t: Test): Promise<StoreServer> {
  const dir = mkdtempSync(join(tmpdir(), 'lib-cors-postgres-'));
  const user = postgresUser();
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const bin = postgresBin();
  execFileSync(join(bin, 'initdb'), ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync'], { stdio: 'ignore', ...user });
  const port = await freePort();
  let child: ChildProcess | undefined;
  const server: StoreServer = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async kill() {
      await killed(child);
      child = undefined;
    },
    async start() {
      // A SIGKILLed postmaster's backends leave on their own; until they have, a new one may refuse to start.
      for (let attempt = 0; ; attempt++) {
        const args = ['-D', join(dir, 'data'), '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'];
        const started = spawn(join(bin, 'postgres'), args, { stdio: 'ignore', ...user });
        const exited = stopped(started).then(() => 'exited' as const);
        // Accepting connections is not yet answering queries ("the database system is starting up").
        const up = accepting(port)
          .then(() => answering(bin, port))
          .then(() => 'up' as const);
        if ((await Promise.race([exited, up])) === 'up') {
          child = started;
          return;
        }
        if (attempt === 20) throw new Error('PostgreSQL did not start again');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
  };
  await server.start();
  t.teardown(async () => {
    await server.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  return server;
}
