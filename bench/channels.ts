/**
 * `npm run bench -- --channels`: what the `lib-cors:decision` channel costs a request, counted by
 * callgrind as `--instructions` counts: the standalone server's preflight and GET with Origin with
 * nobody subscribed, and with a no-op subscriber. With BENCH_BASE (a clone of another commit,
 * built), that clone's standalone server is counted beside them: the issue's "nothing is built
 * when nobody subscribes" is that server's count against ours without a subscriber. Every server
 * is counted once per round, in an order that alternates from round to round, so the rounds show
 * the noise. Writes its section of bench/RESULTS.md.
 */
import { execFileSync } from 'node:child_process';

import { countServer, valgrindVersion, type Count } from './instructions.js';
import { machineLine, percent, thousands, writeResultsSection } from './report.js';
import { channelServers, scenarioNamed, type Server } from './scenarios.js';

const SCENARIOS = [scenarioNamed('preflight'), scenarioNamed('GET with Origin')];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** Requests per counted window (BENCH_WINDOW): 1,000 as `--instructions` counts; windows of 1,000 lie about 1% apart, so a 0.5% question wants longer ones. */
const WINDOW = Number(process.env.BENCH_WINDOW ?? 1000);

const signed = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(2)}%`;

/** The commit a clone has checked out, to name it in the report. */
function commitOf(dir: string): string {
  try {
    return execFileSync('git', ['-C', dir, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown commit';
  }
}

export async function countChannels(): Promise<void> {
  const valgrind = await valgrindVersion();
  const startedAt = Date.now();
  const { base, without, with: subscribed } = channelServers();
  const list: Server[] = [...(base === undefined ? [] : [base]), without, subscribed];
  // counts[round].get(server name).get(scenario name)
  const counts: Map<string, Map<string, Count | string>>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? list : [...list].reverse();
    const these = new Map<string, Map<string, Count | string>>();
    for (const server of order) these.set(server.name, await countServer(server, SCENARIOS, { window: WINDOW }));
    counts.push(these);
  }
  const here = commitOf(process.cwd());
  const baseCommit = base === undefined ? undefined : commitOf(process.env.BENCH_BASE!.trim());
  const lines = [
    '## The decision channel: instructions per request with and without a subscriber',
    '',
    `${machineLine()}, ${valgrind}; commit ${here}${baseCommit === undefined ? '' : `, and ${baseCommit} (BENCH_BASE) beside it`}; counted as \`--instructions\` counts (5,000 warm-up requests per scenario, then windows of ${WINDOW.toLocaleString('en')} until 3 lie within 1%, else the median of the later half of 8); ${ROUNDS} rounds, every server once per round, in alternating order; ${Math.round((Date.now() - startedAt) / 1000)} s in all.`,
    '',
    'The standalone server of `--instructions` without a subscriber on `lib-cors:decision` ("none"), and with a no-op one (servers/subscribed.ts: every decision is built and published, and dropped). "with / none" is the subscriber\'s cost per request; ' +
      (base === undefined
        ? 'no BENCH_BASE was given, so no earlier commit is counted.'
        : `"none / ${baseCommit}" compares the server without a subscriber with the same server built at ${baseCommit}, before the channels: the issue asks for it within 0.5%.`),
    '',
    `| scenario | round | ${base === undefined ? '' : `${baseCommit} | `}none | with a subscriber | with / none |${base === undefined ? '' : ` none / ${baseCommit} |`} spread (${base === undefined ? '' : `${baseCommit}, `}none, with) |`,
    `|---|---:|${base === undefined ? '' : '---:|'}---:|---:|---:|${base === undefined ? '' : '---:|'}---|`,
  ];
  const value = (count: Count | string | undefined) => (typeof count === 'object' ? count : undefined);
  for (const scenario of SCENARIOS) {
    for (const [round, these] of counts.entries()) {
      const [b, n, w] = [base, without, subscribed].map((server) => (server === undefined ? undefined : these.get(server.name)?.get(scenario.name)));
      const [vb, vn, vw] = [value(b), value(n), value(w)];
      const show = (count: Count | string | undefined) => (count === undefined ? 'n/a' : typeof count === 'string' ? count : thousands(count.perRequest));
      const cells = [
        scenario.name,
        String(round + 1),
        ...(base === undefined ? [] : [show(b)]),
        show(n),
        show(w),
        vn !== undefined && vw !== undefined ? signed(vw.perRequest / vn.perRequest - 1) : '',
        ...(base === undefined ? [] : [vb !== undefined && vn !== undefined ? signed(vn.perRequest / vb.perRequest - 1) : '']),
        [...(base === undefined ? [] : [vb]), vn, vw].map((count) => (count === undefined ? '' : percent(count.spread))).join(', '),
      ];
      lines.push(`| ${cells.join(' | ')} |`);
    }
  }
  const report = lines.join('\n');
  console.log(`\n${report}`);
  writeResultsSection('channels', report);
}
