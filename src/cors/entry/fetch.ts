/**
 * `@lib/cors/fetch`: the engine for Web-standard servers, `Request -> Response` (Deno.serve,
 * Bun.serve, Cloudflare workers, hono on any of them). The same options, the same compiled path
 * tables and the same contract (docs/CONTRACT.md) as the node middleware; only the writers differ.
 * It imports nothing from `node:` itself (find-my-way, underneath, uses `node:assert`, which
 * Deno, Bun and workerd's nodejs_compat provide).
 */
import { answerOf, type Answer } from '../core/answer.js';
import { CorsCore, routeLabel, type CoreSettings } from '../core/cors-core.js';
import { decide } from '../core/decision.js';
import type { CorsOptions } from '../core/options.js';
import { logRefusal } from '../diagnostics/refusals.js';

export { CorsOptionsError, CorsUsageError, RouteRegistrationError } from '../core/errors.js';
export type { CorsLogger, CorsOptions, OriginFunction, OriginListEntry, OriginOption } from '../core/options.js';

/** The application: what answers a request the engine hands on. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

export interface FetchCors {
  /** Covers `path` for `methods`, with `options` merged over the adapter's own, as the node middleware's route(). */
  route(methods: string | readonly string[], path: string, options?: CorsOptions<Request>): FetchCors;
  /**
   * Answers a preflight or an OPTIONS request of a covered path itself; hands every other request
   * to `next` and adds the CORS headers to its Response (copying a Response whose headers are
   * immutable, such as Response.redirect() or a fetch() result).
   */
  handle(request: Request, next: FetchHandler): Promise<Response>;
}

export type FetchCorsSettings = Omit<CoreSettings, 'matching'>;

/**
 * Validates `options` (throwing CorsOptionsError on a bad one) and returns the adapter. An origin
 * function receives the `Request` as its second argument.
 */
export function createCors(options?: CorsOptions<Request>, settings?: FetchCorsSettings): FetchCors {
  const core = new CorsCore(options, { source: 'createCors() of @lib/cors/fetch', ...settings });
  const adapter: FetchCors = {
    route(methods, path, routeOptions) {
      const list = typeof methods === 'string' ? [methods] : methods;
      core.route(list, path, routeOptions, routeLabel(list, path));
      return adapter;
    },
    handle: (request, next) => answer(core, request, next),
  };
  return adapter;
}

async function answer(core: CorsCore, request: Request, next: FetchHandler): Promise<Response> {
  const table = core.lookup(pathAndQuery(request.url));
  if (table === undefined) return next(request);
  const decided = decide(table, request.method, request, readFetchHeader);
  // Awaited only when an async origin function is asked: an await costs a turn of the microtask queue.
  const decision = decided instanceof Promise ? await decided : decided;
  const answer = answerOf(decision, request, readFetchHeader);
  if (core.debug) logRefusal(core, decision, answer, { method: request.method, url: pathAndQuery(request.url), headers: Object.fromEntries(request.headers) });
  if (answer.status !== undefined) return new Response(null, { status: answer.status, headers: headersOf(answer) });
  const response = await next(request);
  return withHeaders(response, (headers) => writePairs(headers, answer.headers));
}

function readFetchHeader(request: Request, name: string): string | null {
  return request.headers.get(name);
}

/** The headers of an answer the adapter gives itself (Content-Length left to the runtime, which counts the empty body). */
function headersOf(answer: Answer): Headers {
  const headers = new Headers();
  writePairs(headers, answer.headers);
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
