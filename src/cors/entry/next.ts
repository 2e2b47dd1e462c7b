/**
 * `@lib/cors/next`: the CORS engine for Next.js 14, 15 and 16, used as Next documents it.
 * - An App Router route file is a route: the methods it exports are the methods it serves.
 *   `cors.route({ GET, POST })` returns them with the grant on every response, and the `OPTIONS`
 *   that answers preflights from exactly those methods, each under its own policy where the file
 *   gives one (rule E). Node.js and Edge runtimes alike: it reads a Request and writes a Response.
 * - A Pages Router API route, `(req, res)`: `cors.apiRoute(handler, { methods })`.
 * - `proxy.ts` (`middleware.ts` before Next 16): `cors.proxy(request)` sets the base policy's grant
 *   on what its `config.matcher` covers (pages, static files, routes without a policy of their
 *   own). It never answers a preflight itself: the route file, which knows its methods and policy,
 *   does, or Next does (its own `OPTIONS` of a file, with the proxy's grant on it).
 *
 * Next puts the proxy's headers on the answer whatever the route sets, so a route with a policy of
 * its own that the proxy covers too could be answered under the proxy's grant. Such a route is told
 * by the request (the proxy passes its grant on in a request header, as Next documents), and
 * answers only where both grants are the same; where they differ it fails closed, 500, and logs
 * the fix once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { answerOf, type Answer } from '../core/answer.js';
import { controlsOf, CorsCore, type CoreSettings, type CorsControls, type TableRef } from '../core/cors-core.js';
import { decide } from '../core/decision.js';
import { CorsOptionsError } from '../core/errors.js';
import { isHttpToken } from '../core/http-grammar.js';
import type { CorsOptions } from '../core/options.js';
import type { PathTable } from '../core/path-table.js';
import { GLOBAL_METHODS } from '../core/path-table.js';
import type { ExplainOptions, ExplainRequest, Explanation } from '../diagnostics/explain.js';
import { answerFetchRequest, emptyAnswer, withAnswer } from './fetch-writer.js';
import { answerRequest, readNodeHeader } from './node.js';

export * from './common-exports.js';

/** A route handler as Next calls it: the Request, and the route's context (its `params`). */
export type RouteHandler<Context = unknown> = (request: Request, context: Context) => Response | Promise<Response>;

/** A Pages Router API route, `(req, res)`: NextApiRequest and NextApiResponse are node's. */
export type ApiRouteHandler<Req extends IncomingMessage = IncomingMessage, Res extends ServerResponse = ServerResponse> = (req: Req, res: Res) => unknown;

/** A route file's options: the file's, and under an upper-case method name (`POST: {...}`) that method's own, merged over them. */
export type RouteOptions = CorsOptions<Request> & { readonly [method: Uppercase<string>]: CorsOptions<Request> | undefined };

/** A route file's handlers by method (upper case). */
export type HandlerSet = Partial<Record<Uppercase<string>, RouteHandler<never>>>;

export type NextCorsSettings = Omit<CoreSettings, 'matching'>;

export interface NextCors extends CorsControls<CorsOptions<Request | IncomingMessage>> {
  /**
   * A route file's handlers with the grant on every response, and its `OPTIONS`:
   * `export const { GET, POST, OPTIONS } = cors.route({ GET, POST }, { POST: { allowCredentials: true } })`.
   */
  route<Handlers extends HandlerSet>(handlers: Handlers, options?: RouteOptions): RouteExports<Handlers>;
  /** A Pages Router API route: preflights and `OPTIONS` answered from `methods` (default: GET, HEAD, PUT, PATCH, POST, DELETE). */
  apiRoute<Req extends IncomingMessage, Res extends ServerResponse>(
    handler: ApiRouteHandler<Req, Res>,
    options?: CorsOptions<IncomingMessage> & { methods?: readonly string[] },
  ): ApiRouteHandler<Req, Res>;
  /** For `proxy.ts` (`middleware.ts`): `export function proxy(request) { return cors.proxy(request); }`. */
  proxy(request: Request): Promise<Response>;
  /** What the proxy's base policy answers `request`, judged as a browser would (docs/diagnostics.md); a route file's is `cors.route(...).explain`. */
  explain: Explain;
}

/** What cors.route() returns: the handlers, `OPTIONS`, and (not for export) the file's explain(). */
export type RouteExports<Handlers> = Handlers & { OPTIONS: RouteHandler<unknown>; explain: Explain };

/** explain() of docs/diagnostics.md, on one policy: the proxy's, or a route file's. */
export type Explain = (request: ExplainRequest, options?: ExplainOptions) => Promise<Explanation>;

/** The request header in which the proxy hands its grant on to the route (JSON of its grant's pairs). */
const PROXY_GRANT = 'x-lib-cors-proxy-grant';
const ASKED = 'access-control-request-method';
const METHODS_GRANTED = 'Access-Control-Allow-Methods';
/**
 * Validates `options` (throwing `CorsOptionsError` on a bad one, at module load) and returns the
 * engine for the application's route files and proxy. An origin function is given the Request
 * (the IncomingMessage in an API route).
 */
export function createCors(options?: CorsOptions<Request | IncomingMessage>, settings: NextCorsSettings = {}): NextCors {
  const core = new CorsCore(options, { ...settings, source: settings.source ?? 'createCors() of @lib/cors/next' });
  const base = core.routeMatchedElsewhere('proxy', GLOBAL_METHODS, '(proxy)', undefined, 'cors.proxy()');
  let files = 0;
  const overlapNamed = new Set<string>();

  /**
   * Whether the proxy's grant, handed on in `proxied`, is this answer's (for a preflight, the
   * requested method allowed by both or neither): else the route fails closed, naming the fix once.
   */
  const agreesWithProxy = (proxied: string, answer: Answer, asked: string | null | undefined, where: string): boolean => {
    if (sameGrant(proxied, answer.headers, asked)) return true;
    if (!overlapNamed.has(where)) {
      overlapNamed.add(where);
      core.logger.error(
        `${core.source}: ${where} has a CORS policy of its own and proxy.ts covers it too, whose grant Next would put on its answers: ` +
          'answered 500 where the two differ. Fix: leave the route out of the proxy (its config.matcher), or give both one policy.',
      );
    }
    return false;
  };

  return {
    ...controlsOf<CorsOptions<Request | IncomingMessage>>(core),
    explain: explainOn(base),
    route<Handlers extends HandlerSet>(handlers: Handlers, routeOptions: RouteOptions = {}): RouteExports<Handlers> {
      const file = `route file #${++files} (${Object.keys(handlers).join(',')})`;
      const { own, byMethod } = splitRouteOptions(core.source, handlers, routeOptions);
      // One path table for the file (its key): each method's policy in it, any method's ref reads it.
      let ref: TableRef | undefined;
      for (const method of Object.keys(handlers)) {
        if (method === 'OPTIONS') continue;
        const methodOptions = { ...own, ...byMethod.get(method) };
        const registered = core.routeMatchedElsewhere(file, [method], file, methodOptions, () => `cors.route() of ${file}, ${method}`);
        ref ??= registered;
      }
      // A file exporting OPTIONS alone is still a route: its OPTIONS policy is the file's.
      ref ??= core.routeMatchedElsewhere(file, ['OPTIONS'], file, own, () => `cors.route() of ${file}`);
      const wrapped: Record<string, RouteHandler<unknown>> = {};
      for (const [method, handler] of Object.entries(handlers)) {
        if (method !== 'OPTIONS') wrapped[method] = withGrant(handler as RouteHandler<unknown>, ref, file);
      }
      const ownOptions = handlers.OPTIONS as RouteHandler<unknown> | undefined;
      wrapped.OPTIONS = async (request, context) => {
        const answer = await decided(ref, request);
        const proxied = request.headers.get(PROXY_GRANT);
        if (proxied !== null && !agreesWithProxy(proxied, answer, request.headers.get(ASKED), file)) return new Response(null, { status: 500 });
        // A preflight or a plain OPTIONS the engine answers; else (preflightContinue) the file's own OPTIONS, or Next's 204.
        if (answer.status !== undefined) return proxied === null ? emptyAnswer(answer) : new Response(null, { status: answer.status });
        const response = ownOptions === undefined ? new Response(null, { status: 204 }) : await ownOptions(request, context);
        return proxied === null ? withAnswer(response, answer) : response;
      };
      return Object.assign(wrapped, { explain: explainOn(ref) }) as unknown as RouteExports<Handlers>;
    },
    apiRoute(handler, { methods = GLOBAL_METHODS, ...apiOptions } = {}) {
      const path = `API route #${++files} (${methods.join(',')})`;
      const ref = core.routeMatchedElsewhere(path, methods, path, apiOptions as CorsOptions<Request>, () => `cors.apiRoute() ${path}`);
      return async (req, res) => {
        const proxied = req.headers[PROXY_GRANT];
        if (typeof proxied === 'string') {
          const decision = await decide(ref.table, req.method, req, readNodeHeader);
          const answer = answerOf(decision, req, readNodeHeader, core.debug);
          if (!agreesWithProxy(proxied, answer, req.headers[ASKED] as string | undefined, path)) return endWith(res, 500);
          if (answer.status !== undefined) return endWith(res, answer.status);
          return handler(req, res);
        }
        // Next's Pages API response reads writeHead()'s header list otherwise than node: headers are set by name.
        const goOn = answerRequest(core, ref.table, req, res, false);
        if (goOn === true || (goOn !== false && (await goOn))) return handler(req, res);
      };
    },
    async proxy(request) {
      const answer = await decided(base, request);
      const pairs = grantOf(answer.headers);
      const headers = new Headers(request.headers);
      headers.set(PROXY_GRANT, JSON.stringify(Object.fromEntries(pairs)));
      const { NextResponse } = require('next/server') as typeof import('next/server');
      // The grant onto the answer of whatever Next runs next; the request goes on with the grant in it.
      return withAnswer(NextResponse.next({ request: { headers } }), answer);
    },
  };

  /** explain() on the table of `ref`; the diagnostics load at its first call, not with the route. */
  function explainOn(ref: TableRef): Explain {
    return (request, options) => {
      const { explainOnTable } = require('../diagnostics/explain.js') as typeof import('../diagnostics/explain.js');
      return explainOnTable(ref.table as PathTable, request, options);
    };
  }

  /** The answer for `request` on the table of `ref` (as it stands: reconfigure() replaces tables). */
  async function decided(ref: TableRef, request: Request): Promise<Answer> {
    const answered = answerFetchRequest(core, ref.table, request);
    return answered instanceof Promise ? await answered : answered;
  }

  /** `handler` answering under the table of `ref`; an error it throws (not one of Next's own) is answered 500 with the grant. */
  function withGrant(handler: RouteHandler<unknown>, ref: TableRef, file: string): RouteHandler<unknown> {
    return async (request, context) => {
      const answer = await decided(ref, request);
      const proxied = request.headers.get(PROXY_GRANT);
      if (proxied !== null && !agreesWithProxy(proxied, answer, null, file)) return new Response(null, { status: 500 });
      let response: Response;
      try {
        response = await handler(request, context);
      } catch (error) {
        // redirect(), notFound() and Next's other signals carry a digest: Next answers them.
        if (typeof (error as { digest?: unknown } | null)?.digest === 'string') throw error;
        core.logger.error(`${core.source}: ${file}, ${request.method} threw (answered 500): ${(error as Error)?.stack ?? String(error)}`);
        response = new Response(null, { status: 500 });
      }
      return proxied === null ? withAnswer(response, answer) : response;
    };
  }
}

/** The file's own options, and each method's, checked: a method's options name a method the file exports. */
function splitRouteOptions(source: string, handlers: object, options: RouteOptions) {
  const own: Record<string, unknown> = {};
  const byMethod = new Map<string, CorsOptions<Request>>();
  for (const [name, value] of Object.entries(options)) {
    if (name !== name.toUpperCase() || !isHttpToken(name)) own[name] = value;
    else if (name in handlers) byMethod.set(name, value as CorsOptions<Request>);
    else {
      const fix = `export a ${name} handler from the file (cors.route({ ${name} }, ...)), or remove the ${name} options`;
      throw new CorsOptionsError('CORS_UNKNOWN_OPTION', `${source}.route()`, name, value, 'names a method the route file does not export', fix);
    }
  }
  return { own: own as CorsOptions<Request>, byMethod };
}

/** The grant of an answer's header pairs (its Access-Control-* ones) as entries: what the proxy hands on and a route compares. */
function grantOf(pairs: readonly string[]): [string, string][] {
  const grant: [string, string][] = [];
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i]!.startsWith('Access-Control-')) grant.push([pairs[i]!, pairs[i + 1]!]);
  return grant;
}

/**
 * Whether the proxy's grant (JSON, as it handed it on) and a route's answer grant the same: each
 * header alike, but `Access-Control-Allow-Methods`, which the proxy lists for every path and a
 * route for its own methods: there, for a preflight, the method `asked` is allowed by both or neither.
 */
function sameGrant(proxied: string, pairs: readonly string[], asked: string | null | undefined): boolean {
  let theirs: Record<string, string>;
  try {
    theirs = JSON.parse(proxied) as Record<string, string>;
  } catch {
    return false;
  }
  const ours = Object.fromEntries(grantOf(pairs));
  const names = new Set([...Object.keys(theirs), ...Object.keys(ours)]);
  for (const name of names) {
    if (name === METHODS_GRANTED) {
      if (asked != null && allows(theirs[name], asked) !== allows(ours[name], asked)) return false;
    } else if (theirs[name] !== ours[name]) return false;
  }
  return true;
}

const allows = (list: string | undefined, method: string): boolean => list !== undefined && (list === '*' || list.split(', ').includes(method));

function endWith(res: ServerResponse, status: number): void {
  res.statusCode = status;
  res.end();
}
