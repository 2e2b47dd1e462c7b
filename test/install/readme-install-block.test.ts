/**
 * The README's install section, run as written in a fresh folder outside the repository: the
 * first block whole (clone, install, build, pack into a folder that does not exist yet, then the
 * two installs into an app), then @lib/cors installed from that tarball in Bun and in Deno, each
 * running a server that answers a CORS request through @lib/cors/fetch.
 *
 * The clone is of the repository's committed HEAD, which is what CI tests (a clean clone of main).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import t from 'tap';

import { REPOSITORY } from '../helpers/packing.js';

const README = readFileSync(join(REPOSITORY, 'README.md'), 'utf8');
/** Deno and Bun, installed by scripts/runtimes.js before tap starts. */
const BIN = join(REPOSITORY, 'scripts/runtimes/node_modules/.bin');

/** Runs a shell command line as a user would type it, with the repository's deno and bun on PATH, without tap's NODE_OPTIONS. */
function sh(command: string, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  // prefer-offline: the packages are in npm's cache from the repository's own install, so npm need
  // not ask the registry whether each of about 900 is still current (about 16 s of the block's
  // install here). The commands are the README's as written.
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${BIN}:${process.env.PATH}`, NO_COLOR: '1', npm_config_prefer_offline: 'true' };
  delete env.NODE_OPTIONS;
  delete env.FORCE_COLOR;
  return new Promise((resolve) => {
    // Through env -u: tap's process-info hook puts NODE_OPTIONS back into every child's environment.
    execFile('env', ['-u', 'NODE_OPTIONS', 'sh', '-c', command], { cwd, env }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

/** A server that answers one CORS request to itself and prints what it got. */
const SERVER = {
  bun: `import { createCors } from '@lib/cors/fetch';

const cors = createCors({ origin: ['https://app.example.com'] }).route('GET', '/hello');
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => cors.handle(request, () => new Response('hello')) });
const answer = await fetch(\`http://127.0.0.1:\${server.port}/hello\`, { headers: { Origin: 'https://app.example.com' } });
console.log(\`\${answer.status} \${answer.headers.get('access-control-allow-origin')} \${await answer.text()}\`);
server.stop();
`,
  deno: `import { createCors } from '@lib/cors/fetch';

const cors = createCors({ origin: ['https://app.example.com'] }).route('GET', '/hello');
const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen() {} }, (request) => cors.handle(request, () => new Response('hello')));
const answer = await fetch(\`http://127.0.0.1:\${server.addr.port}/hello\`, { headers: { Origin: 'https://app.example.com' } });
console.log(\`\${answer.status} \${answer.headers.get('access-control-allow-origin')} \${await answer.text()}\`);
await server.shutdown();
`,
};

// Clone, install (about 480 MB of devDependencies) and build, then two runtimes. About a minute and
// a half on a quiet machine; 5 minutes when helpers' benchmarks share its 2 cores, which an earlier
// limit of 290 s for the block failed. The limits below only stop a hung install.
t.setTimeout(1_800_000);

const root = mkdtempSync(join(tmpdir(), 'cors-readme-install-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
// Laid out as the README assumes: the clone, and beside it ../tarballs and the apps.
const tarballs = join(root, 'tarballs');

/** The shell blocks of the README's "## Install" section, in order. */
function installBlocks(): string[] {
  const section = /^## Install\n([\s\S]*?)^## /m.exec(README)?.[1] ?? '';
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
}

t.test("the README's first install block, run whole: clone, build, pack, then both installs into an app", { timeout: 1_200_000 }, async (t) => {
  const block = installBlocks()[0];
  if (block === undefined) return t.fail('no sh block under "## Install" in README.md');
  t.match(block, /^git clone <this repository> lib-cors && cd lib-cors\n/, 'it starts with the clone');
  t.match(block, /^npm run pack -- \.\.\/tarballs$/m, 'the pack line (scripts/pack.js, which creates its destination)');
  // The user's app exists before the block runs (it says `cd ../my-app`); the tarballs folder does not.
  mkdirSync(join(root, 'my-app'));
  writeFileSync(join(root, 'my-app', 'package.json'), JSON.stringify({ name: 'my-app', private: true }));
  t.notOk(existsSync(tarballs));
  const ran = await sh(`set -e\n${block.replace('<this repository>', REPOSITORY)}`, root);
  t.equal(ran.code, 0, ran.stderr);
  for (const name of ['lib-core-0.1.0.tgz', 'lib-rest-0.1.0.tgz', 'lib-cors-0.1.0.tgz']) t.ok(existsSync(join(tarballs, name)), name);
  const app = JSON.parse(readFileSync(join(root, 'my-app', 'package.json'), 'utf8'));
  for (const name of ['@lib/core', '@lib/rest', '@lib/cors']) t.match(app.dependencies?.[name], /tarballs\/lib-\w+-0\.1\.0\.tgz$/, name);
  // What was built from the clone loads, in the app, from CommonJS.
  const loaded = await sh(`node -e "console.log(typeof require('@lib/cors/standalone').createCors)"`, join(root, 'my-app'));
  t.equal(loaded.stdout, 'function\n', loaded.stderr);
});

for (const runtime of ['bun', 'deno'] as const) {
  t.test(`${runtime}: the README's install line, then its run line`, { timeout: 300_000 }, async (t) => {
    const documented = new RegExp(`^cd \\.\\./my-${runtime}-app && (.+?) +# then: (.+)$`, 'm').exec(README);
    if (documented === null) return t.fail(`no "cd ../my-${runtime}-app && ... # then: ..." line in README.md`);
    const [, install, run] = documented;
    const app = join(root, `my-${runtime}-app`);
    mkdirSync(app);
    const installed = await sh(install!, app);
    t.equal(installed.code, 0, `${install}: ${installed.stderr}`);
    t.match(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')), { dependencies: { '@lib/cors': /lib-cors-0\.1\.0\.tgz$/ } });
    writeFileSync(join(app, 'server.ts'), SERVER[runtime]);
    const ran = await sh(run!, app);
    t.equal(ran.code, 0, `${run}: ${ran.stderr}`);
    t.equal(ran.stdout, '200 https://app.example.com hello\n');
  });
}
