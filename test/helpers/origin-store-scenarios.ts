/**
 * The scenarios of issue 48, run by origin-store-redis.test.ts and origin-store-postgres.test.ts
 * (a file each, so the two run side by side within tap's per-file timeout). Issue 48: allowed origins kept in a real Redis and a real PostgreSQL (Debian's, started on
 * loopback by test/helpers/stores.ts), through each client users run: ioredis and redis
 * (node-redis), pg and postgres.js. Two stores on separate connections stand for two instances
 * of an application; one serves HTTP through the standalone middleware. Every TTL is a minute,
 * so an answer that changes sooner can only come from the store's change feed or a re-read
 * after a reconnect.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';

import { Redis } from 'ioredis';
import pg from 'pg';
import postgres from 'postgres';
import { createClient } from 'redis';
import type { Test } from 'tap';

import { type OriginStore, type OriginStoreEvent, postgresOrigins, redisOrigins } from '@lib/cors/origin-store';
import { createCors } from '@lib/cors/standalone';

import { serve } from './http.js';
import { type StoreServer, startPostgres, startRedis } from './stores.js';

export const PARTNER = 'https://partner.test';
const OTHER = 'https://other.test';
export const TENANT = 'acme';
const MINUTE = 60_000;

type Store = OriginStore<IncomingMessage>;

export interface Client {
  readonly name: string;
  readonly start: (t: Test) => Promise<StoreServer>;
  /** A store on connections of its own, as one instance of the application would have. */
  readonly open: (
    server: StoreServer,
    logger: { error(message: string): void; warn(message: string): void },
  ) => Promise<{ store: Store; close(): Promise<void> }>;
}

const settings = (logger: { error(message: string): void; warn(message: string): void }) => ({
  tenant: (request: IncomingMessage) => request.headers['x-tenant'] as string | undefined,
  ttl: { allowed: MINUTE, denied: MINUTE },
  maxStale: MINUTE,
  lookupTimeout: 300,
  logger,
});

/** A store and its client, closed in that order. */
function closing(store: Store, closeClient: () => unknown): { store: Store; close(): Promise<void> } {
  return {
    store,
    async close() {
      await store.close();
      await closeClient();
    },
  };
}

export const CLIENTS: Client[] = [
  {
    name: 'ioredis',
    start: startRedis,
    async open(server, logger) {
      const client = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
      client.on('error', () => {});
      const store = redisOrigins<IncomingMessage>({ client, ...settings(logger) });
      return closing(store, () => client.disconnect());
    },
  },
  {
    name: 'redis (node-redis)',
    start: startRedis,
    async open(server, logger) {
      const client = createClient({ url: server.url, socket: { reconnectStrategy: () => 100 } });
      client.on('error', () => {});
      await client.connect();
      const store = redisOrigins<IncomingMessage>({ client, ...settings(logger) });
      return closing(store, () => client.destroy());
    },
  },
  {
    name: 'pg',
    start: startPostgres,
    async open(server, logger) {
      const client = new pg.Pool({ connectionString: server.url, connectionTimeoutMillis: 300 });
      client.on('error', () => {});
      const store = postgresOrigins<IncomingMessage>({ client, createTable: true, reconnectDelay: 100, ...settings(logger) });
      return closing(store, () => client.end());
    },
  },
  {
    name: 'postgres (postgres.js)',
    start: startPostgres,
    async open(server, logger) {
      const client = postgres(server.url, { connect_timeout: 1, onnotice: () => {} });
      const store = postgresOrigins<IncomingMessage>({ client, createTable: true, ...settings(logger) });
      return closing(store, () => client.end({ timeout: 0 }));
    },
  },
];

export function recordingLogger() {
  const lines: string[] = [];
  return { lines, error: (message: string) => void lines.push(`error: ${message}`), warn: (message: string) => void lines.push(`warn: ${message}`) };
}

/** Polls `check` every 5 ms until it holds; the time it took, or a failure after `timeout`. */
export async function within(timeout: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeout) throw new Error(`not within ${timeout} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return Date.now() - started;
}

/** Retries `write` until the store takes it (right after a restart it may refuse a moment), for up to 20 s. */
export async function written(write: () => Promise<void>): Promise<void> {
  await within(20_000, async () => {
    try {
      await write();
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * A store server and two instances on it, each with its own connections and logger: `a` serves
 * HTTP through the standalone middleware under its store, `b` writes.
 */
async function twoInstances(t: Test, client: Client) {
  const server = await client.start(t);
  const logger = recordingLogger();
  const a = await client.open(server, logger);
  await a.store.ready;
  const b = await client.open(server, recordingLogger());
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  await b.store.ready;
  const cors = createCors({ origin: a.store.origin, allowCredentials: true }).route('GET', '/data');
  const http = await serve((req, res) => cors.handle(req, res, () => res.end('data')));
  t.teardown(http.close);
  return { server, logger, a, b, cors, http };
}

/** Every scenario, under `t`, for each of `clients`. */
export function storeScenarios(t: Test, clients: readonly Client[]): void {
  for (const client of clients) {
    t.test(`${client.name}: a grant and a revocation written once reach the other instance through the feed`, async (t) => {
      const { a, b, cors, http, logger } = await twoInstances(t, client);
      const granted = async (origin = PARTNER, tenant = TENANT) =>
        (await http.send('GET', '/data', { Origin: origin, 'X-Tenant': tenant })).headers['access-control-allow-origin'] === origin;

      t.notOk(await granted(), 'not on the list yet');
      const seen: OriginStoreEvent[] = [];
      const listener = (message: unknown) => void seen.push(message as OriginStoreEvent);
      subscribe('lib-cors:origin-store', listener);
      t.teardown(() => unsubscribe('lib-cors:origin-store', listener));
      await b.store.grant(TENANT, PARTNER);
      await within(5_000, () => granted());
      t.ok(
        seen.some((event) => event.event === 'invalidation' && event.tenant === TENANT && event.origin === PARTNER),
        'the denied verdict kept for a minute was dropped by the feed',
      );
      t.ok(await granted(), 'granted, from the cache now');
      t.ok(
        seen.some((event) => event.event === 'hit' && event.allowed),
        'a cache hit is published',
      );
      t.notOk(await granted(PARTNER, 'another-tenant'), "another tenant's list does not have it");
      t.notOk(await granted(PARTNER, ''), 'nor has an empty one');
      t.equal(a.store.cached(TENANT, PARTNER)?.allowed, true, 'the cache holds the verdict');
      const explained = await cors.explain({ method: 'GET', url: '/data', headers: { origin: PARTNER, 'x-tenant': TENANT } });
      t.match(
        explained,
        { allowed: true, originVerdict: { from: 'cache' }, message: /held in the origin store's cache, \d+ ms old/ },
        'explain() says the verdict came from the cache, and its age',
      );
      const fresh = await cors.explain({ method: 'GET', url: '/data', headers: { origin: OTHER, 'x-tenant': TENANT } });
      t.match(
        fresh,
        { allowed: false, originVerdict: { from: 'store', age: 0 }, message: /read from the origin store/ },
        'and that one not held was read from the store',
      );

      await b.store.revoke(TENANT, PARTNER);
      const took = await within(5_000, async () => !(await granted()));
      t.ok(took < 5_000, `the revocation reached the instance in ${took} ms, with a minute of TTL left`);
      t.equal((await http.send('GET', '/data', { Origin: PARTNER, 'X-Tenant': TENANT })).status, 200, 'refused, the route still answers');

      await t.rejects(
        b.store.grant(TENANT, 'https://partner.test/'),
        { code: 'CORS_INVALID_ORIGIN', message: /'https:\/\/partner\.test'/ },
        'the fix is the origin itself',
      );

      // Tenants come from the application: one may be empty, or hold the feed's own separator.
      for (const tenant of ['', 'line one\nline two']) {
        t.equal(await a.store.allows(tenant, PARTNER), false, `${JSON.stringify(tenant)}: not on the list yet (held for a minute)`);
        await b.store.grant(tenant, PARTNER);
        await within(5_000, async () => (await a.store.allows(tenant, PARTNER)) === true);
        t.pass(`${JSON.stringify(tenant)}: the grant reached the other instance through the feed`);
      }
      t.same(logger.lines, [], 'nothing logged while the store answers');
    });

    t.test(`${client.name}: a store written and read the moment it is made, before it is subscribed`, async (t) => {
      // An application may grant from its first request; with createTable the table may not exist yet.
      const instance = await client.open(await client.start(t), recordingLogger());
      t.teardown(instance.close);
      await instance.store.grant(TENANT, PARTNER);
      t.equal(await instance.store.allows(TENANT, PARTNER), true, 'the grant is kept');
      t.equal(await instance.store.allows(TENANT, OTHER), false, 'and no other origin is allowed');
    });

    t.test(
      `${client.name}: the store killed mid-run: known origins from cache, others refused, no 5xx, no wait, told once; back without a restart`,
      async (t) => {
        const { server, a, b, http, logger } = await twoInstances(t, client);
        const ask = (origin: string) => http.send('GET', '/data', { Origin: origin, 'X-Tenant': TENANT });

        // The grant's message on the feed may reach A after A has read the grant from the store, and
        // drop what A holds. So A first holds a refusal for a minute: the grant is seen once the feed
        // has dropped it, and what A holds after that can only be the store's allowed verdict.
        t.equal((await ask(PARTNER)).headers['access-control-allow-origin'], undefined, 'not on the list yet');
        await b.store.grant(TENANT, PARTNER);
        await within(5_000, async () => (await ask(PARTNER)).headers['access-control-allow-origin'] === PARTNER);
        t.equal(a.store.cached(TENANT, PARTNER)?.allowed, true, 'the cache holds the grant before the store goes');

        await server.kill();
        for (let i = 0; i < 5; i++) {
          const started = Date.now();
          const [known, unknown] = await Promise.all([ask(PARTNER), ask(`https://n${i}.test`)]);
          t.equal(known.status, 200);
          t.equal(unknown.status, 200, 'no 5xx for an origin the store cannot check');
          t.equal(known.headers['access-control-allow-origin'], PARTNER, 'a known origin is answered from the cache');
          t.equal(unknown.headers['access-control-allow-origin'], undefined, 'an origin it cannot check is refused');
          t.ok(Date.now() - started < 5_000, 'no request waits for the store past the lookup timeout');
        }
        t.equal(logger.lines.filter((line) => line.startsWith('error:')).length, 1, 'the outage is told once');
        t.match(logger.lines[0], /cannot be reached.*maxStale/);

        await server.start();
        // A revocation written when the store is back, whether or not instance A is listening yet:
        // delivered through the feed, or read again after A subscribes again.
        await written(() => b.store.revoke(TENANT, PARTNER));
        await within(20_000, async () => (await ask(PARTNER)).headers['access-control-allow-origin'] === undefined);
        t.pass('the revocation is applied after the outage, with a minute of TTL left');
        await b.store.grant(TENANT, OTHER);
        await within(20_000, async () => (await ask(OTHER)).headers['access-control-allow-origin'] === OTHER);
        t.pass('and new grants are read again without a restart');
      },
    );
  }
}
