/**
 * `npm run bench`: the timed benchmarks, quick (under 5 minutes) or `-- --full` (about 55
 * minutes); `-- --instructions`: instructions per request under callgrind (about 13 minutes);
 * `-- --startup`: start-up and memory as the route table grows (about 25 minutes);
 * `-- --settled-heap`: each entry point's heap against its framework's own CORS, after the first
 * answer and after more requests (a few minutes); `-- --footprint`: bundle, cold start and install
 * against find-my-way alone (about a minute); `-- --reconfigure`: reconfigure() against building
 * the engine, at 10 to 100,000 routes; `-- --channels`: instructions per request with and without
 * a decision subscriber. Each writes its own section of bench/RESULTS.md and its chart. Installs
 * the peers first, and the runtimes (scripts/runtimes.js) the timed mode runs hono on. `-- --next`:
 * @lib/cors/next under `next start` against hand-written headers and nextjs-cors (bench/next.ts).
 * `-- --fleet`: the origin store on real Redis and PostgreSQL, convergence across 4 instances and
 * instructions per request against a static list (bench/fleet.ts, a few minutes).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { countChannels } from './channels.js';
import { measureFootprint } from './footprint.js';
import { measureFleet } from './fleet.js';
import { countInstructions } from './instructions.js';
import { measureReconfigure } from './reconfigure.js';
import { benchDir } from './scenarios.js';
import { measureNext } from './next.js';
import { measureSettledHeap } from './settled-heap.js';
import { measureStartup } from './startup.js';
import { timeServers } from './timed.js';

/** Whether bench/node_modules holds every package of bench/package-lock.json, at its version. */
function peersInstalled(): boolean {
  const installed = new URL('node_modules/.package-lock.json', benchDir);
  if (!existsSync(installed)) return false;
  type Lock = { packages: Record<string, { version?: string; optional?: boolean }> };
  const wanted = (JSON.parse(readFileSync(new URL('package-lock.json', benchDir), 'utf8')) as Lock).packages;
  const have = (JSON.parse(readFileSync(installed, 'utf8')) as Lock).packages;
  return Object.entries(wanted).every(([path, entry]) => path === '' || entry.optional === true || have[path]?.version === entry.version);
}

/** The peers' dependencies live in bench/package.json, installed here on first use and whenever its lock changes. */
function ensurePeers(): void {
  if (peersInstalled()) return;
  console.log('installing the peers (bench/package.json)...');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: fileURLToPath(benchDir), stdio: 'inherit' });
}

ensurePeers();
execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/runtimes.js', benchDir))], { stdio: 'inherit' });
if (process.argv.includes('--instructions')) await countInstructions();
else if (process.argv.includes('--startup')) await measureStartup();
else if (process.argv.includes('--settled-heap')) await measureSettledHeap();
else if (process.argv.includes('--footprint')) await measureFootprint();
else if (process.argv.includes('--reconfigure')) await measureReconfigure();
else if (process.argv.includes('--channels')) await countChannels();
else if (process.argv.includes('--next')) await measureNext();
else if (process.argv.includes('--fleet')) await measureFleet();
else await timeServers(process.argv.includes('--full'));
