// Installs the runtimes test/runtimes and the benchmarks run on (Deno, Bun, workerd and wrangler,
// scripts/runtimes/package.json) unless scripts/runtimes/node_modules already holds every version
// its lock names. They are 420 MB, so they stay out of the repository's devDependencies: building
// from source (`npm install && npm run build`, what the README's install section runs) does not
// fetch them. `npm test` runs this before tap starts.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const folder = new URL('runtimes/', import.meta.url);
const read = (path) => JSON.parse(readFileSync(new URL(path, folder), 'utf8')).packages;

function installed() {
  if (!existsSync(new URL('node_modules/.package-lock.json', folder))) return false;
  const have = read('node_modules/.package-lock.json');
  return Object.entries(read('package-lock.json')).every(([path, entry]) => path === '' || entry.optional === true || have[path]?.version === entry.version);
}

if (!installed()) {
  console.log('Installing the runtimes for the test suites: Deno, Bun, workerd, wrangler (scripts/runtimes, 420 MB, once)');
  // npm install, not npm ci: as at the root, the lock lists only the Linux builds of the packages
  // that ship one binary per platform.
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: fileURLToPath(folder), stdio: 'inherit' });
}
