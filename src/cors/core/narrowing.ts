/**
 * Narrowing (docs/CONTRACT.md, rule F): where a request may run any of several routes, or runs
 * several markers on its way, it is answered under what every one of their policies allows. A
 * framework entry point hands over the tables of the routes its framework's matcher says a URL
 * and method match; it never predicts which of them runs, so it cannot predict wrong.
 */
import { tableOfMethod } from './decision.js';
import type { OriginMatcher } from './origin-matcher.js';
import { buildPathTable, madeOnce, type PathTable } from './path-table.js';
import type { CorsPolicy } from './policy.js';

/**
 * The table that decides `method` where each of `tables` (routes' path tables) may decide it:
 * the one table where they all decide with one, else a table of `method` alone under the
 * intersection of their policies. For a plain OPTIONS (`method` 'OPTIONS'), `allowed` is every
 * method the URL is served with: the table lists them in `Allow`, under the intersection of the
 * tables' OPTIONS policies. Made once per set of tables and kept with the first of them.
 */
export function narrowedTable(tables: readonly PathTable[], method: string, allowed?: readonly string[]): PathTable {
  const deciders: PathTable[] = [];
  for (const table of tables) {
    const decider = tableOfMethod(table, method);
    if (!deciders.some((known) => known.policy === decider.policy)) deciders.push(decider);
  }
  if (deciders.length === 0) throw new RangeError('narrowedTable() needs at least one table');
  if (deciders.length === 1 && allowed === undefined) return deciders[0]!;
  const key = `${method}\n${allowed?.join(',') ?? ''}\n${deciders.map(idOf).join(',')}`;
  return madeOnce(narrowed, deciders[0]!, key, () => {
    const policy = deciders.length === 1 ? deciders[0]!.policy : deciders.map((table) => table.policy).reduce(intersection);
    const route = deciders.map((table) => table.route).join(' & ');
    const only = new Set([method]);
    const scope = { own: only, declared: only, decidesUndeclared: false };
    return Object.freeze(allowed === undefined ? buildPathTable(route, policy, [method], scope) : buildPathTable(route, policy, allowed));
  });
}

/**
 * A preflight's table on a URL whose routes serve `served` methods: the policy of `decider` (the
 * requested method's narrowed table), listing the methods of `served` decided under that same
 * policy (`own`), as rule E lists a path's: a method decided under another policy is never
 * listed, and the answer then varies by the method asked.
 */
export function urlPreflightTable(decider: PathTable, own: readonly string[], served: readonly string[]): PathTable {
  return madeOnce(narrowed, decider, `preflight\n${own.join(',')}\n${served.join(',')}`, () => {
    const scope = own.length === served.length ? undefined : { own: new Set(own), declared: new Set(served), decidesUndeclared: false };
    return Object.freeze(buildPathTable(decider.route, decider.policy, served, scope));
  });
}

const narrowed = new WeakMap<PathTable, Map<string, PathTable>>();
const ids = new WeakMap<PathTable, number>();
let nextId = 0;

function idOf(table: PathTable): number {
  let id = ids.get(table);
  if (id === undefined) {
    id = nextId++;
    ids.set(table, id);
  }
  return id;
}

/** What both policies allow: each grant only where both give it, each list what both lists hold. */
export function intersection(a: CorsPolicy, b: CorsPolicy): CorsPolicy {
  return Object.freeze({
    origin: originsOfBoth(a.origin, b.origin),
    allowedMethods: namesOfBoth(a.allowedMethods, b.allowedMethods, false),
    allowedHeaders: namesOfBoth(a.allowedHeaders, b.allowedHeaders, true),
    // Exposed headers: none (`undefined`) is the narrowest, so it wins.
    exposedHeaders: a.exposedHeaders === undefined || b.exposedHeaders === undefined ? undefined : namesOfBoth(a.exposedHeaders, b.exposedHeaders, true),
    allowCredentials: a.allowCredentials && b.allowCredentials,
    // Not sent means 5 s in browsers: less than any value sent.
    maxAge: a.maxAge === undefined || b.maxAge === undefined ? undefined : String(Math.min(Number(a.maxAge), Number(b.maxAge))),
    allowPrivateNetwork: a.allowPrivateNetwork && b.allowPrivateNetwork,
    preflightContinue: a.preflightContinue && b.preflightContinue,
    optionsSuccessStatus: a.optionsSuccessStatus,
  });
}

/** Names both lists allow; `undefined` (the path's methods, or the request's headers) and `'*'` stand for any. */
function namesOfBoth(a: readonly string[] | undefined, b: readonly string[] | undefined, caseless: boolean): readonly string[] | undefined {
  if (a === undefined || isWildcard(a)) return b;
  if (b === undefined || isWildcard(b)) return a;
  const key = (name: string) => (caseless ? name.toLowerCase() : name);
  const inB = new Set(b.map(key));
  return Object.freeze(a.filter((name) => inB.has(key(name))));
}

const isWildcard = (names: readonly string[]): boolean => names.length === 1 && names[0] === '*';

function originsOfBoth(a: OriginMatcher, b: OriginMatcher): OriginMatcher {
  if (a.kind === 'none' || b.kind === 'any') return a;
  if (b.kind === 'none' || a.kind === 'any') return b;
  if (a.kind === 'fixed' && b.kind === 'fixed') return a.origin === b.origin ? a : NONE;
  // Both must allow it; the second is asked only where the first allows, as a request would ask them one after the other.
  const first = allowsOf(a);
  const second = allowsOf(b);
  const asksApplication = (a.kind === 'dynamic' && a.asksApplication) || (b.kind === 'dynamic' && b.asksApplication);
  return Object.freeze({
    kind: 'dynamic',
    allows: (origin: string, request: unknown) => {
      const verdict = first(origin, request);
      if (verdict === false) return false;
      if (verdict === true) return second(origin, request);
      return verdict.then((allowed) => allowed && second(origin, request));
    },
    ...(asksApplication ? { asksApplication: true as const } : {}),
  });
}

const NONE: OriginMatcher = Object.freeze({ kind: 'none' });

function allowsOf(matcher: Exclude<OriginMatcher, { kind: 'any' | 'none' }>) {
  return matcher.kind === 'fixed' ? (origin: string) => origin === matcher.origin : matcher.allows;
}
