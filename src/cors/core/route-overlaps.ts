/**
 * One URL, several paths (docs/CONTRACT.md, rule E): beside `PUT /users/me`, a GET of /users/me
 * runs `GET /users/:id`, and must be decided by that route's policy; a preflight there must list
 * no method another path's route runs under another policy. pathsSharingUrls() finds the paths
 * that can share a URL, so that only requests on those are asked about per URL (SharedUrls): each
 * method's route there, and the table the request is answered from (optionsTableOnUrl(), which
 * Express's and Koa's walks, kept per path already, call themselves).
 */
import { tableOfMethod } from './decision.js';
import { methodAloneTable, type PathTable, withMoreAllowed } from './path-table.js';
import type { PathMatching } from './path-matching.js';

type Segment = { readonly kind: 'static'; readonly text: string } | { readonly kind: 'parameter' } | { readonly kind: 'wildcard' };

/** The paths compared, in a tree of their segments. */
interface TrieNode {
  readonly statics: Map<string, TrieNode>;
  parameter: TrieNode | undefined;
  /** Paths that end here. */
  readonly ends: string[];
  /** Paths whose wildcard starts here: they match whatever follows. */
  readonly wildcards: string[];
}

/**
 * The paths that can match a URL another of `paths` matches too, whatever their methods. Compared
 * segment by segment, as find-my-way matches them under `matching` (the route tree's, fastify's,
 * the host's; settings left out are find-my-way's defaults): a static segment matches itself
 * only, a parameter any segment (whatever its regular expression: a pair found that no URL has
 * costs a request a second look, never another answer), a wildcard whatever follows. `'loose'`,
 * for a router of another syntax (hono's): in any case, with or without a trailing slash, and a
 * segment with an optional part, a group or a wildcard matches whatever follows. One walk of the
 * tree of segments per path, which stops at the first other path it meets.
 */
export function pathsSharingUrls(paths: Iterable<string>, matching: PathMatching | 'loose'): Set<string> {
  const root = newNode();
  const segmentsOf = new Map<string, Segment[]>();
  for (const path of paths) {
    if (segmentsOf.has(path)) continue;
    const segments = splitPath(path, matching);
    segmentsOf.set(path, segments);
    insert(root, segments, path);
  }
  const sharing = new Set<string>();
  for (const [path, segments] of segmentsOf) {
    if (walk(root, segments, 0, (other) => other !== path)) sharing.add(path);
  }
  return sharing;
}

function newNode(): TrieNode {
  return { statics: new Map(), parameter: undefined, ends: [], wildcards: [] };
}

function insert(root: TrieNode, segments: readonly Segment[], path: string): void {
  let node = root;
  for (const segment of segments) {
    if (segment.kind === 'wildcard') {
      node.wildcards.push(path);
      return;
    }
    if (segment.kind === 'parameter') {
      node.parameter ??= newNode();
      node = node.parameter;
      continue;
    }
    let next = node.statics.get(segment.text);
    if (next === undefined) {
      next = newNode();
      node.statics.set(segment.text, next);
    }
    node = next;
  }
  node.ends.push(path);
}

/**
 * Calls `meet` with every path that can match a URL the path of `segments` matches (that path
 * included), until `meet` returns true; returns whether it did.
 */
function walk(node: TrieNode, segments: readonly Segment[], at: number, meet: Meet): boolean {
  for (const path of node.wildcards) if (meet(path) === true) return true;
  if (at === segments.length) {
    for (const path of node.ends) if (meet(path) === true) return true;
    return false;
  }
  const segment = segments[at]!;
  if (segment.kind === 'wildcard') return everyPathBelow(node, meet);
  if (segment.kind === 'static') {
    const next = node.statics.get(segment.text);
    if (next !== undefined && walk(next, segments, at + 1, meet)) return true;
  } else {
    for (const next of node.statics.values()) if (walk(next, segments, at + 1, meet)) return true;
  }
  return node.parameter !== undefined && walk(node.parameter, segments, at + 1, meet);
}

/** `meet` for every path below `node`, its own wildcards excepted (walk() met them). */
function everyPathBelow(node: TrieNode, meet: Meet): boolean {
  for (const path of node.ends) if (meet(path) === true) return true;
  const children = node.parameter === undefined ? [...node.statics.values()] : [...node.statics.values(), node.parameter];
  for (const next of children) {
    for (const path of next.wildcards) if (meet(path) === true) return true;
    if (everyPathBelow(next, meet)) return true;
  }
  return false;
}

/** Told of each path a walk meets; true stops the walk. */
type Meet = (path: string) => boolean;

/**
 * A path's segments as find-my-way compares them under `matching`: a `/` inside a parameter's
 * regular expression does not split, `::` is a literal colon, any other colon starts a parameter,
 * and `*` a wildcard. `'loose'` as pathsSharingUrls() says.
 */
function splitPath(path: string, matching: PathMatching | 'loose'): Segment[] {
  const texts: string[] = [];
  let current = '';
  let depth = 0;
  for (const char of path) {
    if (char === '(' || char === '{') depth++;
    else if ((char === ')' || char === '}') && depth > 0) depth--;
    if (char === '/' && depth === 0) {
      texts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  texts.push(current);
  // The empty text before the leading slash.
  if (texts[0] === '') texts.shift();
  const loose = matching === 'loose';
  let kept = loose || matching.ignoreDuplicateSlashes ? texts.filter((text, index) => text !== '' || index === texts.length - 1) : texts;
  if ((loose || matching.ignoreTrailingSlash) && kept.length > 0 && kept.at(-1) === '') kept = kept.slice(0, -1);
  const caseSensitive = !loose && matching.caseSensitive !== false;
  return kept.map((text): Segment => {
    if (text.includes('*') || (loose && /[?{}()+]/.test(text))) return { kind: 'wildcard' };
    if (text.replaceAll('::', '').includes(':')) return { kind: 'parameter' };
    const literal = text.replaceAll('::', ':');
    return { kind: 'static', text: caseSensitive ? literal : literal.toLowerCase() };
  });
}

/**
 * Paths whose routes an entry point keeps after asking its framework for them (a walk, the
 * URL's routes of each method). Matching depends on the path alone, so a path seen again costs
 * one Map lookup; past the limit the cache starts over, so a flood of distinct paths costs what
 * the framework's own routing of them costs, and no memory.
 */
export const KEPT_PATHS = 1000;

/** What an OPTIONS request's answer needs to know of the routes that match its URL. */
export interface UrlPaths {
  /** The URL's routes are of more than one path, and not all under one policy: its answers are the URL's own. */
  readonly shared: boolean;
  /** The methods the URL is served with, in the order found; `undefined` where a route serves every method. */
  readonly methods: readonly string[] | undefined;
}

const ONE_PATH: UrlPaths = { shared: false, methods: undefined };

/** UrlPaths of the routes matching a URL, each as its methods (`undefined`: every method) and its table. */
export function urlPathsOf(routes: Iterable<readonly [ReadonlySet<string> | undefined, PathTable]>): UrlPaths {
  // One object per path (its single table, or the map its tables of several policies share), and
  // every policy of those paths.
  const paths = new Set<unknown>();
  const policies = new Set<unknown>();
  let methods: string[] | undefined = [];
  for (const [routeMethods, table] of routes) {
    paths.add(table.byMethod ?? table);
    if (table.byMethod === undefined) policies.add(table.policy);
    else for (const other of table.byMethod.values()) policies.add(other.policy);
    if (routeMethods === undefined) {
      methods = undefined;
      continue;
    }
    // HEAD goes after GET in Allow: a route that lists it with GET (@koa/router's) leaves it to that.
    for (const method of routeMethods) {
      if (methods !== undefined && !methods.includes(method) && !(method === 'HEAD' && routeMethods.has('GET'))) methods.push(method);
    }
  }
  // Under one policy, whichever path a method runs, it gets the same grant: the paths' own answers stand.
  return paths.size > 1 && policies.size > 1 ? { shared: true, methods } : ONE_PATH;
}

/**
 * One URL, several paths, for an entry point that asks a router per URL (the route tree, hono,
 * fastify, the host): which of its paths can share a URL, worked out at the first request that
 * asks, and, for a request on one of those, the table it is answered from, with the URL's routes
 * kept per path (KEPT_PATHS).
 */
export class SharedUrls {
  readonly #paths: () => Iterable<string>;
  readonly #matching: PathMatching | 'loose';
  #sharing: ReadonlySet<string> | undefined;
  readonly #kept = new Map<string, UrlPaths>();

  constructor(paths: () => Iterable<string>, matching: PathMatching | 'loose') {
    this.#paths = paths;
    this.#matching = matching;
  }

  /** The paths that can share a URL with another. */
  get sharing(): ReadonlySet<string> {
    this.#sharing ??= pathsSharingUrls(this.#paths(), this.#matching);
    return this.#sharing;
  }

  /**
   * The table a request of `method` (a preflight's requested one, else OPTIONS) on `url` is
   * answered from, `table` found for it: `table` itself off the paths that share URLs, else as
   * optionsTableOnUrl() says, from the table of each of `methods` on the URL (`tableOf`). Kept by
   * path unless `keep` is false (where more of the request than its path picks the routes).
   */
  tableOn(
    table: PathTable,
    method: string,
    url: string,
    methods: Iterable<string>,
    tableOf: (method: string) => PathTable | undefined,
    keep = true,
  ): PathTable {
    if (!this.sharing.has(table.route)) return table;
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    let onUrl = keep ? this.#kept.get(path) : undefined;
    if (onUrl === undefined) {
      const found: [ReadonlySet<string>, PathTable][] = [];
      for (const other of methods) {
        const otherTable = tableOf(other);
        if (otherTable !== undefined) found.push([new Set([other]), otherTable]);
      }
      onUrl = urlPathsOf(found);
      if (keep) {
        if (this.#kept.size >= KEPT_PATHS) this.#kept.clear();
        this.#kept.set(path, onUrl);
      }
    }
    return optionsTableOnUrl(table, method, onUrl);
  }
}

/**
 * The table a request is answered from where routes of more than one path, under more than one
 * policy, match its URL (docs/CONTRACT.md, rule E, "One URL, several paths"): a preflight's lists
 * the method it asks for alone, as the URL's other methods may run another path's route under
 * another policy; a plain OPTIONS lists in `Allow` every method the URL is served with; an actual
 * request gets its method's policy, as from `table`. Elsewhere, `table` itself. `method` is the
 * routing method (core/decision.ts routingMethod()), `table` the one found for it.
 */
export function optionsTableOnUrl(table: PathTable, method: string, url: UrlPaths): PathTable {
  if (!url.shared) return table;
  if (method !== 'OPTIONS') {
    // A method no route of the URL serves is granted none: the path's own list may hold another path's methods.
    const served = url.methods === undefined || url.methods.includes(method) || (method === 'HEAD' && url.methods.includes('GET'));
    return methodAloneTable(tableOfMethod(table, method), served ? method : undefined);
  }
  const optionsTable = tableOfMethod(table, 'OPTIONS');
  const own = optionsTable.allow.split(', ');
  return withMoreAllowed(
    optionsTable,
    (url.methods ?? []).filter((other) => !own.includes(other)),
  );
}
