/** RequestContext: a controller's view of the current request and the helpers that answer it. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse } from 'node:querystring';

import vary from 'vary';

export type Query = Readonly<Record<string, string | string[] | undefined>>;

/** One request as a route method sees it: the raw objects, the route's params and query, and senders. */
export class RequestContext {
  #query: Query | undefined;

  constructor(
    readonly rawReq: IncomingMessage,
    readonly rawRes: ServerResponse,
    readonly params: Readonly<Record<string, string | undefined>>,
    /** The query string without its `?`, parsed on first read of `query`. */
    private readonly rawQuery = '',
  ) {}

  get query(): Query {
    // Object.create(null) semantics: `parse` returns a prototype-less object, so `?__proto__=x` is plain data.
    this.#query ??= parse(this.rawQuery);
    return this.#query;
  }

  /**
   * Sets a response header for the handler. `Vary` is merged with what is already there (a CORS
   * layer's `Vary: Origin`, say), never replaced: dropping it would let a shared cache hand one
   * origin's answer to another.
   */
  setHeader(name: string, value: string | number | readonly string[]): this {
    if (name.toLowerCase() === 'vary') vary(this.rawRes, typeof value === 'number' ? String(value) : (value as string | string[]));
    else this.rawRes.setHeader(name, value);
    return this;
  }

  /** Ends the response with `body` (text unless a Content-Type is already set). */
  send(body: string | Buffer = '', status = 200): void {
    this.rawRes.statusCode = status;
    endWithBody(this.rawRes, body, typeof body === 'string' ? TEXT : 'application/octet-stream', false);
  }

  sendJson(value: unknown, status = 200): void {
    this.rawRes.statusCode = status;
    endWithBody(this.rawRes, JSON.stringify(value) ?? 'null', JSON_TYPE, true);
  }
}

export const TEXT = 'text/plain; charset=utf-8';
export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Ends `res` with `body`. `type` replaces any Content-Type already set when `replaceType`, else
 * only fills one in. The status is the caller's. node:http writes the Content-Length of a body
 * given whole to end() itself; it is set here only where node would not: on HEAD, which sends
 * no body to measure, and over a length a handler set beforehand.
 */
export function endWithBody(res: ServerResponse, body: string | Buffer, type: string, replaceType: boolean): void {
  if (replaceType || !res.hasHeader('Content-Type')) res.setHeader('Content-Type', type);
  if (res.req.method === 'HEAD' || res.hasHeader('Content-Length')) res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
