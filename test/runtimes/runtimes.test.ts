/**
 * @lib/cors/fetch in the runtimes it is for: a Deno server (Deno.serve), a Bun server
 * (Bun.serve) and a Cloudflare worker (built by wrangler, served by workerd), each installed
 * from the npm registry as a dev dependency, each serving test/runtimes/policy.mjs. Every answer
 * over HTTP on 127.0.0.1 must be the one the adapter gives in Node for the same request.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import t from 'tap';

import { REPOSITORY } from '../helpers/packing.js';
import { freePort } from '../helpers/ports.js';

/** Deno, Bun, workerd and wrangler, installed by scripts/runtimes.js before tap starts. */
const BIN = join(REPOSITORY, 'scripts/runtimes/node_modules/.bin');
const SOURCES = join(REPOSITORY, 'test/runtimes');

interface Seen {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The requests every runtime answers: allowed, refused and credential-less CORS, plain OPTIONS, an uncovered path. */
const REQUESTS: [string, string, string, Record<string, string>][] = [
  [
    'preflight, allowed',
    'OPTIONS',
    '/users/7',
    { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type' },
  ],
  ['preflight, refused origin', 'OPTIONS', '/users/7', { Origin: 'https://evil.example.com', 'Access-Control-Request-Method': 'PUT' }],
  ['actual request, allowed', 'GET', '/users/7?full=1', { Origin: 'https://admin.example.com' }],
  ['actual request, refused origin', 'PUT', '/users/7', { Origin: 'https://evil.example.com' }],
  ['no Origin', 'GET', '/users/7', {}],
  ['plain OPTIONS', 'OPTIONS', '/login', {}],
  ['a path not covered', 'GET', '/elsewhere', { Origin: 'https://app.example.com' }],
];

function seen(response: Response, body: string): Seen {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers)
    if (name.startsWith('access-control-') || name === 'vary' || name === 'allow' || name === 'x-request-id') headers[name] = value;
  return { status: response.status, headers, body };
}

/** Starts `command` and resolves once it listens on `port` (or prints "listening <port>"). */
async function start(command: string, args: string[], port: number | undefined, cwd: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '', NO_COLOR: '1' } });
  let output = '';
  const listening = new Promise<number>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      const announced = /listening (\d+)/.exec(output);
      if (announced !== null) resolve(Number(announced[1]));
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code}:\n${output}`)));
  });
  // Only awaited for runtimes that announce their port; an exit after the test is no failure.
  listening.catch(() => {});
  if (port !== undefined) {
    // workerd announces nothing: poll its port.
    for (;;) {
      try {
        await fetch(`http://127.0.0.1:${port}/`);
        return { child, port };
      } catch {
        if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
  return { child, port: await listening };
}

const runtimes: [string, () => Promise<{ child: ChildProcess; port: number; cleanup?: () => void }>][] = [
  [
    'Deno',
    () =>
      start(
        join(BIN, 'deno'),
        ['run', '--allow-net', '--allow-read', '--allow-env', '--node-modules-dir=manual', join(SOURCES, 'deno-server.mjs'), '0'],
        undefined,
        REPOSITORY,
      ),
  ],
  ['Bun', () => start(join(BIN, 'bun'), [join(SOURCES, 'bun-server.mjs')], undefined, REPOSITORY)],
  [
    'workerd',
    async () => {
      // Built as a worker is deployed: by wrangler, from a wrangler.toml with nothing but what
      // every worker has (no compatibility flag: docs/entry-points.md says none is needed), and
      // the output it would upload served by workerd as it is.
      const dir = mkdtempSync(join(tmpdir(), 'cors-workerd-'));
      writeFileSync(
        join(dir, 'wrangler.toml'),
        `name = "cors-runtime-test"\nmain = ${JSON.stringify(join(SOURCES, 'worker.mjs'))}\ncompatibility_date = "2026-11-01"\n`,
      );
      const build = spawn(join(BIN, 'wrangler'), ['deploy', '--dry-run', '--outdir', join(dir, 'dist')], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NODE_OPTIONS: '', NO_COLOR: '1', WRANGLER_SEND_METRICS: 'false' },
      });
      let output = '';
      build.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      build.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code] = await once(build, 'exit');
      if (code !== 0) throw new Error(`wrangler exited with ${code}:\n${output}`);
      built.push(readFileSync(join(dir, 'dist/worker.js'), 'utf8'));
      const port = await freePort();
      writeFileSync(
        join(dir, 'config.capnp'),
        `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "dist/worker.js") ],
  compatibilityDate = "2026-11-01",
);
`,
      );
      const started = await start(join(BIN, 'workerd'), ['serve', join(dir, 'config.capnp')], port, dir);
      return { ...started, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
];

/** The worker as wrangler built it, once built. */
const built: string[] = [];

const { handle } = (await import(pathToFileURL(join(SOURCES, 'policy.mjs')).href)) as { handle: (request: Request) => Promise<Response> };

for (const [name, launch] of runtimes) {
  t.test(`${name} serves the policy as Node does`, { timeout: 60_000 }, async (t) => {
    const { child, port, cleanup } = await launch();
    t.teardown(async () => {
      child.kill();
      if (child.exitCode === null) await once(child, 'exit');
      cleanup?.();
    });
    for (const [what, method, path, headers] of REQUESTS) {
      const over = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers });
      const inNode = await handle(new Request(`http://127.0.0.1${path}`, { method, headers }));
      t.same(seen(over, await over.text()), seen(inNode, await inNode.text()), `${name}: ${what}`);
    }
    const granted = await fetch(`http://127.0.0.1:${port}/users/7`, { headers: { Origin: 'https://admin.example.com' } });
    t.equal(granted.headers.get('access-control-allow-origin'), 'https://admin.example.com', `${name}: the grant itself`);
    t.equal(granted.headers.get('access-control-allow-credentials'), 'true');
    t.same(await granted.json(), { path: '/users/7', method: 'GET', decision: 'actual GET /users/:id https://admin.example.com allowed allowed' });
  });
}

t.test('the worker wrangler built carries none of the Public Suffix List (its policy has no sub-domain pattern)', (t) => {
  t.equal(built.length, 1, 'the worker was built');
  // Two rules deep in the list, nowhere else in the package or find-my-way.
  t.notOk(built[0]!.includes('0emm.com') || built[0]!.includes('allfinanz'));
  t.end();
});
