/**
 * `npm run soak` (10 minutes) or `npm run soak -- --seconds N`: the full stack (the host with
 * CorsModule) under autocannon as fast as the machine goes (50 keep-alive connections, no rate
 * limit), ordinary requests of every kind with 1% hostile ones mixed in. Fails on any error,
 * timeout or unexpected status, on a socket the server still holds after the load has gone, and on
 * a resident memory line that is not flat; writes bench/SOAK.md unless --no-write.
 *
 * Checks:
 * - errors, timeouts and non-2xx answers: 0 (every request below is answered 2xx by design,
 *   refusals included: a refused CORS request is a 2xx without the grant);
 * - sockets: the server process's open sockets (/proc/<pid>/fd), counted once the warm-up's
 *   connections are closed and again once the soak's are, must be as many: none left hanging;
 * - RSS: read from /proc/<pid>/status every 10 s (no collection forced, nothing asked of the
 *   server), with V8's young generation fixed at its default largest size (FIXED_YOUNG_GENERATION); after
 *   the first RSS_SETTLE_S seconds, while node:http's pools fill, it must stay within RSS_FLAT of its
 *   settled median. The heap after a full collection is read at the start and the
 *   end, what a leak would grow.
 */
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';

import autocannon from 'autocannon';

import { FIXED_YOUNG_GENERATION, probe, startServer } from './child.js';
import { ALLOWED_ORIGIN } from './servers/policy.js';

const argument = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
};
const seconds = Number(argument('--seconds') ?? 600);
const write = !process.argv.includes('--no-write');
const CONNECTIONS = 50;
/** Every how many seconds RSS is read. */
const SAMPLE_S = 10;
/** RSS grows while node:http's pools and V8's heap settle: the flatness check starts after this. */
const RSS_SETTLE_S = Math.min(120, Math.round(seconds / 5));
/** Flat: every settled sample within this share of the settled samples' median. */
const RSS_FLAT = 0.1;

// Every ordinary request kind of docs/CONTRACT.md section 3, all answered 2xx.
const ordinary = [
  {
    method: 'OPTIONS',
    path: '/users/1',
    headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' },
  },
  { method: 'GET', path: '/users/1', headers: { origin: ALLOWED_ORIGIN } },
  { method: 'OPTIONS', path: '/posts' },
  { method: 'OPTIONS', path: '/posts', headers: { origin: ALLOWED_ORIGIN } },
  { method: 'GET', path: '/posts/9/comments' },
  { method: 'POST', path: '/users?x=1', headers: { origin: ALLOWED_ORIGIN, 'content-type': 'application/json' }, body: '{}' },
] as const;

// Hostile ones: refused and malformed origins, lookalike origins, an oversized header list, a method the path lacks
// with header names that are no tokens. Each is refused (a 2xx without the grant), never an error.
const hostile = [
  { method: 'GET', path: '/users', headers: { origin: 'https://evil.example' } },
  { method: 'OPTIONS', path: '/users', headers: { origin: 'null', 'access-control-request-method': 'POST' } },
  {
    method: 'OPTIONS',
    path: '/users',
    headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': `${'x-a,'.repeat(200)}x-b` },
  },
  { method: 'OPTIONS', path: '/users/1', headers: { origin: `${ALLOWED_ORIGIN}.evil.example`, 'access-control-request-method': 'PUT' } },
  {
    method: 'OPTIONS',
    path: '/posts',
    headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'x-a b,(c),x-d' },
  },
] as const;

/** Each connection sends this cycle over and over: each hostile request after 99 ordinary ones, so 1% are hostile. */
const cycle: autocannon.Request[] = [];
for (const bad of hostile) {
  for (let index = 0; index < 99; index++) cycle.push({ ...ordinary[cycle.length % ordinary.length]! });
  cycle.push({ ...bad });
}
const hostileShare = hostile.length / cycle.length;

const { child, url } = await startServer(new URL('servers/module.js', import.meta.url), {}, [], { nodeFlags: FIXED_YOUNG_GENERATION });
const pid = child.pid!;
const memory = () => probe(child, 'memory');
const rssNow = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
/** The server's open sockets; an fd closed between the listing and its readlink() is not open. */
const sockets = () =>
  readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;
/** The server's sockets once the client's connections have gone: polled, as closes reach it a little after. */
async function settledSockets(baseline?: number): Promise<number> {
  let count = sockets();
  for (let waited = 0; waited < 5000 && (baseline === undefined ? waited < 1000 : count > baseline); waited += 250) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    count = sockets();
  }
  return count;
}
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

try {
  const warmUp = await autocannon({ url, requests: cycle, connections: 20, duration: 5 });
  const socketsBefore = await settledSockets();
  const start = await memory();
  const samples: { at: number; rss: number }[] = [{ at: 0, rss: rssNow() }];
  const startedAt = Date.now();
  const sampler = setInterval(() => samples.push({ at: Math.round((Date.now() - startedAt) / 1000), rss: rssNow() }), SAMPLE_S * 1000);
  let result: autocannon.Result;
  try {
    result = await autocannon({ url, requests: cycle, connections: CONNECTIONS, duration: seconds });
  } finally {
    clearInterval(sampler);
  }
  samples.push({ at: Math.round((Date.now() - startedAt) / 1000), rss: rssNow() });
  const socketsAfter = await settledSockets(socketsBefore);
  const end = await memory();

  const settled = samples.filter((sample) => sample.at >= RSS_SETTLE_S).map((sample) => sample.rss);
  const settledMedian = [...settled].sort((a, b) => a - b)[Math.floor(settled.length / 2)] ?? 0;
  const furthest = Math.max(...settled.map((rss) => Math.abs(rss / settledMedian - 1)));
  // A run shorter than the settling time (the test's few seconds) has no line to judge: the
  // flatness is the long run's check, reported as not judged rather than failed.
  const rssJudged = settled.length > 1;
  const rssFlat = !rssJudged || furthest <= RSS_FLAT;
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    seconds,
    connections: CONNECTIONS,
    requests: result.requests.total,
    perSecond: Math.round(result.requests.average),
    hostileShare,
    errors: result.errors + warmUp.errors,
    timeouts: result.timeouts + warmUp.timeouts,
    non2xx: result.non2xx + warmUp.non2xx,
    sockets: [socketsBefore, socketsAfter],
    rssMB: samples.map((sample) => [sample.at, mb(sample.rss)]),
    rssSettledMedianMB: mb(settledMedian),
    rssFurthestFromMedian: rssJudged ? `${(furthest * 100).toFixed(1)}%` : 'not judged (shorter than the settling time)',
    heapMB: [mb(start.heapUsed), mb(end.heapUsed)],
  };
  console.log(JSON.stringify(report));
  const failures = [
    report.errors > 0 || report.timeouts > 0 || report.non2xx > 0 ? 'errors, timeouts or unexpected statuses' : '',
    socketsAfter > socketsBefore ? `${socketsAfter - socketsBefore} sockets left open in the server` : '',
    rssFlat ? '' : `RSS not flat: a sample ${report.rssFurthestFromMedian} from the settled median (allowed ${RSS_FLAT * 100}%)`,
  ].filter((failure) => failure !== '');
  if (write) {
    const perMinute = samples.filter((sample, index) => sample.at % 60 < SAMPLE_S || index === samples.length - 1);
    writeFileSync(
      new URL('../../bench/SOAK.md', import.meta.url),
      [
        '# Soak report',
        '',
        `\`npm run soak\` (bench/soak.ts): the host with CorsModule under autocannon with ${CONNECTIONS} keep-alive connections and no rate limit, as fast as the machine answers (autocannon and the server share its cores), for ${seconds} s after a ${5} s warm-up. Every connection sends the same cycle of ${cycle.length} requests: the ${ordinary.length} ordinary kinds in turn, each of the ${hostile.length} hostile ones (a refused origin, \`null\`, a lookalike origin, 201 requested header names, a method the path lacks with header names that are no tokens) after 99 of them: ${(hostileShare * 100).toFixed(1)}% hostile. Every request is answered 2xx by design (a refusal is a 2xx without the grant).`,
        '',
        `Checks: no error, timeout or non-2xx answer; as many sockets open in the server once the soak's connections are closed as once the warm-up's were (counted in /proc/<pid>/fd); RSS, read every ${SAMPLE_S} s from /proc without forcing a collection (the server runs with \`${FIXED_YOUNG_GENERATION.join(' ')}\`: V8 otherwise grows and shrinks its young generation with the allocation rate, in steps of megabytes), within ${RSS_FLAT * 100}% of its median from ${RSS_SETTLE_S} s on, while node:http's pools settle before that. The heap after a full collection, at the start and the end, is what a leak would grow.`,
        '',
        '| date | Node | seconds | requests | requests/s | hostile | errors | timeouts | non-2xx | server sockets before -> after | RSS settled median (MB) | furthest sample from it | heap start -> end (MB, after GC) | result |',
        '|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---|',
        `| ${report.date.slice(0, 10)} | ${report.node} | ${seconds} | ${report.requests} | ${report.perSecond} | ${(hostileShare * 100).toFixed(1)}% | ${report.errors} | ${report.timeouts} | ${report.non2xx} | ${socketsBefore} -> ${socketsAfter} | ${report.rssSettledMedianMB} | ${report.rssFurthestFromMedian} | ${report.heapMB.join(' -> ')} | ${failures.length === 0 ? 'passed' : `failed: ${failures.join('; ')}`} |`,
        '',
        '### RSS over the run (MB, about once a minute)',
        '',
        `| ${perMinute.map((sample) => `${sample.at} s`).join(' | ')} |`,
        `|${perMinute.map(() => '---:').join('|')}|`,
        `| ${perMinute.map((sample) => mb(sample.rss)).join(' | ')} |`,
        '',
      ].join('\n'),
    );
  }
  if (failures.length > 0) {
    console.error(`soak failed: ${failures.join('; ')}`);
    process.exitCode = 1;
  }
} finally {
  child.kill();
}
