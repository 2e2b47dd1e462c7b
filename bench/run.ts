/**
 * `npm run bench`: the timed benchmarks, quick (under 3 minutes) or `-- --full` (about 28
 * minutes); `-- --instructions`: instructions per request under callgrind (about 10 minutes).
 * Each writes its own section of bench/RESULTS.md and its chart. Installs the peers first.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { countInstructions } from './instructions.js';
import { benchDir } from './scenarios.js';
import { timeServers } from './timed.js';

/** The peers' dependencies live in bench/package.json, installed here on first use. */
function ensurePeers(): void {
  if (existsSync(new URL('node_modules/.package-lock.json', benchDir))) return;
  console.log('installing the peers (bench/package.json)...');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: fileURLToPath(benchDir), stdio: 'inherit' });
}

ensurePeers();
if (process.argv.includes('--instructions')) await countInstructions();
else await timeServers(process.argv.includes('--full'));
