/**
 * Every TypeScript snippet of the READMEs and docs/ is a program a user could paste: each is
 * written into `src/` of a scratch project, type-checked under the tsconfig that
 * docs/cors-module.md gives users (strict, `rootDir: "src"`), on the repository's TypeScript (the
 * one the docs name), and run when it is a program that ends by itself (no server). A line
 * `console.log(...); // text` says what it prints, and the run must print it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import t from 'tap';

import { REPOSITORY } from '../helpers/packing.js';

interface Snippet {
  readonly where: string;
  readonly language: string;
  readonly code: string;
}

/** The documents users read: the READMEs (each package's too) and the guides. */
function documents(): string[] {
  const docs = readdirSync(join(REPOSITORY, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  const packages = readdirSync(join(REPOSITORY, 'src')).map((name) => `src/${name}/README.md`);
  return ['README.md', ...docs, ...packages];
}

function snippetsOf(path: string): Snippet[] {
  const text = readFileSync(join(REPOSITORY, path), 'utf8');
  const found: Snippet[] = [];
  for (const match of text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
    const line = text.slice(0, match.index).split('\n').length;
    found.push({ where: `${path}:${line}`, language: match[1]!, code: match[2]! });
  }
  return found;
}

const all = documents().flatMap(snippetsOf);
/** src/cors/README.md is made from docs/: a snippet is checked once, where it is first found. */
const typescript = all.filter((s, index) => s.language === 'ts' && all.findIndex((other) => other.code === s.code) === index);
const tsconfig = all.find((s) => s.language === 'json' && s.where.startsWith('docs/cors-module.md'));

/** A program that serves (or is served) never ends by itself: it is type-checked, not run. */
const serves = (code: string) => /\.listen\(|\bserve\(|^export default/m.test(code);

/** The runtimes' own globals, as far as the snippets use them (their packages' types are not installed). */
const RUNTIME_GLOBALS = `
declare const Deno: { serve(handler: (request: Request) => Response | Promise<Response>): unknown };
declare const Bun: { serve(options: { fetch(request: Request): Response | Promise<Response> }): unknown };
`;

t.test('the documents hold TypeScript snippets and the users tsconfig', async (t) => {
  t.ok(typescript.length >= 10, `${typescript.length} TypeScript snippets`);
  t.ok(tsconfig, 'docs/cors-module.md gives a tsconfig');
  t.match(JSON.parse(tsconfig!.code), { compilerOptions: { strict: true, rootDir: 'src' } });
});

t.test('each TypeScript snippet type-checks under the documented tsconfig, and the ones that end run', { timeout: 240_000 }, async (t) => {
  // Inside the repository, so `@lib/*` and the frameworks resolve from its node_modules as they
  // would from a user's.
  mkdirSync(join(REPOSITORY, 'build'), { recursive: true });
  const project = mkdtempSync(join(REPOSITORY, 'build', 'snippets-'));
  t.teardown(() => rmSync(project, { recursive: true, force: true }));
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(project, 'tsconfig.json'), tsconfig!.code);
  writeFileSync(join(project, 'src', 'runtime-globals.d.ts'), RUNTIME_GLOBALS);
  const files = typescript.map((snippet, index) => {
    const name = `snippet-${String(index).padStart(2, '0')}`;
    // Each file is a module of its own, as each snippet would be in a user's project.
    writeFileSync(join(project, 'src', `${name}.ts`), `// ${snippet.where}\n${snippet.code}\nexport {};\n`);
    return { name, snippet };
  });

  // Without tap's coverage hooks, which it adds to every child's NODE_OPTIONS (tsc fails under them).
  const withoutHooks = (file: string, ...args: string[]) => spawnSync('env', ['-u', 'NODE_OPTIONS', process.execPath, file, ...args], { encoding: 'utf8' });
  const tsc = withoutHooks(join(REPOSITORY, 'node_modules/typescript/bin/tsc'), '-p', project);
  const errors = tsc.stdout.split('\n').filter((line) => line.includes('error TS'));
  for (const { name, snippet } of files) {
    const own = errors.filter((line) => line.startsWith(`src/${name}.ts`));
    t.same(own, [], `${snippet.where} type-checks`);
  }
  t.equal(tsc.status, 0, tsc.stdout);

  for (const { name, snippet } of files) {
    if (serves(snippet.code)) continue;
    const run = withoutHooks(join(project, 'dist', `${name}.js`));
    t.equal(run.status, 0, `${snippet.where} runs: ${run.stderr}`);
    const output = run.stdout;
    for (const [, printed] of snippet.code.matchAll(/console\.log\(.*\); \/\/ (.+)$/gm)) {
      t.ok(output.includes(printed!.trim()), `${snippet.where} prints ${printed}`);
    }
  }
});
