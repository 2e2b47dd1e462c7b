/**
 * A CommonJS Express app (cjs-express-app/, `"type": "commonjs"`, `require('@lib/cors/express')`)
 * with the three tarballs installed runs its own tests on jest, with jest's default configuration
 * (no babel, no transform), and on `node --test`; the latter also loads every entry point both
 * ways in one process and finds one copy: the same objects, errors that `instanceof` recognises
 * across the forms, and CorsModule from require() serving a host from import.
 * jest is a root devDependency, run from the repository's node_modules: nothing is installed here
 * but the tarballs and the app's frameworks (from the npm cache). tarballs.test.ts checks the
 * tarballs themselves with attw and publint.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

import t from 'tap';

import { appWithTarballs, REPOSITORY } from '../helpers/packing.js';

interface Ran {
  status: number | null;
  output: string;
}

/** Runs `command` in `cwd` as a user would: without tap's coverage hooks in NODE_OPTIONS. */
function run(command: string, args: readonly string[], cwd: string): Ran {
  const { NODE_OPTIONS: _, ...env } = process.env;
  const ran = spawnSync(command, args, { cwd, env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' }, encoding: 'utf8', timeout: 120_000 });
  return { status: ran.status, output: `${ran.stdout}${ran.stderr}` };
}

t.test('a CommonJS Express app, from the tarballs, on jest and on node --test', { timeout: 280_000 }, async (t) => {
  const root = JSON.parse(readFileSync(join(REPOSITORY, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const scratch = appWithTarballs(
    'cors-cjs-express-app',
    ['core', 'rest', 'cors'],
    [`express@${root.devDependencies.express}`, `fastify@${root.devDependencies.fastify}`],
    'test/packaging/cjs-express-app',
  );
  t.teardown(scratch.remove);

  // The same app as the apps on jest 26 and 27 are: on Express 4 (Express 5 requires `node:` specifiers itself).
  const express4 = appWithTarballs(
    'cors-cjs-express4-app',
    ['core', 'rest', 'cors'],
    [`express@${root.devDependencies.express4!.replace(/^npm:express@/, '')}`],
    'test/packaging/cjs-express-app',
  );
  t.teardown(express4.remove);

  // Every jest people run, each with its default configuration (root devDependencies: jest, and
  // jest26, jest27 and jest29 by alias). Before 28, jest reads no `exports` map and resolves no
  // `node:` specifier: every-jest.test.js is written for those too, cors.test.js for 29 on.
  for (const [name, bin, files, app] of [
    ['jest 26', 'node_modules/jest26/bin/jest.js', ['every-jest.test.js'], express4],
    ['jest 27', 'node_modules/jest27/bin/jest.js', ['every-jest.test.js'], express4],
    ['jest 29', 'node_modules/jest29/bin/jest.js', ['cors.test.js', 'every-jest.test.js'], scratch],
    ['jest 30', 'node_modules/jest/bin/jest.js', ['cors.test.js', 'every-jest.test.js'], scratch],
  ] as const) {
    const pattern = files.length === 1 ? [files[0]] : [];
    const jest = run(process.execPath, [join(REPOSITORY, bin), '--ci', '--json', '--outputFile=jest.json', ...pattern], app.dir);
    t.equal(jest.status, 0, `${name} passes`, { output: jest.output.slice(-6000) });
    const jestReport = JSON.parse(readFileSync(join(app.dir, 'jest.json'), 'utf8')) as {
      numPassedTests: number;
      numTotalTests: number;
      testResults: { name: string }[];
    };
    t.same(
      jestReport.testResults.map((file) => basename(file.name)).sort(),
      [...files].sort(),
      `${name}: its default configuration found the app's test files`,
    );
    t.equal(jestReport.numPassedTests, jestReport.numTotalTests, `${name}: every case passes`);
    t.ok(jestReport.numTotalTests >= (files.length === 1 ? 3 : 10), `${name}: ${jestReport.numTotalTests} cases ran`);
  }

  // An option error nobody catches: Node prints the line that threw and the stack, readable.
  const uncaught = run(process.execPath, ['-e', "require('@lib/cors/express').createCors({ origin: ['localhost:4200/'], maxAge: 'x' })"], scratch.dir);
  t.not(uncaught.status, 0, 'the app stops');
  t.match(uncaught.output, /CorsOptionsError: createCors\(\) of @lib\/cors\/express: 2 problems/);
  t.ok(uncaught.output.length < 8000, `${uncaught.output.length} characters printed`);
  const longest = Math.max(...uncaught.output.split('\n').map((line) => line.length));
  t.ok(longest < 400, `no minified line: the longest is ${longest} characters`);
  const frames = [...uncaught.output.matchAll(/@lib\/cors\/dist\/[\w/.-]+\.js:(\d+):\d+/g)].map((found) => Number(found[1]));
  t.ok(frames.length > 0 && frames.every((line) => line > 1), `the package's frames point at lines of their files (${frames.join(', ')})`);

  // The same error under jest, in a test of the app's: jest's report is readable too (issue 46).
  writeFileSync(
    join(scratch.dir, 'uncaught.test.js'),
    "test('a bad option', () => require('@lib/cors/express').createCors({ origin: ['localhost:4200/'], maxAge: 'x' }));\n",
  );
  const underJest = run(process.execPath, [join(REPOSITORY, 'node_modules/jest/bin/jest.js'), '--ci', 'uncaught.test.js'], scratch.dir);
  t.not(underJest.status, 0, 'jest reports the test failed');
  t.match(underJest.output, /CorsOptionsError: createCors\(\) of @lib\/cors\/express: 2 problems/);
  const longestUnderJest = Math.max(...underJest.output.split('\n').map((line) => line.length));
  t.ok(longestUnderJest < 400, `jest prints no minified line: the longest is ${longestUnderJest} characters`);
  t.match(underJest.output, /Fix: /, 'and the fixes');
  const jestFrames = [...underJest.output.matchAll(/@lib\/cors\/dist\/[\w/.-]+\.js:(\d+):\d+/g)].map((found) => Number(found[1]));
  t.ok(jestFrames.length > 0 && jestFrames.every((line) => line > 1), `jest's frames point at lines of the package's files (${jestFrames.join(', ')})`);

  const nodeTest = run(process.execPath, ['--test', '--test-reporter=tap', 'node-test.js'], scratch.dir);
  t.equal(nodeTest.status, 0, 'node --test passes', { output: nodeTest.output.slice(-6000) });
  t.match(nodeTest.output, /^# pass 11$/m, 'node --test: the 7 cases, and the 4 that load both forms or every entry point');
  t.match(nodeTest.output, /^# fail 0$/m);
});
