/**
 * BENCH_COUNT_TABLES=1 (issue 26): counts, in the running server, the path tables the engine
 * builds and the distinct answer sets they share, and prints them to stderr once the first
 * answer is out. Every table comes from core/path-table.ts's buildPathTable(), which the engine's
 * CommonJS build calls through that module's exports object: the count wraps it there before
 * any engine is built, and keeps what it returns. Off (nothing wrapped, nothing kept) unless set.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

interface Table {
  readonly route: string;
  readonly actual: object;
  readonly options: object;
  readonly preflightGranted: readonly string[];
  readonly preflightRefused: readonly string[];
}

export const countingTables = process.env.BENCH_COUNT_TABLES !== undefined && process.env.BENCH_COUNT_TABLES !== '';
const tables = new Set<Table>();
let reported = false;

if (countingTables) {
  const require = createRequire(import.meta.url);
  // The same file the ES module entry points re-export from, so the same module instance.
  const pathTable = require(join(dirname(require.resolve('@lib/cors/standalone')), '../core/path-table.js')) as {
    buildPathTable: (...args: unknown[]) => Table;
  };
  const build = pathTable.buildPathTable;
  pathTable.buildPathTable = (...args: unknown[]) => {
    const table = build(...args);
    tables.add(table);
    return table;
  };
}

/** Prints the counts (once, on the next turn): call it after the first answer. */
export function reportTableCount(): void {
  if (!countingTables || reported) return;
  reported = true;
  setImmediate(() => {
    const distinct = (pick: (table: Table) => object) => new Set([...tables].map(pick)).size;
    const counts = {
      pathTables: tables.size,
      distinctRoutes: new Set([...tables].map((table) => table.route)).size,
      answerSets: distinct((table) => table.actual),
      distinctOptionsAnswers: distinct((table) => table.options),
      distinctPreflightGranted: distinct((table) => table.preflightGranted),
      distinctPreflightRefused: distinct((table) => table.preflightRefused),
    };
    process.stderr.write(`table count: ${JSON.stringify(counts)}\n`);
  });
}
