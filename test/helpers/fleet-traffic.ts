/**
 * What the fleet of issue 48 is sent, written once for its test (helpers/fleet.ts) and for
 * `npm run bench -- --fleet`: 4 processes of an origin-store example, asked by browsers on one
 * tenant's origins. Loads nothing of tap, so the bench can import it.
 */
import { type Agent, request } from 'node:http';

export const INSTANCES = 4;
/** The origins granted and revoked in turn, all of one tenant: the first label of the Host the examples read. */
export const ORIGINS = Array.from({ length: 8 }, (_, i) => `https://o${i}.acme.test`);
export const TENANT = 'acme';
const HOST = 'acme.api.test';

/** One request as a browser on `origin` sends it: a preflight for PUT, or a credentialed GET; whether it is granted. */
export function ask(port: number, origin: string, preflight: boolean, agent: Agent): Promise<{ status: number; granted: boolean }> {
  const headers: Record<string, string> = { Host: HOST, Origin: origin, Cookie: 'session=1' };
  if (preflight) headers['Access-Control-Request-Method'] = 'PUT';
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: preflight ? 'OPTIONS' : 'GET', path: '/data', headers, agent, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          granted: res.headers['access-control-allow-origin'] === origin && res.headers['access-control-allow-credentials'] === 'true',
        }),
      );
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', reject);
    req.end();
  });
}

/** The nearest-rank percentile of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
