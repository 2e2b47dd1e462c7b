/**
 * The short version of `npm run soak`: a few seconds of every request kind mixed, at full speed.
 * Nothing here depends on how fast the machine is: a busy machine serves fewer requests in the
 * same seconds, so the counts are checked for what went wrong (errors, unexpected statuses), not
 * for how many there were, and the heap is held to what this same run served.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import t from 'tap';

/**
 * What two probes of a collected heap may differ by with no leak at all: the up to 50 sockets
 * not yet closed when one is taken, code the JIT compiled in between, the 0.1 MB rounding.
 */
const HEAP_SLACK_MB = 2;
/**
 * What a request may leave behind on average: one pointer. Anything a leak keeps costs a pointer
 * to it plus itself (a short string kept per request measured 84 bytes a request).
 */
const BYTES_PER_REQUEST = 8;

t.test('a short soak: no error, no unexpected status, no heap growth for the requests served', async (t) => {
  const script = fileURLToPath(new URL('../bench/soak.js', import.meta.url));
  const soak = spawnSync(process.execPath, [script, '--seconds', '3', '--no-write'], { encoding: 'utf8' });
  const report = JSON.parse(soak.stdout.trim().split('\n').at(-1)!) as {
    seconds: number;
    requests: number;
    perSecond: number;
    errors: number;
    non2xx: number;
    timeouts: number;
    heapMB: [string, string];
  };
  t.equal(soak.status, 0, `the soak itself passed${soak.stderr.trim() === '' ? '' : `: ${soak.stderr.trim()}`}`);
  // Served at all, at whatever rate the machine allowed (there is no minimum rate to meet).
  const measured = report.perSecond * report.seconds;
  t.ok(measured > 0, `${report.requests} requests served, about ${measured} of them between the two heap probes`);
  t.equal(report.errors, 0);
  t.equal(report.non2xx, 0);
  // autocannon's timeout is 10 s a request, thousands of times what one takes even on a loaded
  // machine: a timeout here is a request the server never answered, not a slow one.
  t.equal(report.timeouts, 0);
  // The heap after a full collection, at the start and the end of the measured run, against the
  // requests that run served: a busy machine serves fewer and so may grow less, never more.
  const [start, end] = report.heapMB.map(Number) as [number, number];
  const allowed = HEAP_SLACK_MB + (measured * BYTES_PER_REQUEST) / 1024 / 1024;
  t.ok(
    end - start <= allowed,
    `heap after GC: ${start} MB -> ${end} MB over ${measured} requests (at most ${allowed.toFixed(1)} MB: ${HEAP_SLACK_MB} MB + ${BYTES_PER_REQUEST} bytes a request)`,
  );
});
