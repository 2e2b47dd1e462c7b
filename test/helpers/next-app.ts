/**
 * The Next.js application of test/next/app, built by `node scripts/next-app.js` before tap starts
 * (npm test's pretest), served here by `next start`, as a user deploys it. scripts/framework-versions.js
 * names a copy of it with a next version and @lib/cors tarball of its own in LIB_CORS_NEXT_APP.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { REPOSITORY } from './packing.js';
import { type Answer, type RequestHeaders } from './http.js';
import { freePort } from './ports.js';

export const NEXT_APP = process.env.LIB_CORS_NEXT_APP ?? join(REPOSITORY, 'test/next/app');
const NEXT_BIN = [join(NEXT_APP, 'node_modules/next/dist/bin/next'), join(REPOSITORY, 'node_modules/next/dist/bin/next')].find((file) => existsSync(file))!;

export interface NextServer {
  readonly origin: string;
  send(method: string, path: string, headers?: RequestHeaders, body?: string): Promise<Answer>;
  /** What the server printed so far. */
  output(): string;
  close(): Promise<void>;
}

/** `next start` on a free port of 127.0.0.1, with `env` added; resolves once it answers. */
export async function startNext(env: Record<string, string>): Promise<NextServer> {
  if (!existsSync(join(NEXT_APP, '.next/BUILD_ID'))) {
    throw new Error(`${NEXT_APP} is not built: run node scripts/next-app.js (npm test does it first)`);
  }
  const port = await freePort();
  const child = spawn(process.execPath, [NEXT_BIN, 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: NEXT_APP,
    env: { ...process.env, ...env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const origin = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  // Ready when it answers; a bound for a broken start, not a delay anything waits out.
  for (const started = Date.now(); ; ) {
    if (child.exitCode !== null) throw new Error(`next start exited ${child.exitCode}:\n${output}`);
    try {
      await fetch(`${origin}/file.txt`);
      break;
    } catch {
      if (Date.now() - started > 60_000) throw new Error(`next start did not answer within 60 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    origin,
    send: async (method, path, headers = {}, body) => {
      const response = await fetch(origin + path, { method, headers: headers as Record<string, string>, body, redirect: 'manual' });
      return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
    },
    output: () => output,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
