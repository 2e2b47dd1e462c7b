import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse } from 'node:querystring';

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
    return (this.#query ??= parse(this.rawQuery));
  }

  /** Ends the response with `body` (text unless a Content-Type is already set). */
  send(body: string | Buffer = '', status = 200): void {
    const res = this.rawRes;
    res.statusCode = status;
    if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  }

  sendJson(value: unknown, status = 200): void {
    const res = this.rawRes;
    const body = JSON.stringify(value) ?? 'null';
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  }
}
