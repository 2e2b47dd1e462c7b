/**
 * The standalone server of standalone.ts with a dynamic origin policy, chosen by ORIGIN_POLICY:
 * - `list`: a static list of two origins, matched in memory;
 * - `lookup`: an async origin function that awaits a lookup of the origin in a "database" of the
 *   same two origins, which answers one event-loop turn later (`setImmediate`), as the cheapest
 *   real lookup (a Redis or SQL round trip) would;
 * - `cached-lookup`: the same function with `originCache`, so that after the first request an
 *   origin's answer is kept and given synchronously.
 * Users keep their allowed origins in a database and ask for such a cache (hono #4373, @koa/cors
 * #43 and #59); this measures what the lookup costs per request and what the cache saves.
 */
import type { CorsOptions } from '@lib/cors/standalone';

import { serveStandalone } from './standalone-app.js';
import { ALLOWED_ORIGIN } from './policy.js';

const ALLOWED = [ALLOWED_ORIGIN, 'https://admin.example.com'];

/** A store that answers on the next turn of the event loop, as a client library's callback would. */
const database = {
  rows: new Set(ALLOWED),
  isAllowed(origin: string): Promise<boolean> {
    return new Promise((resolve) => setImmediate(() => resolve(this.rows.has(origin))));
  },
};
const lookUp = async (origin: string) => await database.isAllowed(origin);

const POLICIES: Record<string, CorsOptions> = {
  list: { origin: ALLOWED },
  lookup: { origin: lookUp },
  'cached-lookup': { origin: lookUp, originCache: { max: 1000, ttl: 60_000 } },
};
const policy = POLICIES[process.env.ORIGIN_POLICY ?? ''];
if (policy === undefined) throw new Error(`ORIGIN_POLICY must be one of ${Object.keys(POLICIES).join(', ')}, not ${process.env.ORIGIN_POLICY}`);

serveStandalone(policy);
