/**
 * One measurement of `--reconfigure`, in its own process (bench/reconfigure.ts forks it with
 * --expose-gc): the standalone engine with ROUTES GET routes `/scale<i>/items/:id` and the route
 * set of servers/policy.ts, then one of three things, timed and its heap read, sent to the parent:
 *
 * - `build`: createCors() + the routes + seal, the first thing the process does (a start-up).
 * - `rebuild`: the same, in a process that has built one engine already and keeps it serving
 *   until the new one is built: what replacing an engine without reconfigure() costs.
 * - `reconfigure`: reconfigure() with other options, on the engine that process built.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { type CorsEngine, createCors } from '@lib/cors/standalone';

import { ALLOWED_ORIGIN, MAX_AGE, ROUTES } from './servers/policy.js';

export type Kind = 'build' | 'rebuild' | 'reconfigure';

export interface Measured {
  ms: number;
  /** Heap used after the step less before it, both after a full collection: what the step leaves held. */
  retained: number;
  /** Heap used right after the step, before any collection, less before it (after one): what it held then, garbage included. */
  held: number;
}

const kind = process.env.RECONFIGURE_KIND as Kind;
const size = Number(process.env.ROUTES);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const paths = Array.from({ length: size }, (_, i) => `/scale${i}/items/:id`);
const before = { origin: ALLOWED_ORIGIN, maxAge: MAX_AGE };
/** Another origin and another maxAge: every policy and table is compiled anew. */
const after = { origin: [ALLOWED_ORIGIN, 'https://admin.example.com'], maxAge: MAX_AGE / 2 };

/** A request off the covered paths: its lookup seals the routes (the first request does it in a server), and it touches nothing. */
const offPath = { method: 'GET', url: '/not-a-route', headers: {} } as IncomingMessage;
const response = {} as ServerResponse;

function build(options: typeof before | typeof after): CorsEngine {
  const engine = createCors(options);
  for (const path of paths) engine.route('GET', path);
  for (const [method, path] of ROUTES) engine.route(method, path);
  let passed = false;
  engine.handle(offPath, response, () => {
    passed = true;
  });
  if (!passed) throw new Error('the sealing request did not pass through');
  return engine;
}

let serving: CorsEngine | undefined = kind === 'build' ? undefined : build(before);
gc();
const heapBefore = process.memoryUsage().heapUsed;
const start = performance.now();
// A rebuilt engine is built while the old one still serves, then replaces it.
serving = kind === 'reconfigure' ? serving!.reconfigure(after) : build(after);
const ms = performance.now() - start;
const held = process.memoryUsage().heapUsed - heapBefore;
gc();
const retained = process.memoryUsage().heapUsed - heapBefore;
// Still in use after the measurement: nothing above is collected early.
if (serving.options().maxAge !== after.maxAge) throw new Error('the new options are not in force');
process.send!({ ms, retained, held } satisfies Measured);
