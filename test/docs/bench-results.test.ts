/**
 * Issue 46's shape of bench/RESULTS.md, kept as a guard: where each target stands on its first
 * screen, then the generated figures, at most 500 lines in all; what the figures were read to
 * mean lives in bench/ANALYSES.md, and the history of rounds in git.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import t from 'tap';

import { REPOSITORY } from '../helpers/packing.js';

const lines = readFileSync(join(REPOSITORY, 'bench/RESULTS.md'), 'utf8').split('\n');

t.test('bench/RESULTS.md opens with where the targets stand, then the generated figures, in at most 500 lines', async (t) => {
  t.ok(lines.length <= 500, `${lines.length} lines`);
  t.ok(lines.indexOf('## Where the targets stand') < 15, 'the targets on the first screen');
  const firstGenerated = lines.findIndex((line) => line.startsWith('<!-- begin '));
  t.ok(firstGenerated > 0 && firstGenerated < 60, `the generated figures from line ${firstGenerated + 1}`);
  const lastGenerated = lines.findLastIndex((line) => line.startsWith('<!-- end '));
  t.same(
    lines.slice(lastGenerated + 1).filter((line) => line.startsWith('## ')),
    [],
    'no section of hand-kept notes after the figures (bench/ANALYSES.md holds them)',
  );
});
