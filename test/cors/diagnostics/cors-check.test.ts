/**
 * `cors-check`, the command installed with @lib/cors, run as a process against our standalone
 * middleware and against a peer that gets credentials wrong (express + the cors package with
 * origin '*' and credentials: true, which answers '*' with Access-Control-Allow-Credentials).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { createCors } from '@lib/cors/standalone';

import { echoApp, serve } from '../../helpers/http.js';

const COMMAND = fileURLToPath(new URL('../../../../src/cors/dist/diagnostics/cors-check.js', import.meta.url));
/** The folder of the @lib/cors package, as it is packed. */
const PACKAGE = fileURLToPath(new URL('../../../../src/cors/', import.meta.url));

function corsCheck(...args: string[]): Promise<{ code: number; stdout: string; stderr: string; note: boolean }> {
  return run(COMMAND, ...args);
}

function run(command: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string; note: boolean }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [command, ...args], (error, stdout, stderr) => {
      // The Local Network Access note (every test server is on 127.0.0.1) is asserted on its own, below.
      const steps = stdout.replace(/^note: .*\n/, '');
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout: steps, stderr, note: stdout.startsWith('note: ') });
    });
  });
}

t.test('against our middleware: what a browser allows exits 0, what it refuses 1, with the step and the reason', async (t) => {
  const cors = createCors({ origin: ['https://app.test', 'https://b.test'], allowedHeaders: ['Content-Type'] })
    .route(['GET', 'PUT'], '/users/:id')
    .route('POST', '/login', { allowCredentials: true });
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);

  const simple = await corsCheck(`${server.origin}/users/7`, '--origin', 'https://app.test');
  t.equal(simple.code, 0);
  t.match(
    simple.stdout,
    /^request {3}GET http:\/\/127\.0\.0\.1:\d+\/users\/7 -> 200\n {2}access-control-allow-origin: https:\/\/app\.test\n {2}vary: Origin\n {2}verdict: allowed\n$/,
  );
  t.notMatch(simple.stdout, /preflight/, 'a simple GET is not preflighted');

  const put = await corsCheck(`${server.origin}/users/7`, '--origin', 'https://app.test', '--method', 'put', '--header', 'Content-Type: application/json');
  t.equal(put.code, 0);
  t.match(
    put.stdout,
    /^preflight OPTIONS \S+ for PUT -> 204\n(?:.*\n)*? {2}access-control-allow-methods: GET, HEAD, PUT, OPTIONS\n(?:.*\n)*? {2}verdict: allowed\nrequest {3}PUT .*-> 200\n(?:.*\n)* {2}verdict: allowed\n$/,
  );

  const header = await corsCheck(`${server.origin}/users/7`, '--origin', 'https://app.test', '--method', 'PUT', '--header', 'X-Other: 1');
  t.equal(header.code, 1);
  t.match(header.stdout, /verdict: refused \[header-not-allowed\]: x-other is not in Access-Control-Allow-Headers \(content-type\)/);
  t.notMatch(header.stdout, /^request/m, 'a refused preflight stops there, as in a browser');

  const stranger = await corsCheck(`${server.origin}/users/7`, '--origin', 'https://evil.test');
  t.equal(stranger.code, 1);
  t.match(stranger.stdout, /verdict: refused \[origin-not-allowed\]: the answer has no Access-Control-Allow-Origin/);

  const login = await corsCheck(`${server.origin}/login`, '--origin', 'https://b.test', '--method', 'POST', '--credentials');
  t.equal(login.code, 0, 'a credentialed request to a route with allowCredentials');
  const noCredentials = await corsCheck(`${server.origin}/users/7`, '--origin', 'https://app.test', '--credentials');
  t.equal(noCredentials.code, 1);
  t.match(noCredentials.stdout, /refused \[credentials-not-allowed\]/);

  // Each refused verdict is followed by the section of the package's docs/errors.md on its
  // reason, the one explain() names; an allowed one by nothing.
  for (const refused of [header, stranger, noCredentials]) {
    const [, code, page] = /verdict: refused \[([a-z-]+)\]: .*\n {2}docs: (.+)\n/.exec(refused.stdout) ?? [];
    t.equal(page, join(PACKAGE, `docs/errors.md#${code}`), `${code}: the shipped page, from the package's folder`);
    t.match(readFileSync(join(PACKAGE, 'docs/errors.md'), 'utf8'), new RegExp(`^### ${code}$`, 'm'), `${code}: a section of its own`);
  }
  t.notMatch(simple.stdout + put.stdout + login.stdout, /docs:/);
});

t.test('an echoed origin whose Vary a handler replaced is warned of, the verdict unchanged; one added to is not', async (t) => {
  const cors = createCors({ origin: ['https://app.test', 'https://b.test'] })
    .route('GET', '/replaced')
    .route('GET', '/added');
  const server = await serve((req, res) =>
    cors.handle(req, res, () => {
      if (req.url === '/replaced') res.setHeader('Vary', 'Accept');
      else res.setHeader('Vary', `${String(res.getHeader('Vary'))}, Accept`);
      res.end('ok');
    }),
  );
  t.teardown(server.close);
  const replaced = await corsCheck(`${server.origin}/replaced`, '--origin', 'https://app.test');
  t.equal(replaced.code, 0, 'the browser still reads it');
  t.match(replaced.stdout, /verdict: allowed\n {2}warning: the answer echoes the origin but its Vary does not name Origin.*Fix: .*res\.vary\('Accept'\)/);
  const added = await corsCheck(`${server.origin}/added`, '--origin', 'https://app.test');
  t.equal(added.code, 0);
  t.notMatch(added.stdout, /warning/);
});

t.test("against express + cors with origin '*' and credentials: true, --credentials is flagged", async (t) => {
  // Loaded by name: the peer is a dev dependency without type declarations.
  const expressName = 'express';
  const corsName = 'cors';
  const express = (await import(expressName)).default as () => ((req: IncomingMessage, res: ServerResponse) => void) & {
    use(handler: unknown): void;
    get(path: string, handler: unknown): void;
  };
  const cors = (await import(corsName)).default as (options: object) => unknown;
  const app = express();
  app.use(cors({ origin: '*', credentials: true }));
  app.get('/data', (_req: IncomingMessage, res: ServerResponse) => res.end('data'));
  const server = await serve(app);
  t.teardown(server.close);

  const anonymous = await corsCheck(`${server.origin}/data`, '--origin', 'https://app.test');
  t.equal(anonymous.code, 0, "'*' is fine without credentials");
  const credentialed = await corsCheck(`${server.origin}/data`, '--origin', 'https://app.test', '--credentials');
  t.equal(credentialed.code, 1);
  t.match(
    credentialed.stdout,
    /access-control-allow-origin: \*\n(?:.*\n)*? {2}verdict: refused \[wildcard-with-credentials\]: Access-Control-Allow-Origin is '\*', which a credentialed request never accepts/,
  );
});

t.test('usage and network errors exit 2; a public page reaching a local address is told about Local Network Access', async (t) => {
  const usage = await corsCheck('http://127.0.0.1:1/x');
  t.equal(usage.code, 2);
  t.match(usage.stderr, /--origin is missing.*\nusage: cors-check <url> --origin <origin>/);
  t.equal((await corsCheck('not a url', '--origin', 'https://a.test')).code, 2);
  t.equal((await corsCheck('http://127.0.0.1:1/x', '--origin', 'https://a.test', '--bogus')).code, 2);
  // A port just freed: nothing listens there.
  const probe = await serve(() => {});
  const closedUrl = `${probe.origin}/x`;
  await probe.close();
  const closed = await corsCheck(closedUrl, '--origin', 'https://a.test');
  t.equal(closed.code, 2);
  t.ok(closed.note, 'a public page reaching 127.0.0.1');
  t.notOk((await corsCheck('http://127.0.0.1:1/x', '--origin', 'http://localhost:5173')).note, 'a local page reaching a local address');
  t.match(closed.stderr, /^cors-check: GET http:\/\/127\.0\.0\.1:\d+\/x failed: .*ECONNREFUSED/);
});

t.test('the Local Network Access note is given once, for localhost as for 127.0.0.1, preflight or not', async (t) => {
  const cors = createCors({ origin: ['https://app.test'] }).route(['GET', 'PUT'], '/users/:id');
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  const port = new URL(server.origin).port;
  for (const host of ['localhost', '127.0.0.1']) {
    for (const method of ['GET', 'PUT']) {
      const checked = await corsCheck(`http://${host}:${port}/users/7`, '--origin', 'https://app.test', '--method', method);
      t.equal(checked.code, 0, `${host} ${method}`);
      t.ok(checked.note, `${host} ${method}: the note`);
      t.notMatch(checked.stdout, /note:|Local Network/, `${host} ${method}: once`);
    }
  }
});

t.test('--help and -h print the usage and what each option does, and exit 0, whatever else is given', async (t) => {
  for (const args of [['--help'], ['-h'], ['http://127.0.0.1:1/x', '--bogus', '--help'], ['-h', '--version']]) {
    const help = await corsCheck(...args);
    t.equal(help.code, 0, args.join(' '));
    t.equal(help.stderr, '');
    t.match(help.stdout, /^usage: cors-check <url> --origin <origin> \[--method M\] \[--header 'Name: value'\]\.\.\. \[--credentials\]\n\n/);
    for (const option of ['--origin <origin>', '--method <method>', "--header 'Name: value'", '--credentials', '-h, --help', '--version']) {
      t.match(help.stdout, `\n  ${option} `, option);
    }
    t.match(help.stdout, /Exit status: 0 when the browser lets the page read the answer, 1 when it does not, 2 on a usage\nor network error\.\n$/);
  }
  // As an option's value it is that value: a header named so, refused as no header.
  const value = await corsCheck('http://127.0.0.1:1/x', '--origin', 'https://a.test', '--header', '--help');
  t.equal(value.code, 2);
  t.match(value.stderr, /--header takes 'Name: value', not "--help"\n.*\n\(cors-check --help for more\)\n$/);
});

t.test('--version prints the version of the package it is installed from, and exits 0', async (t) => {
  const own = JSON.parse(readFileSync(new URL('../../../../src/cors/package.json', import.meta.url), 'utf8')) as { version: string; type: string };
  const version = await corsCheck('--version');
  t.same(version, { code: 0, stdout: `${own.version}\n`, stderr: '', note: false });

  // Laid out as npm installs the tarball: node_modules/@lib/cors/{package.json,dist/}, and the bin
  // linked from node_modules/.bin. Another version there proves it is read, not built in.
  const project = mkdtempSync(join(tmpdir(), 'cors-check-installed-'));
  t.teardown(() => rmSync(project, { recursive: true, force: true }));
  const installed = join(project, 'node_modules', '@lib', 'cors');
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  cpSync(fileURLToPath(new URL('../../../../src/cors/dist', import.meta.url)), join(installed, 'dist'), { recursive: true });
  writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: '@lib/cors', version: '9.8.7-installed', type: own.type }));
  symlinkSync('../@lib/cors/dist/diagnostics/cors-check.js', join(project, 'node_modules', '.bin', 'cors-check'));
  t.same(await run(join(project, 'node_modules', '.bin', 'cors-check'), '--version'), { code: 0, stdout: '9.8.7-installed\n', stderr: '', note: false });
});
