// @lib/cors/origin-store for import: a wrapper of the CommonJS implementation, so that import and
// require() share one copy of it. Values are listed by name; the errors and options every entry
// point exports come from common-exports.mts. test/packaging checks the lists are complete.
export type * from '../entry/origin-store.js';
export * from './common-exports.mjs';
export { OriginStore, postgresOrigins, redisOrigins } from '../entry/origin-store.js';
