/**
 * The three tarballs as published, checked by the tools package authors use:
 * `@arethetypeswrong/cli` (each entry point's types against how Node and TypeScript resolve it,
 * from require() and from import) and `publint` (the package.json: exports, files, formats).
 * Both are root devDependencies, run as programs on the .tgz files.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

import t from 'tap';

import { pack, REPOSITORY } from '../helpers/packing.js';

const BIN = join(REPOSITORY, 'node_modules/.bin');
const PACKAGES = ['core', 'rest', 'cors'];

/** Runs `command` without tap's coverage hooks in NODE_OPTIONS: its exit code and output. */
async function run(command: string, args: readonly string[]): Promise<{ status: number | null; output: string }> {
  const { NODE_OPTIONS: _, ...env } = process.env;
  const child = spawn(command, args, { env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { status, output };
}

interface AttwReport {
  analysis: {
    entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName: string }; implementationResolution?: { fileName: string } }> }>;
    problems: { kind: string; entrypoint?: string; resolutionKind?: string }[];
  };
}

const dir = mkdtempSync(join(tmpdir(), 'cors-tarballs-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const tarballs = pack(PACKAGES, dir);

for (const [i, tarball] of tarballs.entries()) {
  const name = basename(tarball);
  const { exports } = JSON.parse(readFileSync(join(REPOSITORY, 'src', PACKAGES[i]!, 'package.json'), 'utf8')) as { exports: object };

  t.test(`${name}: @arethetypeswrong/cli`, { timeout: 120_000 }, async (t) => {
    // Every profile: node10 ("moduleResolution": "node", NestJS 10's default, which reads no
    // exports map: a folder per subpath names its files), node16 (and nodenext) from CommonJS and
    // from ES modules, and bundler.
    const attw = await run(join(BIN, 'attw'), [tarball, '--format', 'json']);
    t.equal(attw.status, 0, 'attw passes', { output: attw.output.slice(0, 4000) });
    const report = JSON.parse(attw.output.slice(attw.output.indexOf('{'))) as AttwReport;
    t.same(report.analysis.problems, [], 'no problem in node10, node16 (from CommonJS and from ES modules) and bundler resolution');
    t.same(Object.keys(report.analysis.entrypoints), Object.keys(exports), 'every entry point analysed');
    for (const [entry, { resolutions }] of Object.entries(report.analysis.entrypoints)) {
      const files = (kind: string) => [resolutions[kind]?.resolution?.fileName, resolutions[kind]?.implementationResolution?.fileName];
      t.match(files('node16-cjs'), [/\/dist\/(?!esm\/).*\.d\.ts$/, /\/dist\/(?!esm\/).*\.js$/], `${entry}: require() gets the CommonJS file and its types`);
      t.match(files('node16-esm'), [/\/dist\/esm\/.*\.d\.mts$/, /\/dist\/esm\/.*\.mjs$/], `${entry}: import gets the ES module wrapper and its types`);
      t.same(files('node10'), files('node16-cjs'), `${entry}: node10 gets what require() gets`);
    }
  });

  t.test(`${name}: publint`, { timeout: 120_000 }, async (t) => {
    const publint = await run(join(BIN, 'publint'), [tarball, '--strict', '--level', 'suggestion']);
    t.equal(publint.status, 0, 'publint passes', { output: publint.output });
    t.match(publint.output, /All good!/, 'not even a suggestion');
  });
}
