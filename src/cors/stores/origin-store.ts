/**
 * Allowed origins kept in a store many instances share (Redis, PostgreSQL), answered from a
 * bounded per-instance cache that the store's own change feed keeps true (issue 48). The store's
 * client is the application's; this file knows only the `Backend` an adapter (redis.ts,
 * postgres.ts) gives it.
 *
 * What a verdict may be, and why:
 * - Every change is written and published in one step (Backend.write), and each instance drops
 *   the changed entry when the feed delivers it, so a revocation is answered from the store as
 *   soon as it reaches the instance, whatever the entry's TTL.
 * - The feed can be cut off (the store restarts, the network fails): changes made meanwhile are
 *   never delivered. So after every (re)subscription the whole cache is dropped and read again,
 *   and while the feed is down no entry is trusted for longer than `maxStale`.
 * - A verdict the store cannot give in `lookupTimeout` is a refusal (fail closed), never a 5xx or
 *   a wait: only an origin the store allowed within `maxStale` is still allowed.
 */
import { channel } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';

import { CorsOptionsError } from '../core/errors.js';
import { CACHED_ANSWER, type CachedAnswer, HELD_VERDICT, type HeldVerdict } from '../core/origin-matcher.js';
import { checkedOrigin, invalidStoreOption, LONGEST_TIMER, wholeNumber } from './store-options.js';

export interface OriginStoreOptions<Req> {
  /**
   * The list a request is checked against (the tenant), from the request: its `Host`, a path
   * parameter, a header. `undefined` refuses the request's origin. Default: one list, `'default'`.
   */
  tenant?: (request: Req) => string | undefined;
  /** How long a verdict read from the store is used without reading it again, in ms. Default: allowed 60,000, denied 5,000. */
  ttl?: { allowed?: number; denied?: number };
  /**
   * How long past its TTL an allowed verdict is still used while it is read again in the
   * background, and how old one may be while the store cannot be reached. Default 300,000 ms.
   */
  maxStale?: number;
  /** The most verdicts kept; the oldest of the tenant held longest goes first. Default 10,000. */
  maxEntries?: number;
  /** How long a request waits for the store before its origin is refused. Default 250 ms. */
  lookupTimeout?: number;
  /** Where the outage and its end are told, once each. Default: `console`. */
  logger?: { error(message: string): void; warn?(message: string): void };
}

/**
 * A change as every store's feed carries it: the tenant, a newline, the origin. Redis publishes
 * it as written here; PostgreSQL builds the same text in SQL.
 */
export const changeMessage = (tenant: string, origin: string): string => `${tenant}\n${origin}`;

/**
 * Hands a feed's message to `changed`; a message of another form is ignored. Split at the last
 * newline: an origin never holds one (grant() and revoke() check it), a tenant may, and may be empty.
 */
export function readChange(text: string, changed: (tenant: string, origin: string) => void): void {
  const at = text.lastIndexOf('\n');
  if (at >= 0) changed(text.slice(0, at), text.slice(at + 1));
}

/** What an adapter gives the cache: reads, one-step writes, and the change feed. */
export interface Backend {
  readonly name: string;
  /** Whether `origin` is on `tenant`'s list. */
  has(tenant: string, origin: string): Promise<boolean>;
  /** Adds (`allowed`) or removes `origin` and publishes the change, in one step of the store's. */
  write(tenant: string, origin: string, allowed: boolean): Promise<void>;
  /**
   * Starts the feed: `changed` for each change any instance wrote, `up` each time the feed is
   * (re)subscribed, `down` when it is cut off. Resolves once subscribed the first time.
   */
  listen(events: { changed(tenant: string, origin: string): void; up(): void; down(error?: unknown): void }): Promise<void>;
  close(): Promise<void>;
}

/** A verdict the cache holds, for explain() and `cached()`. */
export interface OriginVerdict {
  readonly allowed: boolean;
  readonly from: 'cache';
  /** Age of the verdict in ms. */
  readonly age: number;
}

/** A read of the store in flight; `outdated` once a change or a reconnect came after it began, so its answer is not kept. */
interface Reading {
  readonly answer: Promise<boolean>;
  outdated: boolean;
}

interface Entry {
  allowed: boolean;
  readAt: number;
  refreshing: boolean;
}

/** Published on `lib-cors:origin-store` (subscribe with node:diagnostics_channel). */
export type OriginStoreEvent =
  | { readonly event: 'hit' | 'stale' | 'miss'; readonly tenant: string; readonly origin: string; readonly allowed: boolean; readonly age: number }
  | { readonly event: 'invalidation'; readonly tenant: string; readonly origin: string }
  | { readonly event: 'reconnect' | 'outage' | 'recovered'; readonly store: string };

const events = channel('lib-cors:origin-store');

/** What #tenantQuietly() gives for a tenant function that threw. */
const THREW = Symbol('threw');

const DEFAULTS = { allowedTtl: 60_000, deniedTtl: 5_000, maxStale: 300_000, maxEntries: 10_000, lookupTimeout: 250 };

export class OriginStore<Req = IncomingMessage> {
  /** Give this as the `origin` option (of the whole application, or of one route). */
  readonly origin: (origin: string, request: Req) => boolean | Promise<boolean>;
  /** Resolves once the feed is subscribed; requests before it are answered from the store alone. */
  readonly ready: Promise<void>;

  readonly #backend: Backend;
  readonly #tenantOf: (request: Req) => string | undefined;
  readonly #allowedTtl: number;
  readonly #deniedTtl: number;
  readonly #maxStale: number;
  readonly #maxEntries: number;
  readonly #timeout: number;
  readonly #logger: NonNullable<OriginStoreOptions<Req>['logger']>;
  /** Verdicts by tenant, then origin: a hit looks up the request's own strings, making none. */
  readonly #entries = new Map<string, Map<string, Entry>>();
  /** Verdicts held, over every tenant (maxEntries). */
  #size = 0;
  readonly #reading = new Map<string, Reading>();
  /** Whether the feed is subscribed: while it is not, changes may be missed. */
  #listening = false;
  /** Closed by close(): what the feed says after it is not news. */
  #closed = false;
  /** Whether the outage was told (once), so its end is told too. */
  #outageTold = false;

  constructor(backend: Backend, options: OriginStoreOptions<Req> = {}) {
    this.#backend = backend;
    if (options.tenant !== undefined && typeof options.tenant !== 'function') {
      throw invalidStoreOption(
        'origin store',
        'tenant',
        options.tenant,
        'is not a function of the request',
        `tenant: () => ${JSON.stringify(String(options.tenant))}`,
      );
    }
    if (options.ttl !== undefined && (options.ttl === null || typeof options.ttl !== 'object')) {
      throw new CorsOptionsError(
        'CORS_OPTIONS_NOT_OBJECT',
        'origin store',
        'ttl',
        options.ttl,
        'is not an object',
        `ttl: { allowed: ${DEFAULTS.allowedTtl}, denied: ${DEFAULTS.deniedTtl} }`,
      );
    }
    if (options.logger !== undefined && typeof options.logger?.error !== 'function') {
      throw new CorsOptionsError('CORS_OPTIONS_NOT_OBJECT', 'origin store', 'logger', options.logger, 'has no error() method', 'logger: console');
    }
    this.#tenantOf = options.tenant ?? (() => 'default');
    this.#allowedTtl = wholeNumber('ttl.allowed', options.ttl?.allowed, DEFAULTS.allowedTtl);
    this.#deniedTtl = wholeNumber('ttl.denied', options.ttl?.denied, DEFAULTS.deniedTtl);
    this.#maxStale = wholeNumber('maxStale', options.maxStale, DEFAULTS.maxStale);
    this.#maxEntries = wholeNumber('maxEntries', options.maxEntries, DEFAULTS.maxEntries, 1);
    this.#timeout = wholeNumber('lookupTimeout', options.lookupTimeout, DEFAULTS.lookupTimeout, 0, LONGEST_TIMER);
    this.#logger = options.logger ?? console;
    // A tenant that is not a string (undefined, null) refuses the origin. One that throws is the
    // engine's to report: it calls this function in its guard, which refuses the origin.
    const origin = (origin: string, request: Req) => {
      const tenant = this.#tenantOf(request);
      return typeof tenant === 'string' ? this.allows(tenant, origin) : false;
    };
    // explain() asks what is held for an origin without reading the store (core/origin-matcher.ts).
    const held: HeldVerdict = (from, request) => {
      const tenant = this.#tenantQuietly(request as Req);
      return typeof tenant === 'string' ? this.cached(tenant, from) : undefined;
    };
    // The engine takes a verdict held fresh at once, as it takes a list's (core/origin-matcher.ts),
    // before its guard: a tenant function that throws leaves the answer to `origin`, in the guard.
    const fresh: CachedAnswer = (from, request) => {
      const tenant = this.#tenantQuietly(request as Req);
      if (tenant === THREW) return undefined;
      return typeof tenant === 'string' ? this.#fresh(tenant, from) : false;
    };
    this.origin = Object.assign(origin, { [HELD_VERDICT]: held, [CACHED_ANSWER]: fresh });
    this.ready = backend
      .listen({
        changed: (tenant, origin) => this.#changed(tenant, origin),
        up: () => this.#up(),
        down: (error) => this.#down(error),
      })
      .catch((error: unknown) => this.#down(error));
  }

  /** The request's tenant, or THREW where the tenant function threw. */
  #tenantQuietly(request: Req): string | undefined | typeof THREW {
    try {
      return this.#tenantOf(request);
    } catch {
      return THREW;
    }
  }

  /** Whether `tenant`'s list allows `origin`: from the cache when it may, else from the store. */
  allows(tenant: string, origin: string): boolean | Promise<boolean> {
    return this.#fresh(tenant, origin) ?? this.#lookUp(tenant, origin);
  }

  /** The verdict held for the key while it may be used as it is (a hit), else `undefined`. */
  #fresh(tenant: string, origin: string): boolean | undefined {
    const entry = this.#entries.get(tenant)?.get(origin);
    if (entry === undefined) return undefined;
    const age = Date.now() - entry.readAt;
    if (!this.#isFresh(entry, age)) return undefined;
    if (events.hasSubscribers) events.publish({ event: 'hit', tenant, origin, allowed: entry.allowed, age });
    return entry.allowed;
  }

  /** Past a hit: a stale allowed verdict while it is read again, or the store's answer. */
  #lookUp(tenant: string, origin: string): boolean | Promise<boolean> {
    const key = `${tenant}\n${origin}`;
    const entry = this.#entries.get(tenant)?.get(origin);
    if (entry !== undefined) {
      const age = Date.now() - entry.readAt;
      if (this.#isUsableStale(entry, age)) {
        // Stale but allowed: used while it is read again, so a slow store slows no request.
        if (events.hasSubscribers) events.publish({ event: 'stale', tenant, origin, allowed: true, age });
        if (!entry.refreshing) {
          entry.refreshing = true;
          void this.#read(key, tenant, origin)
            .catch(() => {})
            .finally(() => {
              entry.refreshing = false;
            });
        }
        return true;
      }
    }
    if (events.hasSubscribers) events.publish({ event: 'miss', tenant, origin, allowed: false, age: 0 });
    return this.#read(key, tenant, origin).catch(() => false);
  }

  /**
   * The verdict held for `origin` that the next request would be answered from (fresh, or allowed
   * and stale within maxStale), without reading the store (for explain()); else `undefined`.
   */
  cached(tenant: string, origin: string): OriginVerdict | undefined {
    const entry = this.#entries.get(tenant)?.get(origin);
    if (entry === undefined) return undefined;
    const age = Date.now() - entry.readAt;
    return this.#isFresh(entry, age) || this.#isUsableStale(entry, age) ? { allowed: entry.allowed, from: 'cache', age } : undefined;
  }

  /** Answered as it is (a hit): within its TTL and, while the feed is down, within maxStale. */
  #isFresh(entry: Entry, age: number): boolean {
    return age < (entry.allowed ? this.#allowedTtl : this.#deniedTtl) && (this.#listening || age < this.#maxStale);
  }

  /** Past its TTL but still answered while it is read again: allowed, and within maxStale of it (of its read, while the feed is down). */
  #isUsableStale(entry: Entry, age: number): boolean {
    return entry.allowed && age < (this.#listening ? this.#allowedTtl + this.#maxStale : this.#maxStale);
  }

  /** Allows `origin` for `tenant` on every instance: written and published in one step. */
  async grant(tenant: string, origin: string): Promise<void> {
    await this.#backend.write(tenant, checkedOrigin('store.grant()', origin), true);
    // This instance reads its own write at once, not when the feed brings it back.
    this.#changed(tenant, origin);
  }

  /** Refuses `origin` for `tenant` on every instance: written and published in one step. */
  async revoke(tenant: string, origin: string): Promise<void> {
    await this.#backend.write(tenant, checkedOrigin('store.revoke()', origin), false);
    this.#changed(tenant, origin);
  }

  /** Stops the feed; the application's clients stay open. */
  close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    return this.#backend.close();
  }

  /** The store's verdict, one read per key at a time, refused after `lookupTimeout`. */
  #read(key: string, tenant: string, origin: string): Promise<boolean> {
    const pending = this.#reading.get(key);
    if (pending !== undefined && !pending.outdated) return pending.answer;
    let timer: NodeJS.Timeout | undefined;
    const reading: Reading = {
      outdated: false,
      answer: Promise.race([
        this.#backend.has(tenant, origin),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${this.#backend.name} gave no answer in ${this.#timeout} ms`)), this.#timeout);
        }),
      ])
        .then((allowed) => {
          // A change of this key, or a reconnect, while reading: the answer may predate it.
          if (!reading.outdated) this.#keep(tenant, origin, allowed);
          this.#recovered();
          return allowed;
        })
        .catch((error: unknown) => {
          this.#outage(error);
          throw error;
        })
        .finally(() => {
          clearTimeout(timer);
          if (this.#reading.get(key) === reading) this.#reading.delete(key);
        }),
    };
    this.#reading.set(key, reading);
    return reading.answer;
  }

  /** Holds a verdict; past maxEntries, the oldest of the tenant held longest goes first. */
  #keep(tenant: string, origin: string, allowed: boolean): void {
    this.#drop(tenant, origin);
    if (this.#size >= this.#maxEntries) {
      const [oldestTenant, verdicts] = this.#entries.entries().next().value!;
      this.#drop(oldestTenant, verdicts.keys().next().value!);
    }
    let verdicts = this.#entries.get(tenant);
    if (verdicts === undefined) {
      verdicts = new Map();
      this.#entries.set(tenant, verdicts);
    }
    verdicts.set(origin, { allowed, readAt: Date.now(), refreshing: false });
    this.#size++;
  }

  #drop(tenant: string, origin: string): void {
    const verdicts = this.#entries.get(tenant);
    if (verdicts === undefined || !verdicts.delete(origin)) return;
    this.#size--;
    if (verdicts.size === 0) this.#entries.delete(tenant);
  }

  #changed(tenant: string, origin: string): void {
    this.#drop(tenant, origin);
    const reading = this.#reading.get(`${tenant}\n${origin}`);
    if (reading !== undefined) reading.outdated = true;
    if (events.hasSubscribers) events.publish({ event: 'invalidation', tenant, origin });
  }

  /** (Re)subscribed: changes made while cut off were not delivered, so every verdict is read again. */
  #up(): void {
    if (this.#closed) return;
    const again = this.#size > 0 || this.#outageTold;
    this.#entries.clear();
    this.#size = 0;
    for (const reading of this.#reading.values()) reading.outdated = true;
    this.#listening = true;
    if (again && events.hasSubscribers) events.publish({ event: 'reconnect', store: this.#backend.name });
    this.#recovered();
  }

  #down(error?: unknown): void {
    if (this.#closed) return;
    this.#listening = false;
    this.#outage(error);
  }

  #outage(error: unknown): void {
    if (this.#outageTold) return;
    this.#outageTold = true;
    if (events.hasSubscribers) events.publish({ event: 'outage', store: this.#backend.name });
    this.#logger.error(
      `@lib/cors origin store: ${this.#backend.name} cannot be reached (${error instanceof Error ? error.message : String(error ?? 'the change feed was cut off')}). ` +
        `Origins it allowed in the last ${this.#maxStale} ms (maxStale) are still allowed; others are refused until it answers. Told once.`,
    );
  }

  #recovered(): void {
    if (!this.#outageTold || !this.#listening) return;
    this.#outageTold = false;
    if (events.hasSubscribers) events.publish({ event: 'recovered', store: this.#backend.name });
    (this.#logger.warn ?? this.#logger.error).call(this.#logger, `@lib/cors origin store: ${this.#backend.name} answers again.`);
  }
}
