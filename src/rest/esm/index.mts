// @lib/rest for import: a wrapper of the CommonJS implementation, so that import and require()
// share one copy of it (one engine, one set of error classes). Values are listed by name (an
// `export *` would also publish CommonJS's __esModule); test/packaging checks the list is complete.
export type * from '../index.js';
export { controller, RequestContext, RestApplication, restModule, restRootModule, route } from '../index.js';
