#!/usr/bin/env node
// Runs each framework's suites against the versions of it that people run (issue 45), one
// version at a time: the version is installed into node_modules/.cache/lib-cors-versions/, put in
// place of the installed one in node_modules for the run (a symbolic link, so the framework finds
// its own dependencies beside it), and the installed one is put back after, whatever happens.
//
//   node scripts/framework-versions.js             every version listed below
//   node scripts/framework-versions.js --oldest    the oldest of each line (CI; npm test runs the newest)
//   node scripts/framework-versions.js fastify     one framework's versions
//
// Run it after `npm run build`. The versions listed here are those peerDependencies declares.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const modules = join(root, 'node_modules');
const cache = join(modules, '.cache', 'lib-cors-versions');

/**
 * Each line: the packages installed together (name -> version), the folder of node_modules each
 * one takes the place of (Express 4 runs as the suites' `express4`), and the suites that drive it.
 * `oldest` marks the version CI runs.
 */
const MATRIX = [
  { line: 'Express 4', oldest: true, packages: { express: '4.17.3' }, into: { express: 'express4' }, suites: EXPRESS() },
  { line: 'Express 4', packages: { express: '4.21.2' }, into: { express: 'express4' }, suites: EXPRESS() },
  { line: 'Express 5', oldest: true, packages: { express: '5.0.1' }, suites: EXPRESS() },
  { line: 'koa 2', oldest: true, packages: { koa: '2.15.4' }, suites: KOA() },
  { line: '@koa/router 12', oldest: true, packages: { '@koa/router': '12.0.2' }, suites: KOA() },
  { line: '@koa/router 13', packages: { '@koa/router': '13.1.1' }, suites: KOA() },
  { line: '@koa/router 14', packages: { '@koa/router': '14.0.0' }, suites: KOA() },
  { line: 'hono 4.0', oldest: true, packages: { hono: '4.0.10' }, suites: HONO() },
  { line: 'hono 4.6', packages: { hono: '4.6.20' }, suites: HONO() },
  { line: 'fastify 4', oldest: true, packages: { fastify: '4.28.1' }, suites: FASTIFY() },
  { line: 'fastify 5', oldest: true, packages: { fastify: '5.0.0' }, suites: FASTIFY() },
  {
    line: 'NestJS 10',
    oldest: true,
    // Nest 10's fastify platform runs fastify 4, which the suite's own fastify instance must be too.
    packages: {
      '@nestjs/core': '10.4.15',
      '@nestjs/common': '10.4.15',
      '@nestjs/platform-express': '10.4.15',
      '@nestjs/platform-fastify': '10.4.15',
      fastify: '4.28.1',
    },
    suites: ['nestjs'],
  },
  // A copy of test/next/app with the version and the packed @lib/cors installed in it, as a user's
  // application has them, built with that version and served by the suite (nothing swapped here).
  { line: 'Next 14', oldest: true, packages: { next: '14.2.35' }, suites: ['next-app'], app: 'test/next/app' },
  { line: 'Next 15', packages: { next: '15.5.29' }, suites: ['next-app'], app: 'test/next/app' },
  { line: 'Next 16', packages: { next: '16.0.0' }, suites: ['next-app'], app: 'test/next/app' },
];

function EXPRESS() {
  return ['express', 'express-routing', 'express-what-runs-decides', 'every-method-routes', 'head-routes', 'markers-outside-routes'];
}
function KOA() {
  return ['koa', 'koa-exclusive', 'koa-cors-ported', 'koa-hono-what-runs-decides', 'express-koa-routes-property', 'frameworks-untouched'];
}
function HONO() {
  return ['hono', 'hono-pattern', 'koa-hono-what-runs-decides', 'hono-fastify-routes-property', 'frameworks-untouched'];
}
function FASTIFY() {
  return [
    'fastify',
    'fastify-what-runs-decides',
    'fastify-contract',
    'fastify-ported',
    'fastify-path-keys',
    'per-method',
    'overlapping-paths',
    'frameworks-untouched',
  ];
}

const args = process.argv.slice(2);
const oldestOnly = args.includes('--oldest');
const named = args.filter((arg) => !arg.startsWith('--'));
const runs = MATRIX.filter(
  (run) => (!oldestOnly || run.oldest) && (named.length === 0 || named.some((name) => run.line.toLowerCase().startsWith(name.toLowerCase()))),
);
if (runs.length === 0) {
  console.error(`framework-versions: nothing matches ${args.join(' ')}; lines: ${[...new Set(MATRIX.map((run) => run.line))].join(', ')}`);
  process.exit(2);
}

const failed = [];
for (const run of runs) {
  const label = Object.entries(run.packages)
    .map(([name, version]) => `${name}@${version}`)
    .join(' ');
  console.log(`\n== ${run.line}: ${label}`);
  const scratch = join(cache, label.replace(/[@/ ]+/g, '_'));
  if (run.app !== undefined) {
    // Outside the repository: bundlers leave whatever lies under a node_modules folder untranspiled.
    if (!runInApp(run, label, join(tmpdir(), 'lib-cors-versions', label.replace(/[@/ ]+/g, '_')))) failed.push(`${run.line}: ${label}`);
    continue;
  }
  if (!existsSync(join(scratch, 'node_modules'))) {
    mkdirSync(scratch, { recursive: true });
    const install = spawnSync('npm', ['install', '--prefix', scratch, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', ...label.split(' ')], {
      stdio: 'inherit',
    });
    if (install.status !== 0) {
      rmSync(scratch, { recursive: true, force: true });
      throw new Error(`npm install ${label} failed`);
    }
  }
  const swapped = [];
  try {
    for (const name of Object.keys(run.packages)) {
      const target = join(modules, run.into?.[name] ?? name);
      const aside = `${target}.lib-cors-aside`;
      // A run stopped half-way leaves the installed package aside: put it back first.
      if (existsSync(aside)) {
        rmSync(target, { recursive: true, force: true });
        renameSync(aside, target);
      }
      renameSync(target, aside);
      swapped.push([target, aside]);
      symlinkSync(join(scratch, 'node_modules', name), target, 'dir');
    }
    // Each suite where the build has it: in test/cors/, in the folder of what it proves (frameworks/, routes/...).
    const files = run.suites.map((suite) => suiteFile(suite));
    const tap = spawnSync(process.execPath, [join(modules, 'tap', 'dist', 'esm', 'run.mjs'), '--disable-coverage', '-R', 'terse', ...files], {
      cwd: root,
      stdio: 'inherit',
    });
    if (tap.status !== 0) failed.push(`${run.line}: ${label}`);
  } finally {
    for (const [target, aside] of swapped.reverse()) {
      if (lstatSync(target, { throwIfNoEntry: false })?.isSymbolicLink()) rmSync(target);
      renameSync(aside, target);
    }
  }
}
/** The compiled suite named `suite`, in whichever folder of build/test/cors it is; else the name, for tap to refuse. */
function suiteFile(suite) {
  const folders = [
    '',
    ...readdirSync(join(root, 'build', 'test', 'cors'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name),
  ];
  return folders.map((folder) => join('build', 'test', 'cors', folder, `${suite}.test.js`)).find((file) => existsSync(join(root, file))) ?? suite;
}

/**
 * A run on an application of its own (`run.app`, copied into `scratch`): the version, React 18,
 * TypeScript and the packed @lib/cors (packed again on every run) installed there from its own
 * package.json, then built and served by the suites, which LIB_CORS_NEXT_APP points at it.
 */
function runInApp(run, label, scratch) {
  const tarballs = join(scratch, 'tarballs');
  rmSync(tarballs, { recursive: true, force: true });
  const pack = spawnSync(process.execPath, [join(root, 'scripts', 'pack.js'), tarballs], { cwd: root, encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`npm run pack failed: ${pack.stderr}`);
  const cors = pack.stdout.split('\n').find((line) => /[/\\]lib-cors-[^/\\]*\.tgz$/.test(line.trim()));
  // The application's own package.json, as a user's: npm keeps what it lists and nothing else.
  const versions = Object.fromEntries(label.split(' ').map((spec) => [spec.slice(0, spec.lastIndexOf('@')), spec.slice(spec.lastIndexOf('@') + 1)]));
  const dependencies = {
    ...versions,
    react: '18.3.1',
    'react-dom': '18.3.1',
    '@types/react': '^18',
    '@types/node': '^22',
    typescript: '^5',
    '@lib/cors': `file:${cors.trim()}`,
  };
  mkdirSync(scratch, { recursive: true });
  writeFileSync(join(scratch, 'package.json'), `${JSON.stringify({ private: true, dependencies }, null, 2)}\n`);
  // The tarball is new on every run: its old copy goes first.
  rmSync(join(scratch, 'node_modules', '@lib'), { recursive: true, force: true });
  const install = spawnSync('npm', ['install', '--prefix', scratch, '--no-package-lock', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (install.status !== 0) throw new Error(`npm install in ${scratch} failed`);
  for (const entry of readdirSync(join(root, run.app))) {
    if (!['.next', 'node_modules', 'middleware.ts', 'next-env.d.ts'].includes(entry))
      cpSync(join(root, run.app, entry), join(scratch, entry), { recursive: true });
  }
  if (spawnSync(process.execPath, [join(root, 'scripts', 'next-app.js'), scratch], { stdio: 'inherit' }).status !== 0) return false;
  const files = run.suites.map((suite) => join('build', 'test', 'next', `${suite}.test.js`));
  const tap = spawnSync(process.execPath, [join(modules, 'tap', 'dist', 'esm', 'run.mjs'), '--disable-coverage', '-R', 'terse', ...files], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, LIB_CORS_NEXT_APP: scratch },
  });
  return tap.status === 0;
}

console.log(failed.length === 0 ? `\nframework-versions: ${runs.length} runs passed` : `\nframework-versions: failed on ${failed.join('; ')}`);
process.exit(failed.length === 0 ? 0 : 1);
