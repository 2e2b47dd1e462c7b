/**
 * `npm run bench -- --next` (issue 47): `@lib/cors/next` served by `next start`, against the
 * headers Next.js's documentation writes by hand in a route handler (with an `OPTIONS` export),
 * and against `nextjs-cors` on a Pages Router API route, for one allowed origin, on the four
 * scenarios. One build (bench/next-app), one server: each variant is a route of it, measured in
 * turn, round after round, so that every figure shares the machine's state with its rival's.
 * Server CPU per request (the whole process tree of `next start`, from /proc) is the figure:
 * instructions under callgrind would take the Next server hours. With the size of an Edge route's
 * bundle, with the package and with the hand-written headers. About 4 minutes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

import autocannon from 'autocannon';

import { freePort } from '../test/helpers/ports.js';
import { machineLine, median, writeResultsSection } from './report.js';

const APP = fileURLToPath(new URL('../../bench/next-app', import.meta.url));
const NEXT = fileURLToPath(new URL('../../node_modules/next/dist/bin/next', import.meta.url));
const ORIGIN = 'https://app.example.com';
const ROUNDS = 9;
const SECONDS = 2;
const CONNECTIONS = 10;
const TICK_MICROS = 1e6 / 100;

const SCENARIOS = [
  {
    name: 'preflight',
    method: 'OPTIONS',
    headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'content-type' },
  },
  { name: 'GET with Origin', method: 'GET', headers: { origin: ORIGIN } },
  { name: 'plain OPTIONS', method: 'OPTIONS', headers: {} },
  { name: 'GET without Origin', method: 'GET', headers: {} },
] as const;

/** Each pair: ours, and what it is measured against, on routes of the same router. */
const PAIRS = [
  { name: 'route handler', ours: '/api/ours', theirs: '/api/hand', against: "Next's documented hand-written headers" },
  { name: 'Pages API route', ours: '/api/pages-ours', theirs: '/api/pages-nextjs-cors', against: 'nextjs-cors' },
] as const;

/** The CPU time of `pid` and every process below it, in µs (clock ticks of /proc). */
function treeCpuMicros(pid: number): number {
  const stats = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
        return [{ pid: Number(entry), parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) }];
      } catch {
        return [];
      }
    });
  const tree = new Set([pid]);
  for (let size = 0; size !== tree.size; ) {
    size = tree.size;
    for (const stat of stats) if (tree.has(stat.parent)) tree.add(stat.pid);
  }
  return stats.filter((stat) => tree.has(stat.pid)).reduce((sum, stat) => sum + stat.ticks, 0) * TICK_MICROS;
}

export async function measureNext(): Promise<void> {
  const started = Date.now();
  const build = spawnSync(process.execPath, [NEXT, 'build'], { cwd: APP, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' }, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
  const edge = { ours: edgeBundle('/api/edge-ours/route'), hand: edgeBundle('/api/edge-hand/route') };
  const port = await freePort();
  const server = spawn(process.execPath, [NEXT, 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: APP,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    for (let tries = 0; ; tries++) {
      try {
        await fetch(`${url}/api/ours`);
        break;
      } catch (error) {
        if (tries > 300) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const routes = PAIRS.flatMap((pair) => [pair.ours, pair.theirs]);
    const cpu: Record<string, number[]> = {};
    const run = async (path: string, scenario: (typeof SCENARIOS)[number], seconds: number) => {
      const before = treeCpuMicros(server.pid!);
      const result = await autocannon({ url: url + path, method: scenario.method, headers: scenario.headers, connections: CONNECTIONS, duration: seconds });
      const after = treeCpuMicros(server.pid!);
      if (result.errors > 0 || result.non2xx > 0) throw new Error(`${path} ${scenario.name}: ${result.errors} errors, ${result.non2xx} answers not 2xx`);
      return (after - before) / result.requests.total;
    };
    // Warm-up: every route and scenario once, so that Next has compiled and cached each route.
    for (const path of routes) for (const scenario of SCENARIOS) await run(path, scenario, 1);
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of SCENARIOS) {
        // The order of the pair alternates from round to round.
        for (const path of round % 2 === 0 ? routes : [...routes].reverse()) {
          const key = `${path} ${scenario.name}`;
          cpu[key] = [...(cpu[key] ?? []), await run(path, scenario, SECONDS)];
        }
      }
    }
    const rows = PAIRS.flatMap((pair) =>
      SCENARIOS.map((scenario) => {
        const ours = median(cpu[`${pair.ours} ${scenario.name}`]!);
        const theirs = median(cpu[`${pair.theirs} ${scenario.name}`]!);
        return `| ${pair.name} | ${scenario.name} | ${ours.toFixed(0)} | ${theirs.toFixed(0)} (${pair.against}) | ${(((ours - theirs) / theirs) * 100).toFixed(1)}% |`;
      }),
    );
    const { version } = JSON.parse(readFileSync(fileURLToPath(new URL('../../node_modules/next/package.json', import.meta.url)), 'utf8')) as {
      version: string;
    };
    writeResultsSection(
      'next',
      `## Next.js: server CPU per request under \`next start\`

${machineLine()}, next ${version}; each figure the median of ${ROUNDS} rounds of ${SECONDS} s (${CONNECTIONS} connections), the two of a pair measured in turn on one server, the whole \`next start\` process tree's CPU time from /proc (10 ms ticks) over the requests served; ${Math.round((Date.now() - started) / 1000)} s. \`npm run bench -- --next\`.

| route | scenario | ours, µs | theirs, µs | ours against theirs |
|---|---|---|---|---|
${rows.join('\n')}

The Edge runtime route as \`next build\` bundles it (every file its entry in
\`.next/server/middleware-manifest.json\` lists), the same route with the package and with the
hand-written headers: ${kb(edge.ours.bytes)} against ${kb(edge.hand.bytes)} (+${kb(edge.ours.bytes - edge.hand.bytes)}); gzipped
${kb(edge.ours.gzipped)} against ${kb(edge.hand.gzipped)} (+${kb(edge.ours.gzipped - edge.hand.gzipped)}).`,
    );
    console.log(rows.join('\n'));
  } finally {
    server.kill('SIGTERM');
  }
}

/** The files of an Edge function of the build, as its manifest lists them: bytes, and gzipped. */
function edgeBundle(name: string): { bytes: number; gzipped: number } {
  const manifest = JSON.parse(readFileSync(`${APP}/.next/server/middleware-manifest.json`, 'utf8')) as { functions: Record<string, { files: string[] }> };
  const files = manifest.functions[name]?.files;
  if (files === undefined) throw new Error(`no Edge function ${name} in the build`);
  const contents = files.map((file) => readFileSync(`${APP}/.next/${file}`));
  return { bytes: contents.reduce((sum, data) => sum + data.length, 0), gzipped: contents.reduce((sum, data) => sum + gzipSync(data).length, 0) };
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
