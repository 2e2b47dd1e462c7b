/** One timed run of a scenario against a server, with the server's CPU time read before and after (timed.ts, runtimes.ts). */
import autocannon from 'autocannon';

import { PATH, type Scenario } from './scenarios.js';

export const CONNECTIONS = 50;

export interface Measure {
  rps: number;
  p99: number;
  /** The server's CPU µs (user + system) per request. */
  cpu: number;
}

/**
 * Requests per second, p99, and the server's own CPU time per request: on a shared machine the
 * throughput drifts with the neighbours, while CPU per request measures the work each request
 * costs the server, which is what the library controls. `cpuMicros` reads the server's CPU time
 * so far (node's own probe, or /proc for another runtime).
 */
export async function measure(url: string, scenario: Scenario, seconds: number, cpuMicros: () => number | Promise<number>): Promise<Measure> {
  const cpuBefore = await cpuMicros();
  const result = await autocannon({ url: url + PATH, method: scenario.method, headers: scenario.headers, connections: CONNECTIONS, duration: seconds });
  const cpuAfter = await cpuMicros();
  if (result.errors > 0 || result.timeouts > 0) throw new Error(`${scenario.name}: ${result.errors} errors, ${result.timeouts} timeouts`);
  return { rps: result.requests.average, p99: result.latency.p99, cpu: (cpuAfter - cpuBefore) / result.requests.total };
}
