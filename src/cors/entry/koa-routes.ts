/**
 * The routers of a Koa application as `@lib/cors/koa` (koa.ts) reads them: found in
 * `app.middleware` (a router.routes() middleware carries its router), their layers read and never
 * written, each route's methods with the tables of its `cors.route()` markers; and which layers a
 * path matches, as each router's own public match() says. Decides nothing: core/route-markers.ts
 * answers from what it finds (rule F).
 */
import { METHODS } from 'node:http';

import type { CorsCore, TableRef } from '../core/cors-core.js';
import {
  type Candidate,
  CandidateCache,
  type MarkersRun,
  type MaybeMarked,
  passesOn,
  refuseMarkerOutsideRoute,
  refuseUnseenMount,
  ROUTE_OPTIONS,
} from '../core/route-markers.js';

/** A @koa/router layer: a route when it has methods (HEAD listed with GET), else the router's own middleware. */
interface KoaLayer {
  readonly path: string;
  readonly methods: readonly string[];
  readonly stack: readonly MaybeMarked<never>[];
}

export interface KoaRouter {
  readonly stack: readonly KoaLayer[];
  /** The `host` option: the router runs only for requests to that host (its public matchHost()). */
  readonly host?: unknown;
  matchHost(host: string): boolean;
  /** Its public matcher: `path` holds every layer matching the path, in order. */
  match(path: string, method: string): { readonly path: readonly KoaLayer[] };
}

/** The routers of the application's `middleware`, each path's candidates among their layers, and whether a router is bound to a host. */
export function readRouters(
  core: CorsCore,
  run: MarkersRun,
  middleware: readonly unknown[],
): { routers: KoaRouter[]; candidates: CandidateCache; hostBound: boolean } {
  const routers = routersOf(core, middleware);
  const layers = new Map<KoaLayer, Candidate | undefined>();
  for (const router of routers) for (const layer of router.stack) layers.set(layer, candidateOf(core, run, layer));
  // A router bound to a host runs only for requests to it: the host is then part of the key.
  const hostBound = routers.some((router) => Boolean(router.host));
  const candidates = new CandidateCache((key, visit) => {
    const at = hostBound ? key.indexOf('\n') : -1;
    const host = key.slice(0, Math.max(at, 0));
    const path = key.slice(at + 1);
    for (const router of routers) {
      if (hostBound && !router.matchHost(host)) continue;
      // A marker this router runs first (router.use('/internal', cors.route(o))) gives its options to its routes after it.
      let underMarker = false;
      for (const layer of router.match(path, 'GET').path) {
        const candidate = layers.get(layer);
        if (candidate === undefined) continue;
        visit(underMarker && candidate.kind === 'route' ? { ...candidate, underMarker } : candidate);
        // A marker on a path gives its options to the routes below it; one with none (router.use(m))
        // only narrows: @koa/router merges nested routers' layers into one stack, whose origin it cannot tell.
        if (candidate.kind === 'marker' && layer.path.startsWith('/') && layer.path !== '/') underMarker = true;
      }
    }
  });
  return { routers, candidates, hostBound };
}

/** The routers of the application's middleware, in the order Koa runs them. */
function routersOf(core: CorsCore, stack: readonly unknown[]): KoaRouter[] {
  const routers: KoaRouter[] = [];
  for (const middleware of stack) {
    const router = routerOf(middleware);
    if (router !== undefined) {
      if (!routers.includes(router)) routers.push(router);
    } else if ((middleware as { name?: string }).name === 'mount' || (middleware as { name?: string }).name === 'mountedApp') {
      refuseUnseenMount(
        core.source,
        'a mounted application',
        'is mounted with koa-mount, whose routes cannot be read from outside it',
        'use a nested @koa/router router (router.use("/prefix", inner.routes())) instead, or give the mounted application its own middleware',
      );
    } else if ((middleware as MaybeMarked<never>)[ROUTE_OPTIONS] !== undefined) {
      // With no path, it would stand for the middleware's options: those belong in createCors().
      refuseMarkerOutsideRoute(core.source, 'app.use()', "router.get('/internal/report', cors.route(options), handler)");
    }
  }
  return routers;
}

/** The router behind a router.routes() middleware, which carries it as `.router`. */
function routerOf(middleware: unknown): KoaRouter | undefined {
  const router = (middleware as { router?: KoaRouter } | null)?.router;
  return router !== undefined && Array.isArray(router.stack) && typeof router.match === 'function' ? router : undefined;
}

/** How much there is to read: the application's middleware and the routers' layers. */
export function sizeOf(stack: readonly unknown[], routers: readonly KoaRouter[]): number {
  let size = stack.length;
  for (const router of routers) size += router.stack.length;
  return size;
}

/**
 * A layer as a candidate: a route with its methods, each with its markers' tables; the router's
 * own middleware a marker is given to (`router.use('/internal', cors.route(o))`); `undefined`
 * for other middleware, which decides nothing.
 */
function candidateOf(core: CorsCore, run: MarkersRun, layer: KoaLayer): Candidate | undefined {
  if (layer.methods.length > 0 && layer.stack.some((handler) => routerOf(handler) !== undefined)) {
    // The router runs it for the route's requests, yet its routes are no layers of a router read.
    refuseUnseenMount(
      core.source,
      layer.path,
      "is a route whose handler is a router's routes(), whose routes cannot be read from there",
      "mount the router with router.use() (router.use('/api', inner.routes())) instead",
    );
  }
  const markers = layer.stack.filter((handler) => handler[ROUTE_OPTIONS] !== undefined);
  const every = METHODS.every((method) => layer.methods.includes(method));
  const register = (methods: readonly string[], all: boolean) => markers.map((marker) => run.register(marker, methods, layer.path || '/', 'Koa', all));
  if (layer.methods.length === 0) {
    const [ref] = register(METHODS, true);
    return ref === undefined ? undefined : { kind: 'marker', ref };
  }
  const refs =
    markers.length === 0
      ? undefined
      : register(
          layer.methods.filter((method) => method !== 'HEAD' || !layer.methods.includes('GET')),
          every,
        );
  const methods = new Map<string, readonly TableRef[] | undefined>(layer.methods.map((method) => [method, refs]));
  const takesNext = (layer.stack.at(-1)?.length ?? 0) >= 2;
  return { kind: 'route', methods, passesOn: passesOn(layer.path, every, refs !== undefined, takesNext), underMarker: false };
}
