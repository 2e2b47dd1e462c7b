/**
 * `@lib/cors` installed from its own tarball into an app outside the repository, with nothing of
 * the host: `@lib/cors/standalone` serves a CORS answer, and `@lib/core`, `@lib/rest` and
 * `reflect-metadata` are not installed (they are optional peers, for CorsModule only).
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import t from 'tap';

import { appWithTarballs, REPOSITORY } from '../helpers/packing.js';

t.test('the standalone engine installs and runs from its tarball alone', { timeout: 180_000 }, async (t) => {
  const scratch = appWithTarballs('cors-standalone-app', ['cors']);
  t.teardown(scratch.remove);
  const app = scratch.dir;
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
  const output = scratch.run(process.execPath, ['server.js']);
  t.same(JSON.parse(output), { status: 204, origin: 'https://app.example.com', methods: 'PUT, OPTIONS' });

  // The declarations ship bundled (scripts/pack.js, rollup-plugin-dts): each entry's types check
  // from import and from require(), strict and with skipLibCheck off, with none of the optional
  // peers installed, and they are the real types (the @ts-expect-error lines fail under `any`).
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [join(REPOSITORY, 'node_modules/@types')],
      },
      files: ['types.mts', 'types.cts'],
    }),
  );
  const usesEveryEntry = (from: (entry: string) => string) => `${from('standalone')}
${from('fetch')}
${from('express')}
${from('koa')}
${from('hono')}
${from('next')}
const options: standalone.CorsOptions = { origin: ['https://app.example.com'], allowCredentials: true };
const engine = standalone.createCors(options).route('GET', '/users/:id');
engine.setDebug(false);
const problem: standalone.CorsOptionsError | undefined = undefined;
const answer: Promise<Response> = fetch.createCors({ origin: ['https://app.example.com'] }).route('GET', '/').handle(new Request('https://api.example.com/'), () => new Response('app'));
const route = next.createCors({ origin: ['https://app.example.com'] }).route({ GET: async () => new Response('ok') });
void [problem, answer, express.createCors, koa.createCors, hono.createCors, route.GET, route.OPTIONS];
// @ts-expect-error: origin is not a number
standalone.createCors({ origin: 42 });
// @ts-expect-error: no such option
fetch.createCors({ origins: ['https://app.example.com'] });
`;
  writeFileSync(
    join(app, 'types.mts'),
    usesEveryEntry((entry) => `import * as ${entry} from '@lib/cors/${entry}';`),
  );
  writeFileSync(
    join(app, 'types.cts'),
    usesEveryEntry((entry) => `import ${entry} = require('@lib/cors/${entry}');`),
  );
  t.doesNotThrow(
    () => scratch.run(process.execPath, [join(REPOSITORY, 'node_modules/typescript/bin/tsc'), '-p', '.']),
    'every entry but fastify (whose users have fastify) type-checks from import and require()',
  );

  // A small app in each TypeScript resolution mode people run (issue 46): node10 (NestJS 10's
  // default, which reads no exports map; TypeScript 7 has dropped it, so TypeScript 5, as those
  // apps have, with Nest's target and allowSyntheticDefaultImports), node16, nodenext and
  // bundler, each importing every entry.
  const modes = [
    { module: 'commonjs', moduleResolution: 'node10', target: 'ES2021', allowSyntheticDefaultImports: true, typescript: 'typescript5' },
    { module: 'node16', moduleResolution: 'node16' },
    { module: 'nodenext', moduleResolution: 'nodenext' },
    { module: 'esnext', moduleResolution: 'bundler' },
  ];
  for (const mode of modes) {
    const dir = join(app, `mode-${mode.moduleResolution}`);
    mkdirSync(dir);
    const { typescript = 'typescript', ...options } = mode as typeof mode & { typescript?: string };
    const compilerOptions = {
      ...options,
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
      typeRoots: [join(REPOSITORY, 'node_modules/@types')],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['app.ts'] }));
    writeFileSync(
      join(dir, 'app.ts'),
      usesEveryEntry((entry) => `import * as ${entry} from '@lib/cors/${entry}';`),
    );
    t.doesNotThrow(
      () => scratch.run(process.execPath, [join(REPOSITORY, 'node_modules', typescript, 'bin/tsc'), '-p', dir]),
      `moduleResolution ${mode.moduleResolution} with module ${mode.module}: every entry but fastify type-checks`,
    );
  }

  // The Public Suffix List ships compressed (scripts/pack.js): the warning must still come from it.
  writeFileSync(
    join(app, 'suffix.cjs'),
    `const { createCors } = require('@lib/cors/standalone');
console.warn = (line) => console.log(line);
createCors({ origin: ['https://*.github.io', 'https://*.example.com'] }).route('GET', '/');
`,
  );
  const warnings = scratch.run(process.execPath, ['suffix.cjs']);
  t.match(
    warnings,
    /"https:\/\/\*\.github\.io" grants every sub-domain of github\.io, a public suffix/,
    'the sub-domain pattern on a public suffix is warned about',
  );
  t.notMatch(warnings, /example\.com/, 'and not the one on a registrable domain');

  // scripts/pack.js gives what loads late (explain(), debug mode's judging, the router shared past
  // 1,000 routes: each lazily required) files of their own: they must resolve from the installed
  // package, and not load before use.
  writeFileSync(
    join(app, 'diagnostics.cjs'),
    `const { subscribe } = require('node:diagnostics_channel');
const { createCors, DECISION_CHANNEL } = require('@lib/cors/standalone');
const cors = createCors({ origin: ['https://app.example.com'] }).route('GET', '/users/:id');
const atStart = new Set(Object.keys(require.cache));
const verdicts = [];
subscribe(DECISION_CHANNEL, (message) => verdicts.push(message.verdict + ' ' + message.reason));
cors.setDebug(true);
console.warn = (line) => verdicts.push(line.split(':')[0]);
const res = { getHeader() {}, setHeader() {}, hasHeader: () => false, writeHead() {}, end() {} };
cors.handle({ method: 'GET', url: '/users/7', headers: { origin: 'https://elsewhere.example' } }, res, () => {});
const router = require('find-my-way')();
for (let i = 0; i <= 1000; i++) router.on('GET', '/items/' + i, () => {});
createCors().mirror(router);
cors.explain({ method: 'GET', url: '/users/7', headers: { origin: 'https://app.example.com' } }).then((explanation) => {
  const late = Object.keys(require.cache).filter((file) => !atStart.has(file)).map((file) => file.replace(/^.*node_modules\\/@lib\\/cors\\//, ''));
  console.log(JSON.stringify({ late: late.sort(), verdicts, explained: explanation.reason }));
});
`,
  );
  t.same(
    JSON.parse(scratch.run(process.execPath, ['diagnostics.cjs'])),
    {
      late: ['dist/core/shared-router.js', 'dist/diagnostics/explain.js', 'dist/diagnostics/observed-decision.js', 'dist/shared/browser-checks.js'],
      verdicts: ['CORS refused [origin-mismatch] GET /users/7 from https', 'refused origin-mismatch'],
      explained: 'allowed',
    },
    'explain(), debug lines, the decision channel and the shared router load from their own files, at their first use',
  );

  // The module entry needs the host, and says so by failing to resolve it, not by half-working:
  // from import and from require() alike (the import wrapper loads the CommonJS implementation).
  const moduleEntry = JSON.parse(
    scratch.run(process.execPath, [
      '--input-type=module',
      '-e',
      `import { createRequire } from 'node:module';
const outcome = (e) => ({ code: e.code, message: e.message.split('\\n')[0] });
const viaImport = await import('@lib/cors').then(() => 'loaded', outcome);
let viaRequire = 'loaded';
try { createRequire(process.cwd() + '/')('@lib/cors'); } catch (e) { viaRequire = outcome(e); }
console.log(JSON.stringify({ viaImport, viaRequire }));`,
    ]),
  );
  const missing = { code: 'MODULE_NOT_FOUND', message: "Cannot find module '@lib/core'" };
  t.same(moduleEntry, { viaImport: missing, viaRequire: missing }, '@lib/cors (CorsModule) needs @lib/core and @lib/rest installed beside it');
});
