#!/usr/bin/env node
// Builds the Next.js application the suites serve with `next build`, as a user builds one, before
// tap starts (npm test's pretest): no build ever runs inside a test. Needs the package built first.
//
//   node scripts/next-app.js          test/next/app, on the repository's next and workspace @lib/cors
//   node scripts/next-app.js <dir>    a copy of it with next and @lib/cors of its own (scripts/framework-versions.js)
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const app = resolve(process.argv[2] ?? `${root}test/next/app`);
const own = `${app}/node_modules/next`;
const next = existsSync(own) ? own : `${root}node_modules/next`;
const { version } = JSON.parse(readFileSync(`${next}/package.json`, 'utf8'));
// Next 16 names the application-wide file proxy.ts; 14 and 15 read middleware.ts, exporting
// `middleware`, and run it on the Edge runtime, whose build refuses a module that could generate
// code (find-my-way's compiled lookups, never used by @lib/cors/next) unless the file's config
// allows it, as docs/entry-points.md tells users of those versions.
const middleware = `${app}/middleware.ts`;
const before16 = Number(version.split('.')[0]) < 16;
if (before16) {
  const proxy = readFileSync(`${app}/proxy.ts`, 'utf8')
    .replace('export function proxy(', 'export function middleware(')
    .replace(
      'export const config = {',
      "export const config = {\n  unstable_allowDynamic: ['**/node_modules/@lib/cors/**', '**/node_modules/find-my-way/**'],",
    );
  writeFileSync(middleware, `// Made from proxy.ts by scripts/next-app.js for next ${version}.\n${proxy}`);
}
const started = Date.now();
const run = spawnSync(process.execPath, [`${next}/dist/bin/next`, 'build'], {
  cwd: app,
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  encoding: 'utf8',
});
if (before16) rmSync(middleware);
if (run.status !== 0) {
  process.stderr.write(`${run.stdout}\n${run.stderr}\nnext build failed in ${app}\n`);
  process.exit(1);
}
console.log(`${app} built with next ${version} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
