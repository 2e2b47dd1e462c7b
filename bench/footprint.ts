/**
 * `npm run bench -- --footprint`: what @lib/cors costs before its first request, each figure a
 * ratio to find-my-way alone (the router the design requires, so the floor of a mirrored tree),
 * side by side in one run (issue 29): the edge bundle, the cold start in Node (import and
 * require()), the install. The cold starts and the install are of the package as published
 * (`npm run pack`, installed from its tarball into a fresh folder), each beside find-my-way
 * installed alone. For each, where the bytes or milliseconds go. Writes its section of
 * bench/RESULTS.md. About a minute.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { build, type Metafile } from 'esbuild';

import { machineLine, median, percent, thousands, writeResultsSection } from './report.js';
import { benchDir } from './scenarios.js';

const REPOSITORY = fileURLToPath(new URL('..', benchDir));
/** Fresh processes per cold-start case, interleaved with the other cases; the median is reported. */
const COLD_RUNS = 41;

/** Issue 29's goals: @lib/cors against find-my-way alone. */
const GOALS = { bundle: 1.5, coldStart: 1.25, extraRssMb: 5, install: 1.5 };

// The same policy and route everywhere: two origins, no sub-domain pattern, one parametric route.
const POLICY = "{ origin: ['https://app.example.com', 'https://admin.example.com'] }";

interface Bundle {
  minified: number;
  gzip: number;
  /** Minified bytes by the package they come from. */
  byPackage: Map<string, number>;
}

/** `source` (an ES module, resolved from the repository) bundled as TOOLCHAIN.md's edge bundle: esbuild, minified, neutral platform, gzip -9. */
async function edgeBundle(source: string, loader: 'js' | 'ts' = 'js'): Promise<Bundle> {
  const result = await build({
    stdin: { contents: source, resolveDir: REPOSITORY, loader },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    external: ['node:*'],
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const code = result.outputFiles[0]!.contents;
  return { minified: code.length, gzip: gzipSync(code, { level: 9 }).length, byPackage: byPackage(result.metafile) };
}

function byPackage(metafile: Metafile): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const inModules = input.split('node_modules/').at(-1)!;
      const name = input.includes('node_modules/')
        ? inModules
            .split('/')
            .slice(0, inModules.startsWith('@') ? 2 : 1)
            .join('/')
        : input.startsWith('src/cors/')
          ? `@lib/cors ${input.replace(/^src\/cors\/(dist\/)?/, '').replace(/\.[mc]?[jt]s$/, '')}`
          : '(the entry)';
      sizes.set(name, (sizes.get(name) ?? 0) + bytesInOutput);
    }
  }
  return new Map([...sizes].sort((a, b) => b[1] - a[1]));
}

const WORKER = (setUp: string, answer: string) => `${setUp}\nexport default { fetch: (request) => ${answer} };\n`;

async function measureBundles() {
  const lib = await edgeBundle(
    WORKER(
      `import { createCors } from '@lib/cors/fetch';\nconst cors = createCors(${POLICY}).route('GET', '/users/:id');`,
      "cors.handle(request, () => new Response('ok'))",
    ),
  );
  const router = await edgeBundle(
    WORKER(
      "import FindMyWay from 'find-my-way';\nconst router = FindMyWay();\nrouter.on('GET', '/users/:id', () => {});",
      "new Response(router.find(request.method, new URL(request.url).pathname) ? 'ok' : 'no')",
    ),
  );
  // The same code from its TypeScript sources as ES modules: what the CommonJS build costs a bundle.
  const fromSources = await edgeBundle(
    WORKER(
      `import { createCors } from './src/cors/entry/fetch.ts';\nconst cors = createCors(${POLICY}).route('GET', '/users/:id');`,
      "cors.handle(request, () => new Response('ok'))",
    ),
    'ts',
  );
  return { lib, router, fromSources };
}

interface Cold {
  ms: number;
  rssMb: number;
}

/** What each fresh process runs, timed from before its import to after its one route; `lib` runs in the folder @lib/cors is installed in, the others in find-my-way's. */
const COLD_CASES = {
  'import @lib/cors/standalone': {
    lib: true,
    module: true,
    code: `const { createCors } = await import('@lib/cors/standalone'); createCors(${POLICY}).route('GET', '/users/:id');`,
  },
  'import @lib/cors/fetch': {
    lib: true,
    module: true,
    code: `const { createCors } = await import('@lib/cors/fetch'); createCors(${POLICY}).route('GET', '/users/:id');`,
  },
  'import find-my-way': {
    lib: false,
    module: true,
    code: "const { default: FindMyWay } = await import('find-my-way'); FindMyWay().on('GET', '/users/:id', () => {});",
  },
  "require('@lib/cors/standalone')": {
    lib: true,
    module: false,
    code: `const { createCors } = require('@lib/cors/standalone'); createCors(${POLICY}).route('GET', '/users/:id');`,
  },
  "require('find-my-way')": {
    lib: false,
    module: false,
    code: "const FindMyWay = require('find-my-way'); FindMyWay().on('GET', '/users/:id', () => {});",
  },
} as const;
type ColdCase = keyof typeof COLD_CASES;

/** The two folders the cold starts run in: @lib/cors installed from its tarball, find-my-way alone. */
interface InstalledApps {
  lib: string;
  router: string;
}

function coldStart(name: ColdCase, apps: InstalledApps): Cold {
  const { lib, module, code } = COLD_CASES[name];
  const script = `const rss0 = process.memoryUsage.rss(); const t0 = performance.now(); ${code}
    const ms = performance.now() - t0; console.log(JSON.stringify({ ms, rssMb: (process.memoryUsage.rss() - rss0) / 2 ** 20 }));`;
  const args = module ? ['--input-type=module', '-e', script] : ['-e', script];
  return JSON.parse(
    execFileSync(process.execPath, args, { cwd: lib ? apps.lib : apps.router, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } }),
  ) as Cold;
}

function measureColdStarts(apps: InstalledApps): Map<ColdCase, Cold> {
  const runs = new Map<ColdCase, Cold[]>(Object.keys(COLD_CASES).map((name) => [name as ColdCase, []]));
  // Interleaved: each round runs every case once, so a neighbour's load falls on all of them alike.
  for (let round = 0; round < COLD_RUNS; round++) {
    for (const [name, list] of runs) list.push(coldStart(name, apps));
  }
  return new Map([...runs].map(([name, list]) => [name, { ms: median(list.map((run) => run.ms)), rssMb: median(list.map((run) => run.rssMb)) }]));
}

interface Install {
  /** Disk usage (blocks, as du counts it) and the files' own bytes. */
  disk: number;
  bytes: number;
  packages: number;
  /** Disk usage by package. */
  byPackage: Map<string, number>;
}

function sizeOf(path: string): { disk: number; bytes: number } {
  const stat = lstatSync(path);
  let size = { disk: stat.blocks * 512, bytes: stat.isFile() ? stat.size : 0 };
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path)) {
      const inner = sizeOf(join(path, entry));
      size = { disk: size.disk + inner.disk, bytes: size.bytes + inner.bytes };
    }
  }
  return size;
}

/** `specs` installed by npm into the fresh folder `dir`, as a new user would; node_modules measured. */
function install(dir: string, specs: readonly string[]): Install {
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'footprint', private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...specs], { cwd: dir, stdio: 'pipe' });
  const modules = join(dir, 'node_modules');
  const byPackage = new Map<string, number>();
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((inner) => `${entry}/${inner}`) : [entry];
    for (const name of names) byPackage.set(name, sizeOf(join(modules, name)).disk);
  }
  return { ...sizeOf(modules), packages: byPackage.size, byPackage: new Map([...byPackage].sort((a, b) => b[1] - a[1])) };
}

/** @lib/cors packed as the README packs it and installed from its tarball, find-my-way alone beside it; the folders are kept for the cold starts. */
function measureInstalls(apps: InstalledApps) {
  const packDir = mkdtempSync(join(tmpdir(), 'footprint-pack-'));
  try {
    const tarball = execFileSync(process.execPath, [join(REPOSITORY, 'scripts/pack.js'), packDir, 'cors'], { cwd: REPOSITORY, encoding: 'utf8' }).trim();
    // The version @lib/cors resolves to here, so that both installs hold the same find-my-way.
    const { version } = JSON.parse(readFileSync(join(REPOSITORY, 'node_modules/find-my-way/package.json'), 'utf8')) as { version: string };
    return { lib: install(apps.lib, [tarball]), router: install(apps.router, [`find-my-way@${version}`]), tarball: lstatSync(tarball).size };
  } finally {
    rmSync(packDir, { recursive: true, force: true });
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ratio = (value: number) => `${value.toFixed(2)}x`;
const verdict = (holds: boolean) => (holds ? 'holds' : '**not reached**');

export async function measureFootprint(): Promise<void> {
  const started = Date.now();
  console.log('footprint: edge bundles...');
  const bundles = await measureBundles();
  const apps = { lib: mkdtempSync(join(tmpdir(), 'footprint-lib-')), router: mkdtempSync(join(tmpdir(), 'footprint-router-')) };
  let installs: ReturnType<typeof measureInstalls>;
  let cold: Map<ColdCase, Cold>;
  try {
    console.log('footprint: installs...');
    installs = measureInstalls(apps);
    console.log(`footprint: cold starts (${COLD_RUNS} fresh processes per case, interleaved)...`);
    cold = measureColdStarts(apps);
  } finally {
    for (const dir of Object.values(apps)) rmSync(dir, { recursive: true, force: true });
  }

  const rows: string[] = [];
  const row = (measure: string, ours: string, theirs: string, value: number, goal: string, holds: boolean) =>
    rows.push(`| ${measure} | ${ours} | ${theirs} | ${ratio(value)} | ${goal} | ${verdict(holds)} |`);
  const bundleRatio = bundles.lib.gzip / bundles.router.gzip;
  row('edge bundle, `@lib/cors/fetch`, gzip', kb(bundles.lib.gzip), kb(bundles.router.gzip), bundleRatio, `<= ${GOALS.bundle}x`, bundleRatio <= GOALS.bundle);
  const coldRow = (ours: ColdCase, theirs: ColdCase) => {
    const [a, b] = [cold.get(ours)!, cold.get(theirs)!];
    const value = a.ms / b.ms;
    row(
      `cold start, \`${ours}\` + createCors + one route`,
      `${a.ms.toFixed(1)} ms`,
      `${b.ms.toFixed(1)} ms`,
      value,
      `<= ${GOALS.coldStart}x`,
      value <= GOALS.coldStart,
    );
    const extra = a.rssMb - b.rssMb;
    rows.push(
      `| added RSS, the same | ${a.rssMb.toFixed(1)} MB | ${b.rssMb.toFixed(1)} MB | ${extra < 0 ? '' : '+'}${extra.toFixed(1)} MB | <= +${GOALS.extraRssMb} MB | ${verdict(extra <= GOALS.extraRssMb)} |`,
    );
  };
  coldRow('import @lib/cors/standalone', 'import find-my-way');
  coldRow('import @lib/cors/fetch', 'import find-my-way');
  coldRow("require('@lib/cors/standalone')", "require('find-my-way')");
  const installRatio = installs.lib.disk / installs.router.disk;
  row(
    'install from the tarball, dependencies included (disk usage)',
    `${kb(installs.lib.disk)}, ${installs.lib.packages} packages`,
    `${kb(installs.router.disk)}, ${installs.router.packages} packages`,
    installRatio,
    `<= ${GOALS.install}x`,
    installRatio <= GOALS.install,
  );
  const bytesRatio = installs.lib.bytes / installs.router.bytes;
  row("the same, the files' own bytes", kb(installs.lib.bytes), kb(installs.router.bytes), bytesRatio, `<= ${GOALS.install}x`, bytesRatio <= GOALS.install);

  const share = (sizes: Map<string, number>, total: number) =>
    [...sizes]
      .filter(([, size]) => size / total >= 0.01)
      .map(([name, size]) => `${name} ${kb(size)} (${percent(size / total)})`)
      .join(', ');
  const report = `## Footprint: bundle, cold start and install against find-my-way alone

${machineLine()}; ${COLD_RUNS} fresh processes per cold-start case, interleaved, medians; ${Math.round((Date.now() - started) / 1000)} s in all.
The policy: two origins, no sub-domain pattern; one route, \`GET /users/:id\`.

| measure | @lib/cors | find-my-way alone | ratio | goal | |
|---|---:|---:|---:|---|---|
${rows.join('\n')}

### Where the bytes and milliseconds go

- **Edge bundle**, minified ${kb(bundles.lib.minified)} (find-my-way alone ${kb(bundles.router.minified)}), by package: ${share(bundles.lib.byPackage, bundles.lib.minified)}.
  The same code bundled from its TypeScript sources as ES modules: ${kb(bundles.fromSources.gzip)} gzip (${ratio(bundles.fromSources.gzip / bundles.router.gzip)}), so the CommonJS build costs ${kb(bundles.lib.gzip - bundles.fromSources.gzip)} gzip.
- **Install**: the tarball is ${kb(installs.tarball)}; by package (disk usage): ${share(installs.lib.byPackage, installs.lib.disk)}.
- **Cold start**, each case alone (median ms, added RSS MB): ${[...cold].map(([name, { ms, rssMb }]) => `\`${name}\` ${ms.toFixed(1)} ms, ${rssMb.toFixed(1)} MB`).join('; ')}.
`;
  console.log(report);
  writeResultsSection('footprint', report);
  console.log(`footprint: ${thousands((Date.now() - started) / 1000)} s; bench/RESULTS.md updated`);
}
