/**
 * Allowed origins kept in Redis, shared by every instance: `REDIS_URL=redis://127.0.0.1:6379
 * npm run example -- origin-store-redis` (PORT=3000 by default). Start it twice on two ports and
 * grant or revoke an origin from either (or from any process with a store on the same Redis): both
 * answer the change at once. docs/operations.md, "Many instances".
 */
import { Redis } from 'ioredis';

import { redisOrigins } from '@lib/cors/origin-store';

import { serveTenantApi, tenantOfHost } from '../shared/tenant-api.js';

// maxRetriesPerRequest: 1, so a command fails soon while Redis is down (the store refuses the
// origin then); the store tells the outage once, so the client's own errors are not logged again.
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1, retryStrategy: () => 200 });
redis.on('error', () => {});

serveTenantApi('origin-store-redis', redisOrigins({ client: redis, tenant: tenantOfHost }));
