/**
 * `@lib/cors/fetch`: the engine for Web-standard servers, `Request -> Response` (Deno.serve,
 * Bun.serve, Cloudflare workers, hono on any of them). The same options, the same compiled path
 * tables and the same contract (docs/CONTRACT.md) as the node middleware; only the writers differ.
 * It imports nothing from `node:` itself (find-my-way, underneath, uses `node:assert`, which
 * Deno, Bun and workerd's nodejs_compat provide).
 */
import { controlsOf, CorsCore, routeLabel, type CoreSettings, type CorsControls } from '../core/cors-core.js';
import { routingMethod } from '../core/decision.js';
import type { CorsOptions } from '../core/options.js';
import { answerFetchRequest, emptyAnswer, pathAndQuery, readFetchHeader, withAnswer } from './fetch-writer.js';

export * from './common-exports.js';

/** The application: what answers a request the engine hands on. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

export interface FetchCors extends CorsControls<CorsOptions<Request>> {
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
    ...controlsOf<CorsOptions<Request>>(core),
    route(methods, path, routeOptions) {
      const list = typeof methods === 'string' ? [methods] : methods;
      core.route(list, path, routeOptions, routeLabel);
      return adapter;
    },
    handle: (request, next) => answer(core, request, next),
  };
  return adapter;
}

async function answer(core: CorsCore, request: Request, next: FetchHandler): Promise<Response> {
  const table = core.lookup(pathAndQuery(request.url), routingMethod(request.method, request, readFetchHeader));
  if (table === undefined) return next(request);
  const answered = answerFetchRequest(core, table, request);
  // Awaited only when an async origin function is asked: an await costs a turn of the microtask queue.
  const answer = answered instanceof Promise ? await answered : answered;
  if (answer.status !== undefined) return emptyAnswer(answer);
  return withAnswer(await next(request), answer);
}
