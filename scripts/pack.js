// `npm run pack -- <destination>`: the three packages' tarballs, as published, after `npm run build`.
// @lib/core and @lib/rest are packed as they are built. @lib/cors is packed from a staging folder
// where its JavaScript is bundled (issue 29: 91 files installed, a 4 KB block for each small one,
// 60 KB of comments, and 22 files for a require() to resolve and read): each file the package.json
// names (entry points, ES module wrappers, the cors-check command, the Public Suffix List and its
// stand-in) stays at its path, and the modules behind them are bundled, without comments, into one
// file per set of entry points that load them (planBundles()); a module the sources require()
// inside a function, to load it at its first use, is a file of its own (rootFiles()). A module
// lives in exactly one file, so whichever entry point or wrapper loads it there is one engine and
// one set of error classes.
// The workspace's dist/ keeps tsc's output: the tests and their coverage run on that, and
// test/packaging on what this packs. Prints each tarball's path, one a line.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { build, transform } from 'esbuild';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';

const REPOSITORY = fileURLToPath(new URL('..', import.meta.url));
const CORS = join(REPOSITORY, 'src/cors');
const DIST = join(CORS, 'dist');

/** `contents` written to `path`, its folder made if need be. */
function writeFile(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, contents);
}

/** Every file under `dir`, relative to it, with `/` separators. */
function filesUnder(dir, prefix = '') {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(dir, posix.join(prefix, entry.name)) : [posix.join(prefix, entry.name)],
  );
}

/**
 * The relative `require()`s of a CommonJS file in dist/, as paths relative to dist/: `eager` those
 * tsc wrote for the file's imports (at the start of a line: they run when the file loads), `lazy`
 * those written in the source inside a function (indented: they run at the first call, as
 * diagnostics/channels.ts loads the decision's judging).
 */
function localRequires(file) {
  const source = readFileSync(join(DIST, file), 'utf8');
  const eager = [];
  const lazy = [];
  for (const match of source.matchAll(/\brequire\(["'](\.\.?\/[^"']+)["']\)/g)) {
    const indented = /[ \t]/.test(source[source.lastIndexOf('\n', match.index) + 1] ?? '');
    (indented ? lazy : eager).push(posix.join(posix.dirname(file), match[1]));
  }
  return { eager, lazy };
}

/**
 * The entry files and the modules some file requires lazily: each is a file of its own in the
 * package, so that what loads it late is not parsed with what loads at start-up, and both keep
 * one copy of it.
 */
function rootFiles(entries) {
  const roots = new Set(entries);
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const { eager, lazy } = localRequires(file);
    for (const target of lazy) roots.add(target);
    for (const target of [...eager, ...lazy]) visit(target);
  };
  for (const entry of entries) visit(entry);
  return [...roots];
}

/** Every path a package.json field names (`exports`, `bin`), however deep its conditions nest, normalized. */
function pathsIn(field) {
  if (typeof field === 'string') return [posix.normalize(field)];
  if (field === null || typeof field !== 'object') return [];
  return Object.values(field).flatMap(pathsIn);
}

/** The JavaScript files the package's exports, its command or its ES module wrappers name: each stays a file of its own. */
function entryFiles(manifest, wrappers) {
  const named = new Set([...pathsIn(manifest.exports), ...pathsIn(manifest.bin)]);
  for (const wrapper of wrappers) {
    const source = readFileSync(join(DIST, wrapper), 'utf8');
    for (const [, target] of source.matchAll(/from '(\.\.?\/[^']+)'/g)) named.add(posix.join('dist', posix.dirname(wrapper), target));
  }
  return [...named].filter((path) => path.endsWith('.js')).map((path) => path.replace(/^dist\//, ''));
}

/**
 * The bundles: each entry file with the modules only it loads, and, for each other set of entry
 * files that load the same modules, one shared file of those modules. Modules reached through
 * another entry file are that file's. Sets of loaders nest (a module's importer is loaded by at
 * least the same entry files), so the shared files require one another without a cycle. The
 * largest shared file is the engine; a set of modules that every entry loading the engine loads
 * too joins it (one file fewer to open; only an entry without the engine, cors-check, then reads
 * more).
 */
function planBundles(entries) {
  const entrySet = new Set(entries);
  const loaders = new Map();
  for (const entry of entries) {
    const seen = new Set();
    const visit = (file) => {
      for (const target of localRequires(file).eager) {
        if (entrySet.has(target) || seen.has(target)) continue;
        seen.add(target);
        if (!loaders.has(target)) loaders.set(target, new Set());
        loaders.get(target).add(entry);
        visit(target);
      }
    };
    visit(entry);
  }
  const home = new Map(entries.map((entry) => [entry, entry]));
  const groups = new Map();
  for (const [module, by] of loaders) {
    if (by.size === 1) {
      home.set(module, [...by][0]);
      continue;
    }
    const key = [...by].sort().join(' ');
    if (!groups.has(key)) groups.set(key, { loaders: by, modules: [] });
    groups.get(key).modules.push(module);
  }
  const engine = [...groups.values()].sort((a, b) => b.modules.length - a.modules.length)[0];
  const sharedFiles = new Map();
  for (const group of groups.values()) {
    const joinsEngine = [...engine.loaders].every((entry) => group.loaders.has(entry));
    // Named after the modules they hold (shared/fetch-writer.js).
    const file = joinsEngine
      ? 'shared/engine.js'
      : `shared/${group.modules
          .map((module) => posix.basename(module, '.js'))
          .sort()
          .join('+')}.js`;
    if (sharedFiles.has(file) && !joinsEngine) throw new Error(`two shared files named ${file}: name them otherwise in scripts/pack.js`);
    sharedFiles.set(file, [...(sharedFiles.get(file) ?? []), ...group.modules].sort());
    for (const module of group.modules) home.set(module, file);
  }
  return { home, sharedFiles };
}

const SHARED_MODULE = 'lib-cors-shared-module';

/** esbuild's options for one output file of the staged package: the modules `home` gives to other files are required from them. */
function bundleOptions(outFile, home, staged) {
  return {
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    // Resolved by Node from the package's `imports` (the list, or its stand-in at the edge), never bundled.
    external: ['#public-suffix-list'],
    legalComments: 'none',
    // Not minified: an uncaught error prints its source line, and its stack frames point into
    // lines a reader can open (issue 46). Whitespace-minified, each file was one line, and an
    // option error printed that whole line.
    minifyWhitespace: false,
    logLevel: 'error',
    outfile: join(staged, 'dist', outFile),
    plugins: [
      {
        name: 'one-file-per-module',
        setup(builder) {
          builder.onResolve({ filter: /^\.\.?\// }, ({ path, importer, kind }) => {
            if (kind === 'entry-point' || importer === '' || !importer.startsWith(DIST)) return undefined;
            const target = relative(DIST, resolve(dirname(importer), path))
              .split('\\')
              .join('/');
            const file = home.get(target);
            if (file === undefined || file === outFile) return undefined;
            let from = posix.relative(posix.dirname(outFile), file);
            if (!from.startsWith('.')) from = `./${from}`;
            // An entry file is required as it is; a module in a shared file is one of its properties.
            if (file === target) return { path: from, external: true };
            return { path: target, namespace: SHARED_MODULE, pluginData: { from } };
          });
          builder.onLoad({ filter: /.*/, namespace: SHARED_MODULE }, ({ path, pluginData }) => ({
            contents: `module.exports = require(${JSON.stringify(pluginData.from)})[${JSON.stringify(path)}];`,
            loader: 'js',
          }));
          builder.onResolve({ filter: /.*/, namespace: SHARED_MODULE }, ({ path }) => ({ path, external: true }));
          // Node's own modules by their plain names: jest before 28 resolves no `node:` specifier.
          builder.onResolve({ filter: /^node:/ }, ({ path }) => ({ path: path.slice('node:'.length), external: true }));
        },
      },
    ],
  };
}

/** The CommonJS declaration files the exports name (their `types`), relative to dist/. */
function declarationEntries(manifest) {
  const named = pathsIn(manifest.exports).filter((path) => path.endsWith('.d.ts'));
  return [...new Set(named)].map((path) => path.replace(/^dist\//, ''));
}

/**
 * The declarations, bundled (rollup-plugin-dts): each entry's .d.ts keeps its path and what only it
 * declares, and the types several entries share live in dist/shared/types-*.d.ts, by rollup's own
 * chunking (one file per set of entries that use them), so a type has one identity whichever entry
 * a program imports it through (a class with private members from two copies would not be
 * assignable), and the CorsModule types, which import @lib/core and @lib/rest, stay in index.d.ts.
 * What no export reaches is left out. tsc's 29 files and the wrappers' .d.mts were 160 KB on disk
 * for 77 KB of text (a 4 KB block for each small file); bundled, 16 files and 96 KB.
 */
async function stageDeclarations(manifest, staged) {
  const input = Object.fromEntries(declarationEntries(manifest).map((file) => [file.replace(/\.d\.ts$/, ''), join(DIST, file)]));
  const bundle = await rollup({
    input,
    plugins: [dts()],
    // Only the package's own declarations are bundled: node:http, find-my-way, fastify... stay imports.
    external: (id) => !id.startsWith('.') && !isAbsolute(id),
    // No bare `import '@lib/core'` where no type of it is used: a fetch user has no @lib/core to resolve.
    treeshake: { moduleSideEffects: 'no-external' },
    onLog: (_level, log) => {
      // Types an entry's signatures use but no entry exports (CorsCore, TableRef...) stay unexported,
      // as they were in tsc's files, which the exports map kept out of reach.
      if (log.plugin === 'dts' && /private shared type exports/.test(log.message)) return;
      throw new Error(`bundling the declarations: ${log.message}`);
    },
  });
  await bundle.write({
    dir: join(staged, 'dist'),
    format: 'es',
    entryFileNames: '[name].d.ts',
    // No bare `import 'find-my-way'` for load order: declarations run nothing.
    hoistTransitiveImports: false,
    chunkFileNames: (chunk) => `shared/types-${chunk.name.replace(/\.d$/, '')}.d.ts`,
  });
  await bundle.close();
}

/**
 * What `#public-suffix-list` resolves to. In Node, Deno and Bun the list, gzipped (100 KB as text,
 * about 50 KB so; unpacked once, by the first policy with a sub-domain pattern, in about a
 * millisecond); elsewhere the stand-in that holds none, without its comments.
 */
async function stagePublicSuffixList(manifest, staged) {
  const targets = manifest.imports['#public-suffix-list'];
  const listFile = targets.node.replace(/^\.\/dist\//, '');
  const generated = readFileSync(join(DIST, listFile), 'utf8');
  const { rules } = createRequire(import.meta.url)(join(DIST, listFile));
  const source = /^\/\/ Generated by scripts\/public-suffix-list\.js from (.*)$/m.exec(generated)?.[1];
  if (typeof rules !== 'string' || source === undefined) throw new Error(`${listFile} is not what scripts/public-suffix-list.js writes`);
  const packed = gzipSync(rules, { level: 9 }).toString('base64');
  writeFile(
    join(staged, 'dist', listFile),
    `"use strict";\n// ${source} https://publicsuffix.org/ (Mozilla Public License 2.0), gzipped by scripts/pack.js.\nexports.rules = require("zlib").gunzipSync(Buffer.from(${JSON.stringify(packed)}, "base64")).toString();\n`,
  );
  const absentFile = targets.default.replace(/^\.\/dist\//, '');
  const { code } = await transform(readFileSync(join(DIST, absentFile), 'utf8'), { format: 'cjs', legalComments: 'none' });
  writeFile(join(staged, 'dist', absentFile), code);
}

/** src/cors staged for packing in `staged`: bundled JavaScript, the declarations, README, LICENSE and docs as they are. */
/**
 * For resolvers that read no `exports` map (jest before 28, TypeScript's `node` resolution, old
 * bundlers): a folder per subpath (`express/package.json`) naming its CommonJS file and types, and
 * `main` and `types` for the package itself. What `exports` gives `require()` is what they get.
 */
function stageLegacyResolution(manifest, staged) {
  const folders = [];
  for (const [subpath, conditions] of Object.entries(manifest.exports)) {
    const target = conditions.default;
    if (typeof target !== 'object' || typeof target.default !== 'string') continue;
    if (subpath === '.') {
      manifest.main = target.default;
      manifest.types = target.types;
      continue;
    }
    const folder = subpath.replace(/^\.\//, '');
    if (folder.includes('/') || !/\.js$/.test(target.default)) continue;
    const up = (path) => posix.join('..', path);
    writeFile(join(staged, folder, 'package.json'), `${JSON.stringify({ main: up(target.default), types: up(target.types) }, null, 2)}\n`);
    folders.push(`${folder}/package.json`);
  }
  manifest.files = [...manifest.files, ...folders];
  writeFile(join(staged, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

async function stageCors(staged) {
  const manifest = JSON.parse(readFileSync(join(CORS, 'package.json'), 'utf8'));
  const files = filesUnder(DIST);
  const wrappers = files.filter((file) => file.endsWith('.mjs'));
  const named = entryFiles(manifest, wrappers);
  for (const entry of named) if (!existsSync(join(DIST, entry))) throw new Error(`${entry} is not in src/cors/dist: run npm run build first`);
  const entries = rootFiles(named);
  const { home, sharedFiles } = planBundles(entries);

  for (const file of ['README.md', 'LICENSE', 'docs/errors.md']) cpSync(join(CORS, file), join(staged, file));
  stageLegacyResolution(manifest, staged);
  await stageDeclarations(manifest, staged);
  // The wrappers' shared list of names inlined into each (two small files fewer), and no comments.
  const commonWrapper = (extension) => readFileSync(join(DIST, `esm/common-exports${extension}`), 'utf8');
  for (const wrapper of files.filter((file) => /^esm\/(?!common-exports\.).*\.(d\.)?mts$|^esm\/(?!common-exports\.).*\.mjs$/.test(file))) {
    const extension = wrapper.endsWith('.d.mts') ? '.d.mts' : '.mjs';
    const inlined = readFileSync(join(DIST, wrapper), 'utf8').replace(`export * from './common-exports.mjs';`, () => commonWrapper(extension));
    if (extension === '.d.mts') {
      // The common names' types come through the wrapper's own entry, which exports them too: the
      // bundled declarations have no entry/common-exports.d.ts (a file and a 4 KB block fewer).
      const entry = /^export type \* from '([^']+)';$/m.exec(inlined)?.[1];
      if (entry === undefined) throw new Error(`${wrapper} does not start from its entry's types (export type * from ...)`);
      const declarations = inlined.replaceAll(`from '../entry/common-exports.js'`, `from '${entry}'`);
      writeFile(join(staged, 'dist', wrapper), declarations.replace(/^\/\/# sourceMappingURL=.*\n?/gm, ''));
      continue;
    }
    const { code } = await transform(inlined, { format: 'esm', legalComments: 'none' });
    writeFile(join(staged, 'dist', wrapper), code);
  }
  await stagePublicSuffixList(manifest, staged);
  for (const entry of entries) {
    await build({ ...bundleOptions(entry, home, staged), entryPoints: [join(DIST, entry)] });
  }
  for (const [file, modules] of sharedFiles) {
    // Each module behind a getter, so that it runs when first required, as it did unbundled.
    const getters = modules.map((module) => `  get ${JSON.stringify(module)}() { return require(${JSON.stringify(`./${module}`)}); },`);
    await build({
      ...bundleOptions(file, home, staged),
      stdin: { contents: `module.exports = {\n${getters.join('\n')}\n};\n`, resolveDir: DIST, loader: 'js' },
    });
  }
}

/**
 * A workspace as tsc built it, copied into `staged` with Node's own modules required by their
 * plain names (`require("http")`): jest before 28 resolves no `node:` specifier.
 */
function stagePlainSpecifiers(workspace, staged) {
  cpSync(workspace, staged, { recursive: true, filter: (source) => !source.includes(`${workspace}/node_modules`) });
  for (const file of filesUnder(join(staged, 'dist')).filter((name) => name.endsWith('.js'))) {
    const path = join(staged, 'dist', file);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/\brequire\("node:([a-z_/]+)"\)/g, 'require("$1")'));
  }
}

/**
 * `npm pack` of `folder` into `destination`: the tarball's path. @lib/cors's prepack refuses to run
 * without LIB_CORS_STAGED, so that `npm pack -w src/cors` or `npm publish` there cannot ship the
 * unbundled workspace.
 */
function npmPack(folder, destination) {
  const output = execFileSync('npm', ['pack', '--silent', '--pack-destination', destination, folder], {
    cwd: REPOSITORY,
    encoding: 'utf8',
    env: { ...process.env, LIB_CORS_STAGED: '1' },
  });
  return join(destination, output.trim().split('\n').at(-1));
}

/** `workspaces` (folders under src/) packed into `destination`, created if need be: the tarballs' paths. */
export async function pack(workspaces, destination) {
  mkdirSync(destination, { recursive: true });
  const tarballs = [];
  for (const workspace of workspaces) {
    if (workspace !== 'cors') {
      const copy = mkdtempSync(join(tmpdir(), `lib-${workspace}-pack-`));
      try {
        stagePlainSpecifiers(join(REPOSITORY, 'src', workspace), copy);
        tarballs.push(npmPack(copy, resolve(destination)));
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
      continue;
    }
    // A folder of its own per run: the packaging tests pack side by side.
    const staged = mkdtempSync(join(tmpdir(), 'lib-cors-pack-'));
    try {
      await stageCors(staged);
      tarballs.push(npmPack(staged, resolve(destination)));
    } finally {
      rmSync(staged, { recursive: true, force: true });
    }
  }
  return tarballs;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [destination, ...workspaces] = process.argv.slice(2);
  if (destination === undefined) {
    console.error('usage: node scripts/pack.js <destination> [core rest cors]');
    process.exit(2);
  }
  for (const tarball of await pack(workspaces.length > 0 ? workspaces : ['core', 'rest', 'cors'], destination)) console.log(tarball);
}
