import type { IncomingMessage, ServerResponse } from 'node:http';

import type { PathTable } from './path-table.js';
import { setActualHeaders, writeOptions, writePreflight } from './responses.js';

/**
 * What the engine does for each request kind of docs/CONTRACT.md, section 3, once the origin is
 * decided. `allowedOrigin` is the request's origin when the policy allows it, else `undefined`.
 * Returns `true` for "go on to the application".
 */
export type Continuation = (table: PathTable, req: IncomingMessage, res: ServerResponse, allowedOrigin: string | undefined) => boolean;

/** Row 4: a preflight, answered here unless `preflightContinue`. */
export const answerPreflight: Continuation = (table, req, res, allowedOrigin) => {
  const handOn = table.policy.preflightContinue;
  writePreflight(table, req, res, allowedOrigin, !handOn);
  return handOn;
};

/** Rows 1 and 2: OPTIONS without a preflight; the application's own OPTIONS route wins. */
export const answerOptions: Continuation = (table, _req, res, allowedOrigin) => {
  writeOptions(table, res, allowedOrigin, !table.explicitOptions);
  return table.explicitOptions;
};

/** Rows 3 and 5: handed on to the application with the headers set, so they are on its errors too. */
export const continueActual: Continuation = (table, _req, res, allowedOrigin) => {
  setActualHeaders(table, res, allowedOrigin);
  return true;
};
