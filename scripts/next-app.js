#!/usr/bin/env node
// Builds the Next.js application the suites serve (test/next/app) with `next build`, as a user
// builds one, before tap starts (npm test's pretest): no build ever runs inside a test. Needs the
// package built first (the app imports @lib/cors/next from the workspace's dist/).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const app = `${root}test/next/app`;
const started = Date.now();
const run = spawnSync(process.execPath, [`${root}node_modules/next/dist/bin/next`, 'build'], {
  cwd: app,
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  encoding: 'utf8',
});
if (run.status !== 0) {
  process.stderr.write(`${run.stdout}\n${run.stderr}\nnext build failed in ${app}\n`);
  process.exit(1);
}
const { version } = JSON.parse(readFileSync(`${root}node_modules/next/package.json`, 'utf8'));
console.log(`test/next/app built with next ${version} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
