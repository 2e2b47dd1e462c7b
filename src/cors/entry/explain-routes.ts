/** explain() of the middlewares that read their framework's routes, loaded at its first call: the diagnostics are not needed to serve. */
import type { explainAmongRoutes } from '../diagnostics/explain.js';

export const explainAmong: typeof explainAmongRoutes = (...args) =>
  (require('../diagnostics/explain.js') as typeof import('../diagnostics/explain.js')).explainAmongRoutes(...args);
