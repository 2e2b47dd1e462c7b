/** The one policy and route set every benchmarked server is configured with. */
export const ALLOWED_ORIGIN = 'https://app.example.com';
export const MAX_AGE = 600;
export const ROUTES: readonly [method: string, path: string][] = [
  ['GET', '/users'],
  ['POST', '/users'],
  ['GET', '/users/:id'],
  ['PUT', '/users/:id'],
  ['GET', '/posts'],
  ['GET', '/posts/:id/comments'],
];
export const BODY = JSON.stringify({ id: 1, name: 'Ada' });

/**
 * For the route-table scale case: EXTRA_ROUTES more GET routes, registered before the ones the
 * scenarios hit, so a router that scans in order pays for all of them.
 */
export const EXTRA_PATHS: readonly string[] = Array.from({ length: Number(process.env.EXTRA_ROUTES ?? 0) }, (_, i) => `/scale${i}/items/:id`);

/**
 * When the server's own code starts (ms since the process started): every server imports this
 * file last, so its framework is loaded by then, and the route list above is made. `--startup`
 * measures from here to the first answer.
 */
export const importedAt = performance.now();

/**
 * Tells the parent process which port the server listens on (and when its code started and when
 * it listened, in ms since the process started), and answers its probes: CPU time
 * used so far, and memory (after a full collection when node runs with --expose-gc).
 */
export function announce(port: number): void {
  process.send?.({ port, importedAt, listeningAt: performance.now() });
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ type: 'cpu', micros: user + system });
    } else if (message.type === 'memory') {
      (globalThis as { gc?: () => void }).gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      process.send?.({ type: 'memory', rss, heapUsed });
    }
  });
}
