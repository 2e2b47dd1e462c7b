/**
 * Allowed origins in Redis, through the application's `ioredis` or `redis` (node-redis) client:
 * one set per tenant (`<prefix>:<tenant>`), changes published on `<prefix>:changes` in the same
 * MULTI as the write, so no change is written without being announced. Reading needs the
 * client; the feed needs a connection of its own in subscriber mode (`subscriber`, or one made
 * with the client's own `duplicate()`).
 */
import type { IncomingMessage } from 'node:http';

import { type Backend, changeMessage, OriginStore, type OriginStoreOptions, readChange } from './origin-store.js';
import { checkStoreOptions, invalidStoreOption, KEY_PART } from './store-options.js';

/** What is used of an ioredis client. */
interface IoRedisLike {
  sismember(key: string, member: string): Promise<number>;
  multi(): {
    sadd(key: string, member: string): unknown;
    srem(key: string, member: string): unknown;
    publish(channel: string, message: string): unknown;
    exec(): Promise<unknown>;
  };
  subscribe(channel: string): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  duplicate(): IoRedisLike;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
  disconnect(): void;
  readonly status?: string;
}

/** What is used of a node-redis client. */
interface NodeRedisLike {
  sIsMember(key: string, member: string): Promise<number | boolean>;
  multi(): {
    sAdd(key: string, member: string): unknown;
    sRem(key: string, member: string): unknown;
    publish(channel: string, message: string): unknown;
    exec(): Promise<unknown>;
  };
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  unsubscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  duplicate(): NodeRedisLike;
  connect(): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
  destroy?(): void;
  disconnect?(): Promise<void>;
  readonly isOpen?: boolean;
}

export interface RedisOriginsOptions<Req> extends OriginStoreOptions<Req> {
  /** The application's `ioredis` or `redis` client, for reads and writes. */
  client: unknown;
  /** A connection for the change feed; default: `client.duplicate()`, closed by `close()`. */
  subscriber?: unknown;
  /** Put before every key and the channel's name. Default `'lib-cors:origins'`. */
  prefix?: string;
}

const OWN_OPTIONS = ['client', 'subscriber', 'prefix'] as const;

/**
 * The origin store on Redis. `store.origin` is the `origin` option; `store.grant()` and
 * `store.revoke()` change a tenant's list on every instance.
 */
export function redisOrigins<Req = IncomingMessage>(options: RedisOriginsOptions<Req>): OriginStore<Req> {
  const source = 'redisOrigins()';
  checkStoreOptions(source, options, OWN_OPTIONS);
  const prefix = options.prefix ?? 'lib-cors:origins';
  if (typeof prefix !== 'string' || !KEY_PART.test(prefix)) {
    throw invalidStoreOption(source, 'prefix', prefix, 'is not a key prefix of letters, digits and : _ - .', "prefix: 'lib-cors:origins'");
  }
  const client = options.client as Partial<IoRedisLike & NodeRedisLike> | null;
  let backend: Backend;
  if (typeof client?.sismember === 'function') backend = ioredisBackend(client as IoRedisLike, options.subscriber as IoRedisLike | undefined, prefix);
  else if (typeof client?.sIsMember === 'function')
    backend = nodeRedisBackend(client as NodeRedisLike, options.subscriber as NodeRedisLike | undefined, prefix);
  else
    throw invalidStoreOption(
      source,
      'client',
      client,
      'is neither an ioredis nor a redis (node-redis) client',
      'client: new Redis(url) (ioredis), or await createClient({ url }).connect() (redis)',
    );
  return new OriginStore(backend, options);
}

/** The listeners a store puts on its subscriber, by event, to take them off at close(). */
type FeedListeners = Record<string, (...args: unknown[]) => void>;

/**
 * Stores open on an application's ioredis subscriber, by channel: ioredis subscribes a connection,
 * not a listener, so the channel is left only when the last store on it closes.
 */
const storesOnSubscriber = new WeakMap<object, Map<string, number>>();

function ioredisBackend(client: IoRedisLike, given: IoRedisLike | undefined, prefix: string): Backend {
  const channel = `${prefix}:changes`;
  // Made when the feed starts, after every option was checked: a refused option leaves no connection open.
  let subscriber = given;
  let listeners: FeedListeners = {};
  return {
    name: 'Redis',
    has: async (tenant, origin) => (await client.sismember(`${prefix}:${tenant}`, origin)) === 1,
    async write(tenant, origin, allowed) {
      const key = `${prefix}:${tenant}`;
      const multi = client.multi();
      if (allowed) multi.sadd(key, origin);
      else multi.srem(key, origin);
      multi.publish(channel, changeMessage(tenant, origin));
      // ioredis resolves a transaction whose commands failed, each with its own error.
      const results = (await multi.exec()) as [Error | null, unknown][] | null;
      if (results === null) throw new Error('Redis discarded the transaction');
      const failed = results.find(([error]) => error !== null);
      if (failed !== undefined) throw failed[0];
    },
    async listen(events) {
      subscriber ??= client.duplicate();
      const feed = subscriber;
      // Subscribed on every 'ready': ioredis subscribes again only to channels it had subscribed
      // to, and a first subscription made while Redis was down never was.
      const subscribe = async () => {
        await feed.subscribe(channel);
        events.up();
      };
      listeners = {
        message: (from, text) => {
          if (from === channel) readChange(String(text), events.changed);
        },
        ready: () => void subscribe().catch((error: unknown) => events.down(error)),
        close: () => events.down(),
        error: (error) => events.down(error),
      };
      for (const [event, listener] of Object.entries(listeners)) feed.on(event, listener);
      if (given !== undefined) {
        const open = storesOnSubscriber.get(given) ?? new Map<string, number>();
        storesOnSubscriber.set(given, open.set(channel, (open.get(channel) ?? 0) + 1));
      }
      await subscribe();
    },
    async close() {
      if (given === undefined) return subscriber?.disconnect();
      // The application's subscriber stays open: this store's listeners leave it, and the channel
      // with the last store on it.
      for (const [event, listener] of Object.entries(listeners)) given.off(event, listener);
      const open = storesOnSubscriber.get(given);
      const left = (open?.get(channel) ?? 1) - 1;
      if (left > 0) return void open?.set(channel, left);
      open?.delete(channel);
      await given.unsubscribe(channel).catch(() => {});
    },
  };
}

function nodeRedisBackend(client: NodeRedisLike, given: NodeRedisLike | undefined, prefix: string): Backend {
  const channel = `${prefix}:changes`;
  let subscriber = given;
  let listeners: FeedListeners = {};
  const onMessage = (text: string) => readChange(text, changed);
  let changed: (tenant: string, origin: string) => void = () => {};
  return {
    name: 'Redis',
    has: async (tenant, origin) => Number(await client.sIsMember(`${prefix}:${tenant}`, origin)) === 1,
    async write(tenant, origin, allowed) {
      const key = `${prefix}:${tenant}`;
      const multi = client.multi();
      if (allowed) multi.sAdd(key, origin);
      else multi.sRem(key, origin);
      multi.publish(channel, changeMessage(tenant, origin));
      await multi.exec();
    },
    async listen(events) {
      subscriber ??= client.duplicate();
      const feed = subscriber;
      changed = events.changed;
      // node-redis subscribes again by itself after a reconnect, then says 'ready'.
      listeners = {
        ready: () => events.up(),
        end: () => events.down(),
        reconnecting: () => events.down(),
        error: (error) => events.down(error),
      };
      for (const [event, listener] of Object.entries(listeners)) feed.on(event, listener);
      // A client given while it connects is not connected again (node-redis refuses that): the
      // subscription waits in its queue until it is ready.
      if (given === undefined || given.isOpen !== true) await feed.connect();
      await feed.subscribe(channel, onMessage);
      events.up();
    },
    async close() {
      if (subscriber === undefined) return;
      if (given !== undefined) {
        // The application's subscriber stays open: this store's listeners and subscription leave it.
        for (const [event, listener] of Object.entries(listeners)) given.off(event, listener);
        await given.unsubscribe(channel, onMessage).catch(() => {});
      } else if (typeof subscriber.destroy === 'function') subscriber.destroy();
      else await subscriber.disconnect?.();
    },
  };
}
