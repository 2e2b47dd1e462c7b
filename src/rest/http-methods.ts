/** The HTTP methods a route may take: a leaf that the decorators, the routes and the route table all read. */
import { METHODS } from 'node:http';

import type Router from 'find-my-way';

/** An HTTP method as find-my-way names it. */
export type HttpMethod = Router.HTTPMethod;

/**
 * Whether Node.js serves `method` (upper case, as `@route()` and `addRoute()` take it). find-my-way
 * routes the same list: its `HTTPMethod` type lags it (QUERY), its run-time list does not.
 */
export function isHttpMethod(method: string): method is HttpMethod {
  return METHODS.includes(method);
}
