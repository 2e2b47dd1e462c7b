/**
 * `@lib/cors/fetch`: the engine for Web-standard servers, `Request -> Response` (Deno.serve,
 * Bun.serve, Cloudflare workers, hono on any of them). The same options, the same compiled path
 * tables and the same contract (docs/CONTRACT.md) as the node middleware; only the writers differ.
 * It imports nothing from `node:` itself (find-my-way, underneath, uses `node:assert`, which
 * Deno, Bun and workerd's nodejs_compat provide).
 */
import { adapterAccess, CorsEngine, type CorsEngineSettings } from './engine.js';
import type { CorsOptions } from './options.js';
import { grantedPreflight, type PathTable } from './path-table.js';

export { CorsOptionsError, RouteRegistrationError } from './errors.js';
export type { CorsLogger, CorsOptions, OriginListEntry, OriginOption } from './options.js';

/** The application: what answers a request the engine hands on. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

export interface FetchCors {
  /** Covers `path` for `methods`, with `options` merged over the adapter's own, as the node middleware's route(). */
  route(methods: string | readonly string[], path: string, options?: CorsOptions): FetchCors;
  /**
   * Answers a preflight or an OPTIONS request of a covered path itself; hands every other request
   * to `next` and adds the CORS headers to its Response (copying a Response whose headers are
   * immutable, such as Response.redirect() or a fetch() result).
   */
  handle(request: Request, next: FetchHandler): Promise<Response>;
}

/**
 * Validates `options` (throwing CorsOptionsError on a bad one) and returns the adapter. An origin
 * function receives the `Request` as its second argument.
 */
export function createCors(options?: CorsOptions, settings?: Omit<CorsEngineSettings, 'debug' | 'matching'>): FetchCors {
  const engine = new CorsEngine(options, { source: 'createCors() of @lib/cors/fetch', ...settings });
  const adapter: FetchCors = {
    route(methods, path, routeOptions) {
      engine.route(methods, path, routeOptions);
      return adapter;
    },
    handle: (request, next) => answer(engine, request, next),
  };
  return adapter;
}

async function answer(engine: CorsEngine, request: Request, next: FetchHandler): Promise<Response> {
  const table = adapterAccess.lookup(engine, pathAndQuery(request.url));
  if (table === undefined) return next(request);
  const origin = request.headers.get('origin') ?? undefined;
  const allowedOrigin = origin === undefined || !decides(table, request) ? origin : (await adapterAccess.allows(table, origin, request)) ? origin : undefined;
  if (request.method === 'OPTIONS') {
    if (origin !== undefined && request.headers.has('access-control-request-method')) return preflight(table, request, allowedOrigin, next);
    if (!table.explicitOptions) return new Response(null, { status: 204, headers: pairs(table.optionsAnswer, echo(table, allowedOrigin)) });
  }
  const response = await next(request);
  return withHeaders(response, (headers) => writePairs(headers, [...table.actualAnswer, ...echo(table, allowedOrigin)]));
}

/** Whether the answer depends on the origin's verdict: preflights always, other kinds only under a dynamic policy. */
function decides(table: PathTable, request: Request): boolean {
  return table.varyOnOrigin || (request.method === 'OPTIONS' && request.headers.has('access-control-request-method'));
}

/** Rule B's request-dependent part: the echoed origin and the grant, for a dynamic policy that allows it. */
function echo(table: PathTable, allowedOrigin: string | undefined): string[] {
  return allowedOrigin !== undefined && table.varyOnOrigin ? ['Access-Control-Allow-Origin', allowedOrigin, ...table.grant] : [];
}

/** Row 4, rule C. */
async function preflight(table: PathTable, request: Request, allowedOrigin: string | undefined, next: FetchHandler): Promise<Response> {
  const whole =
    allowedOrigin === undefined
      ? table.preflightRefused
      : grantedPreflight(
          table,
          allowedOrigin,
          request.headers.get('access-control-request-headers'),
          request.headers.get('access-control-request-private-network') === 'true',
        );
  if (!table.policy.preflightContinue) return new Response(null, { status: table.policy.optionsSuccessStatus, headers: pairs(whole, []) });
  const response = await next(request);
  return withHeaders(response, (headers) => writePairs(headers, whole));
}

/** A new answer's headers from the table's pairs (Content-Length left to the runtime, which counts the empty body). */
function pairs(answer: readonly string[], extra: readonly string[]): Headers {
  const headers = new Headers();
  writePairs(headers, answer);
  writePairs(headers, extra);
  return headers;
}

/** The pairs onto `headers`: `Vary` added to, never replacing what the application set. */
function writePairs(headers: Headers, list: readonly string[]): void {
  for (let i = 0; i < list.length; i += 2) {
    const name = list[i]!;
    const value = list[i + 1]!;
    if (name === 'Content-Length') continue;
    if (name !== 'Vary') {
      headers.set(name, value);
      continue;
    }
    const present = (headers.get('vary') ?? '').split(',').map((field) => field.trim().toLowerCase());
    if (present.includes('*')) continue;
    for (const field of value.split(', ')) if (!present.includes(field.toLowerCase())) headers.append('Vary', field);
  }
}

/** Writes onto the application's Response, or onto a copy when its headers are immutable. */
function withHeaders(response: Response, write: (headers: Headers) => void): Response {
  try {
    write(response.headers);
    return response;
  } catch (error) {
    // An immutable Headers guard throws a TypeError on its first change, before anything is written.
    if (!(error instanceof TypeError)) throw error;
  }
  const copy = new Response(response.body, response);
  write(copy.headers);
  return copy;
}

/** `/path?query` of an absolute request URL, as the route tree matches it. */
function pathAndQuery(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  return start === -1 ? '/' : url.slice(start);
}
