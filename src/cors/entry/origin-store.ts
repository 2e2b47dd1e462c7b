/**
 * @lib/cors/origin-store: allowed origins kept in Redis or PostgreSQL and shared by every
 * instance of the application (docs/operations.md, "Many instances"). The store's client is the
 * application's own; none is a dependency of the package.
 */
export { OriginStore, type OriginStoreEvent, type OriginStoreOptions, type OriginVerdict } from '../stores/origin-store.js';
export { postgresOrigins, type PostgresOriginsOptions } from '../stores/postgres.js';
export { redisOrigins, type RedisOriginsOptions } from '../stores/redis.js';
export * from './common-exports.js';
