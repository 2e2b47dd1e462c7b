/**
 * `npm run bench -- --settled-heap`: the heap of each entry point against its framework with its own
 * CORS (and the engines against find-my-way alone), at the largest table each framework reaches,
 * after the first answer and again after more requests. `--startup` reads the heap once, after the
 * first answer; but Express's and @koa/router's routers run every route's pattern on a request to
 * the last route, and V8 compiles a pattern to machine code the second time it runs it: the
 * framework pays that at its second request. Our Express and Koa entry points ask the framework's
 * matcher which route it will run, and hand its matches to the framework's router for the same
 * request, so each pattern runs once a request there too. Both readings are shown. Writes its
 * section of bench/RESULTS.md.
 */
import { probe, startServer } from './child.js';
import { machineLine, writeResultsSection } from './report.js';
import { adapterPairs, engines, PATH, routerAlone, scenarioNamed, type Server } from './scenarios.js';

/** The requests after the first answer, before the second reading. */
const MORE_REQUESTS = 10;
/** The largest table each framework starts with within --startup's limit (fastify and hono stop before 100,000). */
const ROUTES_BY_FRAMEWORK: Record<string, number> = { fastify: 10_000, hono: 10_000 };
const LARGEST = 100_000;

const getWithOrigin = scenarioNamed('GET with Origin');
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

interface Reading {
  afterFirst: number;
  afterMore: number;
}

async function heapOverRequests(server: Server, routes: number): Promise<Reading> {
  const running = await startServer(server.entry, { EXTRA_ROUTES: String(routes) });
  try {
    const request = async () => {
      const response = await fetch(running.url + PATH, { headers: getWithOrigin.headers });
      const problem = getWithOrigin.check(response, await response.text());
      if (problem !== undefined) throw new Error(`${server.name} at ${routes} routes answers ${problem}`);
    };
    await request();
    const afterFirst = (await probe(running.child, 'memory')).heapUsed;
    for (let index = 0; index < MORE_REQUESTS; index++) await request();
    const afterMore = (await probe(running.child, 'memory')).heapUsed;
    return { afterFirst, afterMore };
  } finally {
    running.child.kill('SIGKILL');
  }
}

export async function measureSettledHeap(): Promise<void> {
  const startedAt = Date.now();
  const pairs: [reference: Server, ours: Server, routes: number][] = [
    ...engines.map((engine): [Server, Server, number] => [routerAlone, engine, LARGEST]),
    ...adapterPairs.map(([framework, adapter]): [Server, Server, number] => [
      framework,
      adapter,
      ROUTES_BY_FRAMEWORK[framework.name.split(' ')[0]!] ?? LARGEST,
    ]),
  ];
  const rows: string[] = [];
  for (const [reference, ours, routes] of pairs) {
    const [theirs, mine] = [await heapOverRequests(reference, routes), await heapOverRequests(ours, routes)];
    const ratio = (key: keyof Reading) => `${(mine[key] / theirs[key]).toFixed(2)} x`;
    rows.push(
      `| ${ours.name} against ${reference.name} | ${routes.toLocaleString('en')} | ${mb(mine.afterFirst)} / ${mb(theirs.afterFirst)} = ${ratio('afterFirst')} | ${mb(mine.afterMore)} / ${mb(theirs.afterMore)} = ${ratio('afterMore')} |`,
    );
    console.log(rows.at(-1));
  }
  const report = [
    '## Heap after the first answer and after more requests',
    '',
    `${machineLine()}; ${Math.round((Date.now() - startedAt) / 1000)} s in all.`,
    '',
    `Heap after a full collection (MB), each server in its own process with the routes registered before the benchmark's: once its first answer (a GET with Origin on \`${PATH}\`, registered last) is out, as \`--startup\` reads it, and again after ${MORE_REQUESTS} more of the same request. Express's and @koa/router's routers run every route's pattern on that request, and V8 compiles a pattern to machine code on its second run; our entry points for them ask the framework's matcher which route it will run and hand its matches to the framework's router for that request, so each pattern runs once a request with them too, and the second reading is where both pay the second compile.`,
    '',
    `| entry point against its reference | routes | after the first answer | after ${MORE_REQUESTS} more requests |`,
    '|---|---:|---:|---:|',
    ...rows,
  ].join('\n');
  console.log(`\n${report}`);
  writeResultsSection('settled-heap', report);
}
