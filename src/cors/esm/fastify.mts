// @lib/cors/fastify for import: a wrapper of the CommonJS implementation, so that import and require()
// share one copy of it (one engine, one set of error classes). Values are listed by name (an
// `export *` of a CommonJS file would also publish its __esModule); the errors and options every
// entry point exports come from common-exports.mts. test/packaging checks the lists are complete.
export type * from '../entry/fastify.js';
// fastify.js replaces module.exports (the plugin itself), and Node's CommonJS export detection then
// no longer sees the names it re-exports: they come from common-exports.mts, as for the others.
export * from './common-exports.mjs';
export { fastifyCors } from '../entry/fastify.js';
export { fastifyCors as default } from '../entry/fastify.js';
