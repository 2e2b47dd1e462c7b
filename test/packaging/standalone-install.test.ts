/**
 * `@lib/cors` installed from its own tarball into an app outside the repository, with nothing of
 * the host: `@lib/cors/standalone` serves a CORS answer, and `@lib/core`, `@lib/rest` and
 * `reflect-metadata` are not installed (they are optional peers, for CorsModule only).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

// Compiled into build/test/packaging/: the repository is three levels up.
const repository = fileURLToPath(new URL('../../../', import.meta.url));

t.test('the standalone engine installs and runs from its tarball alone', { timeout: 180_000 }, async (t) => {
  const app = mkdtempSync(join(tmpdir(), 'cors-standalone-app-'));
  t.teardown(() => rmSync(app, { recursive: true, force: true }));
  // npm pack of the workspace as built by `npm run build` (pretest).
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', app, '-w', 'src/cors'], { cwd: repository, encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1)!;
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'standalone-app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(app, tarball)], { cwd: app, stdio: 'pipe' });

  const installed = readdirSync(join(app, 'node_modules'));
  t.ok(installed.includes('@lib'), 'installed');
  t.same(readdirSync(join(app, 'node_modules/@lib')), ['cors'], 'nothing of the host');
  t.notOk(existsSync(join(app, 'node_modules/reflect-metadata')), 'no reflect-metadata');

  writeFileSync(
    join(app, 'server.js'),
    `import http from 'node:http';
import { createCors } from '@lib/cors/standalone';
const cors = createCors({ origin: ['https://app.example.com'], maxAge: 600 }).route('PUT', '/users/:id');
const server = http.createServer((req, res) => cors.handle(req, res, () => res.end('app')));
server.listen(0, '127.0.0.1', async () => {
  const { port } = server.address();
  const answer = await fetch('http://127.0.0.1:' + port + '/users/7', { method: 'OPTIONS', headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'PUT' } });
  console.log(JSON.stringify({ status: answer.status, origin: answer.headers.get('access-control-allow-origin'), methods: answer.headers.get('access-control-allow-methods') }));
  server.close();
});
`,
  );
  const output = execFileSync(process.execPath, ['server.js'], { cwd: app, encoding: 'utf8' });
  t.same(JSON.parse(output), { status: 204, origin: 'https://app.example.com', methods: 'PUT, OPTIONS' });

  // The module entry needs the host, and says so by failing to resolve it, not by half-working.
  const moduleEntry = JSON.parse(
    execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "import('@lib/cors').then(() => console.log('\"loaded\"'), (e) => console.log(JSON.stringify(e.code)))"],
      { cwd: app, encoding: 'utf8' },
    ),
  );
  t.equal(moduleEntry, 'ERR_MODULE_NOT_FOUND', '@lib/cors (CorsModule) needs @lib/core and @lib/rest installed beside it');
});
