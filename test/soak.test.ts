/** The short version of `npm run soak`: a few seconds of every request kind mixed, at full speed. */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import t from 'tap';

t.test('a short soak: no error, no unexpected status, no heap growth', async (t) => {
  const script = fileURLToPath(new URL('../bench/soak.js', import.meta.url));
  const output = execFileSync(process.execPath, [script, '--seconds', '3', '--no-write'], { encoding: 'utf8' });
  const report = JSON.parse(output.trim().split('\n').at(-1)!) as { requests: number; errors: number; non2xx: number; timeouts: number; heapMB: [string, string] };
  t.ok(report.requests > 1000, `${report.requests} requests served`);
  t.equal(report.errors, 0);
  t.equal(report.timeouts, 0);
  t.equal(report.non2xx, 0);
  const [start, end] = report.heapMB.map(Number);
  t.ok(end! - start! < 5, `heap after GC: ${start} MB -> ${end} MB`);
});
