import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Compiled into build/test/helpers/: the repository is three levels up.
export const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));

export interface ScratchApp {
  readonly dir: string;
  /** Runs a command in the app's folder; its standard output. */
  run(command: string, args: readonly string[]): string;
  remove(): void;
}

/**
 * `packages` (workspace folders under src/, as built by `npm run build`) packed into `dir` as the
 * README's `npm run pack` packs them (scripts/pack.js: @lib/cors's JavaScript bundled): the
 * tarballs' paths.
 */
export function pack(packages: readonly string[], dir: string): string[] {
  // Without tap's coverage hooks: the script is a build tool, not the package.
  const output = execFileSync('env', ['-u', 'NODE_OPTIONS', process.execPath, join(REPOSITORY, 'scripts/pack.js'), dir, ...packages], {
    cwd: REPOSITORY,
    encoding: 'utf8',
  });
  return output.trim().split('\n');
}

/**
 * A new app in a temporary folder outside the repository, with `packages` (workspace folders
 * under src/, as built by `npm run build`) packed by npm and installed from their tarballs, and
 * `extra` from the registry, as a user would. The app is an ES module one, or a copy of the
 * folder `from` (relative to the repository, with its own package.json).
 */
export function appWithTarballs(name: string, packages: readonly string[], extra: readonly string[] = [], from?: string): ScratchApp {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  if (from !== undefined) cpSync(join(REPOSITORY, from), dir, { recursive: true });
  const tarballs = pack(packages, dir);
  if (from === undefined) writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs, ...extra], { cwd: dir, stdio: 'pipe' });
  return {
    dir,
    // Without tap's coverage hooks, which it adds to every child process's NODE_OPTIONS: the
    // app runs as it would outside the test (typescript's ESM tsc fails under them).
    run: (command, args) => execFileSync('env', ['-u', 'NODE_OPTIONS', command, ...args], { cwd: dir, encoding: 'utf8' }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
