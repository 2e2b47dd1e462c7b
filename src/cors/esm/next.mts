// @lib/cors/next for import: a wrapper of the CommonJS implementation, so that import and require()
// share one copy of it (one engine, one set of error classes). Values are listed by name (an
// `export *` of a CommonJS file would also publish its __esModule); the errors and options every
// entry point exports come from common-exports.mts. test/packaging checks the lists are complete.
export type * from '../entry/next.js';
export * from './common-exports.mjs';
export { createCors } from '../entry/next.js';
