/**
 * `npm run soak` (3 minutes) or `npm run soak -- --seconds N`: the full stack (the host with
 * CorsModule) under autocannon at full speed with every request kind mixed, hostile ones
 * included. Fails on any error or unexpected status, and reports RSS and heap (after a full
 * collection) at the start and the end; writes bench/SOAK.md unless --no-write.
 */
import { writeFileSync } from 'node:fs';

import autocannon from 'autocannon';

import { probe, startServer } from './child.js';
import { ALLOWED_ORIGIN } from './servers/policy.js';

const argument = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
};
const seconds = Number(argument('--seconds') ?? 180);
const write = !process.argv.includes('--no-write');

// Every request kind of docs/CONTRACT.md section 3, plus refusals and hostile input: all answered 2xx by design.
const requests = [
  {
    method: 'OPTIONS',
    path: '/users/1',
    headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' },
  },
  { method: 'GET', path: '/users/1', headers: { origin: ALLOWED_ORIGIN } },
  { method: 'OPTIONS', path: '/posts' },
  { method: 'OPTIONS', path: '/posts', headers: { origin: ALLOWED_ORIGIN } },
  { method: 'GET', path: '/posts/9/comments' },
  { method: 'GET', path: '/users', headers: { origin: 'https://evil.example' } },
  { method: 'OPTIONS', path: '/users', headers: { origin: 'null', 'access-control-request-method': 'POST' } },
  {
    method: 'OPTIONS',
    path: '/users',
    headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': `${'x-a,'.repeat(200)}x-b` },
  },
  { method: 'POST', path: '/users?x=1', headers: { origin: ALLOWED_ORIGIN, 'content-type': 'application/json' }, body: '{}' },
] as const;

const { child, url } = await startServer(new URL('servers/module.js', import.meta.url));
const memory = () => probe(child, 'memory');

try {
  const warmUp = await autocannon({ url, requests: [...requests], connections: 20, duration: 2 });
  const start = await memory();
  const result = await autocannon({ url, requests: [...requests], connections: 50, duration: seconds });
  const end = await memory();
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    seconds,
    requests: result.requests.total + warmUp.requests.total,
    perSecond: Math.round(result.requests.average),
    errors: result.errors + warmUp.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx + warmUp.non2xx,
    rssMB: [mb(start.rss), mb(end.rss)],
    heapMB: [mb(start.heapUsed), mb(end.heapUsed)],
  };
  console.log(JSON.stringify(report));
  if (write) {
    writeFileSync(
      new URL('../../bench/SOAK.md', import.meta.url),
      `# Soak report\n\n\`npm run soak\`: the host with CorsModule, ${requests.length} request kinds mixed (preflights, actual and plain requests, refused and hostile ones), 50 connections.\n\n| date | Node | seconds | requests | requests/s | errors | non-2xx | RSS start -> end (MB) | heap start -> end (MB, after GC) |\n|---|---|---:|---:|---:|---:|---:|---|---|\n| ${report.date.slice(0, 10)} | ${report.node} | ${seconds} | ${report.requests} | ${report.perSecond} | ${report.errors} | ${report.non2xx} | ${report.rssMB.join(' -> ')} | ${report.heapMB.join(' -> ')} |\n\nThe heap after a full collection is what a leak would grow; RSS also holds socket buffers and allocator pools that Node keeps once it has them, so it rises under load and then stays.\n`,
    );
  }
  if (report.errors > 0 || report.non2xx > 0 || report.timeouts > 0) {
    console.error('soak failed: errors, timeouts or unexpected statuses');
    process.exitCode = 1;
  }
} finally {
  child.kill();
}
