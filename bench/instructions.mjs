// `npm run build && node bench/instructions.mjs`: instructions per request of each server, counted by
// valgrind's callgrind (repeatable within a few percent, unlike time on a shared machine). Each
// server runs under callgrind twice, serving N1 and N2 sequential keep-alive requests of a scenario;
// (I(N2) - I(N1)) / (N2 - N1) leaves out start-up and warm-up. Needs valgrind (apt-get install valgrind).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const servers = {
  'ceiling (bare node:http)': `${root}build/bench/servers/ceiling.js`,
  '@lib/cors standalone': `${root}build/bench/servers/standalone.js`,
  '@lib/rest + CorsModule': `${root}build/bench/servers/module.js`,
  'fastify + @fastify/cors': `${root}bench/peers/fastify.mjs`,
  'express + cors': `${root}bench/peers/express.mjs`,
  'hono + hono/cors': `${root}bench/peers/hono.mjs`,
};
const origin = 'https://app.example.com';
const scenarios = {
  preflight: { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type,x-request-id' } },
  'GET with Origin': { method: 'GET', headers: { origin } },
};
const [N1, N2] = [1000, 3000];

// The server is started through this one-line loader, so that its `announce()` prints the port.
const loader = `process.send = (m) => { if (m.port) console.log('PORT ' + m.port); }; await import(process.argv[1]);`;

async function instructions(entry, scenario, count) {
  const dir = mkdtempSync(join(tmpdir(), 'callgrind-'));
  const child = spawn('valgrind', ['--tool=callgrind', `--callgrind-out-file=${dir}/out`, process.execPath, '--input-type=module', '-e', loader, entry], { stdio: ['ignore', 'pipe', 'ignore'] });
  let port;
  for await (const chunk of child.stdout) {
    port = Number(/PORT (\d+)/.exec(String(chunk))?.[1]);
    if (port) break;
  }
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < count; i++) {
    await new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/users/42', ...scenario, agent }, (res) => res.resume().on('end', resolve));
      req.on('error', reject).end();
    });
  }
  agent.destroy();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.on('exit', resolve));
  const out = readFileSync(join(dir, readdirSync(dir)[0]), 'utf8');
  rmSync(dir, { recursive: true, force: true });
  return Number(/summary: (\d+)/.exec(out)[1]);
}

console.log(`| scenario | server | instructions per request | vs ceiling |\n|---|---|---:|---:|`);
for (const [scenarioName, scenario] of Object.entries(scenarios)) {
  let ceiling;
  for (const [name, entry] of Object.entries(servers)) {
    const perRequest = ((await instructions(entry, scenario, N2)) - (await instructions(entry, scenario, N1))) / (N2 - N1);
    ceiling ??= perRequest;
    console.log(`| ${scenarioName} | ${name} | ${Math.round(perRequest).toLocaleString('en')} | ${((ceiling / perRequest) * 100).toFixed(1)}% |`);
  }
}
