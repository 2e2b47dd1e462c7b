/**
 * `npm run bench -- --reconfigure`: what reconfigure() costs the standalone engine at 10, 1,000
 * and 100,000 routes, against building the engine from scratch with the same routes
 * (createCors() + the routes + seal) in the same run. Each measurement is its own process
 * (bench/reconfigure-child.ts); the kinds and sizes alternate within each round, so drift hits
 * all alike, and each figure is the median of the rounds. Writes its section of bench/RESULTS.md.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

import type { Kind, Measured } from './reconfigure-child.js';
import { machineLine, median, writeResultsSection } from './report.js';

/** GET routes `/scale<i>/items/:id` registered before the 6 of the benchmark's route set. */
const SIZES = [10, 1_000, 100_000];
const KINDS: readonly Kind[] = ['build', 'rebuild', 'reconfigure'];
const ROUNDS = 5;

const child = new URL('reconfigure-child.js', import.meta.url);

async function measure(kind: Kind, size: number): Promise<Measured> {
  const worker = fork(fileURLToPath(child), { execArgv: ['--expose-gc'], env: { ...process.env, RECONFIGURE_KIND: kind, ROUTES: String(size) } });
  const exited = once(worker, 'exit');
  const [message] = (await Promise.race([
    once(worker, 'message'),
    exited.then(([code]) => Promise.reject(new Error(`${kind} at ${size} exited (${code})`))),
  ])) as [Measured];
  await exited;
  return message;
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(2);
const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0));
const ratio = (value: number, to: number) => `${(value / to).toFixed(2)} x`;

export async function measureReconfigure(): Promise<void> {
  const startedAt = Date.now();
  const results = new Map<string, Measured[]>();
  const key = (kind: Kind, size: number) => `${kind} ${size}`;
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of SIZES) {
      // Alternate the order of the kinds from round to round.
      for (const kind of round % 2 === 0 ? KINDS : [...KINDS].reverse()) {
        const measured = await measure(kind, size);
        results.set(key(kind, size), [...(results.get(key(kind, size)) ?? []), measured]);
        console.log(`round ${round + 1}, ${size} routes, ${kind}: ${ms(measured.ms)} ms, held ${mb(measured.held)} MB, retained ${mb(measured.retained)} MB`);
      }
    }
  }
  const at = (kind: Kind, size: number, field: keyof Measured) => median(results.get(key(kind, size))!.map((measured) => measured[field]));
  const spread = (kind: Kind, size: number) => {
    const values = results.get(key(kind, size))!.map((measured) => measured.ms);
    return `${ms(Math.min(...values))}-${ms(Math.max(...values))}`;
  };
  const seconds = Math.round((Date.now() - startedAt) / 1000);
  const sizes = SIZES.map((size) => size.toLocaleString('en'));
  const lines = [
    '## Reconfiguring the standalone engine',
    '',
    `${machineLine()}; ${sizes.join(', ')} GET routes \`/scale<i>/items/:id\` registered before the 6 of the benchmark's route set; ${ROUNDS} rounds, each measurement in its own process, medians; ${seconds} s in all.`,
    '',
    'Three measurements of the same engine with the same routes, each the one step timed in its process (bench/reconfigure-child.ts): "build", `createCors()` + `route()` for every route + the seal (the first lookup), the first thing the process does, as at start-up; "rebuild", the same in a process that has built one engine already and keeps it until the new one is built, what replacing the engine without `reconfigure()` costs; "reconfigure", `reconfigure()` on the engine the process built, with another origin list and `maxAge`, so every policy and table is compiled anew (all three end with those options). Time is wall-clock of the step alone. "held" is the heap used right after the step, before any collection, less the heap before it (after a full collection): the new configuration and the garbage made building it, beside the old one, unless a collection ran during the step; "retained" is the same after a full collection, what the step leaves held (for rebuild and reconfigure, the new configuration less the old, freed). Ratios are to the build of the same size in the same run.',
    '',
    '### Time (ms)',
    '',
    '| routes | build | rebuild | reconfigure | reconfigure / build | reconfigure / rebuild | reconfigure, min-max of the rounds |',
    '|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [index, size] of SIZES.entries()) {
    const [build, rebuild, reconfigure] = KINDS.map((kind) => at(kind, size, 'ms')) as [number, number, number];
    lines.push(
      `| ${sizes[index]} | ${ms(build)} | ${ms(rebuild)} | ${ms(reconfigure)} | ${ratio(reconfigure, build)} | ${ratio(reconfigure, rebuild)} | ${spread('reconfigure', size)} |`,
    );
  }
  lines.push(
    '',
    '### Heap (MB)',
    '',
    '| routes | build, held | build, retained | rebuild, held | rebuild, retained | reconfigure, held | reconfigure, retained | reconfigure held / build held |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const [index, size] of SIZES.entries()) {
    const cells = KINDS.flatMap((kind) => [mb(at(kind, size, 'held')), mb(at(kind, size, 'retained'))]);
    lines.push(`| ${sizes[index]} | ${cells.join(' | ')} | ${ratio(at('reconfigure', size, 'held'), at('build', size, 'held'))} |`);
  }
  const report = lines.join('\n');
  console.log(`\n${report}`);
  writeResultsSection('reconfigure', report);
}
