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
const show = (count: Count | string | undefined) => (count === undefined ? 'n/a' : typeof count === 'string' ? count : thousands(count.perRequest));

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
  const { base, baseWith, without, with: subscribed } = channelServers();
  const list: Server[] = [...(base === undefined ? [] : [base]), without, ...(baseWith === undefined ? [] : [baseWith]), subscribed];
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
  // The columns: each server's count, the ratios between them, and their spreads; the base's only with BENCH_BASE.
  const labelled = [
    { server: base, label: `${baseCommit}` },
    { server: without, label: 'none' },
    { server: baseWith, label: `${baseCommit} with a subscriber` },
    { server: subscribed, label: 'with a subscriber' },
  ].filter((column): column is { server: Server; label: string } => column.server !== undefined);
  type Reading = (server: Server) => Count | string | undefined;
  const value = (count: Count | string | undefined) => (typeof count === 'object' ? count : undefined);
  const ratio = (heading: string, over: Server | undefined, under: Server | undefined) =>
    over === undefined || under === undefined
      ? []
      : [
          {
            heading,
            cell: (read: Reading) => {
              const [a, b] = [value(read(over)), value(read(under))];
              return a === undefined || b === undefined ? '' : signed(a.perRequest / b.perRequest - 1);
            },
          },
        ];
  const columns: { heading: string; cell: (read: Reading) => string }[] = [
    ...labelled.map(({ server, label }) => ({ heading: label, cell: (read: Reading) => show(read(server)) })),
    ...ratio('with / none', subscribed, without),
    ...ratio(`none / ${baseCommit}`, without, base),
    ...ratio(`with / ${baseCommit} with`, subscribed, baseWith),
    {
      heading: `spread (${labelled.map(({ label }) => label).join(', ')})`,
      cell: (read: Reading) =>
        labelled
          .map(({ server }) => {
            const count = value(read(server));
            return count === undefined ? '' : percent(count.spread);
          })
          .join(', '),
    },
  ];
  const lines = [
    '## The decision channel: instructions per request with and without a subscriber',
    '',
    `${machineLine()}, ${valgrind}; commit ${here}${baseCommit === undefined ? '' : `, and ${baseCommit} (BENCH_BASE) beside it`}; counted as \`--instructions\` counts (5,000 warm-up requests per scenario, then windows of ${WINDOW.toLocaleString('en')} until 3 lie within 1%, else the median of the later half of 8); ${ROUNDS} rounds, every server once per round, in alternating order; ${Math.round((Date.now() - startedAt) / 1000)} s in all.`,
    '',
    'The standalone server of `--instructions` without a subscriber on `lib-cors:decision` ("none"), and with a no-op one (servers/subscribed.ts: every decision is built and published, and dropped). "with / none" is the subscriber\'s cost per request; ' +
      (base === undefined
        ? 'no BENCH_BASE was given, so no earlier commit is counted.'
        : `"none / ${baseCommit}" compares the server without a subscriber with the same server built at ${baseCommit}` +
          (baseWith === undefined
            ? ', a commit before the channels: the issue asks for it within 0.5%.'
            : `, and "with / ${baseCommit} with" the subscribed servers of the two commits, each counted beside the other in every round.`)),
    '',
    `| scenario | round | ${columns.map((column) => column.heading).join(' | ')} |`,
    `|---|---:|${columns.map((column) => (column.heading.startsWith('spread') ? '---' : '---:')).join('|')}|`,
  ];
  for (const scenario of SCENARIOS) {
    for (const [round, these] of counts.entries()) {
      const read = (server: Server) => these.get(server.name)?.get(scenario.name);
      lines.push(`| ${scenario.name} | ${round + 1} | ${columns.map((column) => column.cell(read)).join(' | ')} |`);
    }
  }
  const report = lines.join('\n');
  console.log(`\n${report}`);
  writeResultsSection('channels', report);
}
