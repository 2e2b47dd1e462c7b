/**
 * The timed modes' runtime step: hono with hono/cors against hono with @lib/cors/fetch, served
 * by Deno (`Deno.serve`) and by Bun (`Bun.serve`), the runtimes the fetch adapter is for. Both
 * come from the registry as the library's dev dependencies (test/runtimes uses them too).
 *
 * The servers cannot answer node's IPC probes, so a server's CPU time is read from
 * /proc/<pid>/stat (user + system, every thread of the process), in clock ticks of 10 ms: a
 * round of 0.5 s keeping one core busy is about 50 ticks, so the quick mode's figures are good to
 * a few percent, the full mode's (10 s rounds) to a fraction of one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { verdict } from './checks.js';
import { measure } from './load.js';
import { median } from './report.js';
import { benchDir, scenarios } from './scenarios.js';

/** Deno and Bun, installed by scripts/runtimes.js (bench/run.ts runs it first). */
const BIN = new URL('../scripts/runtimes/node_modules/.bin/', benchDir);
const SERVER = fileURLToPath(new URL('peers/hono-runtime.mjs', benchDir));
/** Linux's USER_HZ, which /proc reports CPU time in. */
const TICKS_PER_SECOND = 100;

interface Runtime {
  name: string;
  command: string[];
}

const RUNTIMES: Runtime[] = [
  {
    name: 'Deno',
    command: [fileURLToPath(new URL('deno', BIN)), 'run', '--allow-net', '--allow-read', '--allow-env', '--node-modules-dir=manual', SERVER],
  },
  { name: 'Bun', command: [fileURLToPath(new URL('bun', BIN)), SERVER] },
];

/** The two servers of each runtime: hono's own cors, then our adapter (HONO_CORS, see peers/hono-app.mjs). */
const CORS_KINDS = ['hono', 'lib'];

interface RuntimeServer {
  child: ChildProcess;
  url: string;
}

async function startRuntime(runtime: Runtime, corsKind: string): Promise<RuntimeServer> {
  const [command, ...args] = runtime.command as [string, ...string[]];
  const child = spawn(command, args, { cwd: fileURLToPath(benchDir), stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, HONO_CORS: corsKind } });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const announced = /listening (\d+)/.exec(output);
      if (announced !== null) resolve(Number(announced[1]));
    });
    child.once('exit', (code) => reject(new Error(`${runtime.name} exited (${code}) before listening: ${output}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** User plus system CPU time of the whole process so far, in µs. */
function cpuMicros(child: ChildProcess): number {
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime] = [Number(fields[11]), Number(fields[12])];
  return ((utime + stime) * 1e6) / TICKS_PER_SECOND;
}

/**
 * Every scenario against both servers of each runtime, checked first, in rounds whose order
 * alternates. Returns the report's lines.
 */
export async function timeRuntimes(rounds: number, seconds: number): Promise<string[]> {
  const lines = [
    '### The fetch adapter in hono, on Deno and Bun',
    '',
    `The hono application of the table above (peers/hono-app.mjs) served by \`Deno.serve\` and by \`Bun.serve\` in place of @hono/node-server; ${rounds} rounds of ${seconds} s, medians. The servers' CPU time is read from /proc in 10 ms ticks, so small differences are within its resolution.`,
    '',
    '| runtime | scenario | hono/cors requests/s | adapter requests/s | hono/cors CPU µs/request | adapter CPU µs/request | adapter vs hono/cors, CPU |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const runtime of RUNTIMES) {
    const running: RuntimeServer[] = [];
    for (const kind of CORS_KINDS) running.push(await startRuntime(runtime, kind));
    try {
      const samples = new Map<string, { rps: number[]; cpu: number[] }>();
      const wrong = new Map<string, string>();
      for (const scenario of scenarios) {
        for (const [index, server] of running.entries()) {
          const problem = await verdict(server.url, scenario);
          if (problem !== undefined) wrong.set(`${scenario.name}|${index}`, problem);
          else await measure(server.url, scenario, 0.3, () => cpuMicros(server.child)); // warm-up
        }
      }
      for (let round = 0; round < rounds; round++) {
        for (const scenario of scenarios) {
          for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
            const key = `${scenario.name}|${index}`;
            if (wrong.has(key)) continue;
            const { rps, cpu } = await measure(running[index]!.url, scenario, seconds, () => cpuMicros(running[index]!.child));
            const sample = samples.get(key) ?? { rps: [], cpu: [] };
            sample.rps.push(rps);
            sample.cpu.push(cpu);
            samples.set(key, sample);
          }
        }
      }
      for (const scenario of scenarios) {
        const [hono, adapter] = [0, 1].map((index) => samples.get(`${scenario.name}|${index}`));
        const problem = [0, 1].map((index) => wrong.get(`${scenario.name}|${index}`)).find((text) => text !== undefined);
        if (hono === undefined || adapter === undefined) {
          lines.push(`| ${runtime.name} | ${scenario.name} | not timed: answers wrongly (${problem}) | | | | |`);
          continue;
        }
        const [honoCpu, adapterCpu] = [median(hono.cpu), median(adapter.cpu)];
        const change = adapterCpu / honoCpu - 1;
        lines.push(
          `| ${runtime.name} | ${scenario.name} | ${Math.round(median(hono.rps)).toLocaleString('en')} | ${Math.round(median(adapter.rps)).toLocaleString('en')} | ${honoCpu.toFixed(1)} | ${adapterCpu.toFixed(1)} | ${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)}% |`,
        );
      }
    } finally {
      for (const { child } of running) child.kill();
    }
  }
  return lines;
}
