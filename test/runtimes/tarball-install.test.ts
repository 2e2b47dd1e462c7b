/**
 * The README's install commands, run as written in fresh folders outside the repository: the pack
 * line (which must create its destination), then @lib/cors installed from its tarball in Bun and
 * in Deno, each running a server that answers a CORS request through @lib/cors/fetch.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import t from 'tap';

import { REPOSITORY } from '../helpers/packing.js';

const README = readFileSync(join(REPOSITORY, 'README.md'), 'utf8');
const BIN = join(REPOSITORY, 'node_modules/.bin');

/** Runs a shell command line as a user would type it, with the repository's deno and bun on PATH, without tap's NODE_OPTIONS. */
function sh(command: string, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${BIN}:${process.env.PATH}`, NO_COLOR: '1' };
  delete env.NODE_OPTIONS;
  delete env.FORCE_COLOR;
  return new Promise((resolve) => {
    execFile('sh', ['-c', command], { cwd, env, timeout: 170_000 }, (error, stdout, stderr) => {
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

const root = mkdtempSync(join(tmpdir(), 'cors-readme-install-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
// Laid out as the README assumes: the clone, and beside it ../tarballs and the apps.
const tarballs = join(root, 'tarballs');

t.test("the README's pack line creates its destination folder and fills it", { timeout: 180_000 }, async (t) => {
  const line = README.split('\n').find((text) => text.includes('npm pack '));
  t.equal(line, 'mkdir -p ../tarballs && npm pack -w src/core -w src/rest -w src/cors --pack-destination ../tarballs');
  t.notOk(existsSync(tarballs));
  // Run from the repository with ../tarballs pointing into the scratch folder.
  const packed = await sh(line!.replaceAll('../tarballs', tarballs), REPOSITORY);
  t.equal(packed.code, 0, packed.stderr);
  for (const name of ['lib-core-0.1.0.tgz', 'lib-rest-0.1.0.tgz', 'lib-cors-0.1.0.tgz']) t.ok(existsSync(join(tarballs, name)), name);
});

for (const runtime of ['bun', 'deno'] as const) {
  t.test(`${runtime}: the README's install line, then its run line`, { timeout: 180_000 }, async (t) => {
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
