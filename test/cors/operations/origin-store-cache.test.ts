/**
 * OriginStore's cache rules (issue 48), checked against a fake backend instead of Redis or
 * PostgreSQL: one read per key at a time, separate TTLs for allowed and denied verdicts,
 * stale-while-revalidate, the size bound, fail-closed on a slow or failing store, the change feed
 * (invalidation, reconnect, outage), the generation check, tenants, writes and option checks.
 *
 * Timing: each wait is only ever "longer than some TTL" (a busy machine can lengthen a wait, never
 * shorten it), and whatever must still be fresh is given a TTL of a minute. Nothing asserts how
 * long something took; the checks are verdicts, counts of has() calls, events and log lines.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';

import t, { type Test } from 'tap';

import { OriginStore, type OriginStoreEvent } from '@lib/cors/origin-store';
import { createCors } from '@lib/cors/standalone';

import { serve } from '../../helpers/http.js';

const A = 'https://a.test';
const B = 'https://b.test';
const C = 'https://c.test';
const DENIED = 'https://denied.test';
const LONG = 60_000;

/** What the feed hands the store, as in the `Backend` interface (not exported from the entry). */
interface FeedEvents {
  changed(tenant: string, origin: string): void;
  up(): void;
  down(error?: unknown): void;
}

/** has()'s answer for one call: a verdict now, or a promise the test settles (or never settles). */
type Answer = (tenant: string, origin: string) => boolean | Promise<boolean>;

/**
 * A backend shaped like `Backend` whose every answer the test decides. `listen()` subscribes the
 * way the adapters do (up() before it resolves), so a store is listening once `ready` resolves.
 */
function fakeBackend() {
  const reads: string[] = [];
  const writes: [string, string, boolean][] = [];
  let listens = 0;
  let closes = 0;
  let events: FeedEvents | undefined;
  const fake = {
    answer: ((_tenant, origin) => origin !== DENIED) as Answer,
    reads,
    writes,
    get listens() {
      return listens;
    },
    get closes() {
      return closes;
    },
    /** How many times has() was asked about `origin` (any tenant). */
    readsOf: (origin: string) => reads.filter((read) => read.endsWith(` ${origin}`)).length,
    /** The callbacks the store gave listen(): the test calls them as a real store's feed would. */
    get feed(): FeedEvents {
      if (events === undefined) throw new Error('listen() was not called');
      return events;
    },
    backend: {
      name: 'fake-store',
      has(tenant: string, origin: string): Promise<boolean> {
        reads.push(`${tenant} ${origin}`);
        try {
          return Promise.resolve(fake.answer(tenant, origin));
        } catch (error) {
          return Promise.reject(error);
        }
      },
      async write(tenant: string, origin: string, allowed: boolean): Promise<void> {
        writes.push([tenant, origin, allowed]);
      },
      async listen(feedEvents: FeedEvents): Promise<void> {
        listens++;
        events = feedEvents;
        feedEvents.up();
      },
      async close(): Promise<void> {
        closes++;
      },
    },
  };
  return fake;
}

function recordingLogger() {
  const errors: string[] = [];
  const warnings: string[] = [];
  return { errors, warnings, error: (message: string) => void errors.push(message), warn: (message: string) => void warnings.push(message) };
}

/** A promise the test resolves when it chooses: a store read still in flight. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Lets the .then() chains of a read that just settled run. */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Every event published on the store's channel while the calling test runs. */
function recordEvents(t: Test): OriginStoreEvent[] {
  const seen: OriginStoreEvent[] = [];
  const listener = (message: unknown) => void seen.push(message as OriginStoreEvent);
  subscribe('lib-cors:origin-store', listener);
  t.teardown(() => void unsubscribe('lib-cors:origin-store', listener));
  return seen;
}

// A lookup that hangs would otherwise end only at tap's file timeout, naming no test. HUNG_AFTER
// is far above every lookupTimeout used here, so only a real hang reaches it.
const HUNG_AFTER = 5_000;
async function notHung<T>(what: string, lookup: T | Promise<T>): Promise<T> {
  let guard: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    guard = setTimeout(() => reject(new Error(`${what}: no verdict within ${HUNG_AFTER} ms, the lookup hangs`)), HUNG_AFTER);
  });
  try {
    return await Promise.race([Promise.resolve(lookup), hung]);
  } finally {
    clearTimeout(guard);
  }
}

t.test('a miss reads the store once, concurrent lookups share that read, and a hit is a plain boolean without a read', async (t) => {
  const fake = fakeBackend();
  const store = new OriginStore(fake.backend, { logger: recordingLogger(), lookupTimeout: LONG });
  await store.ready;
  const read = deferred<boolean>();
  fake.answer = () => read.promise;

  const first = store.allows('default', A);
  const second = store.allows('default', A);
  t.ok(first instanceof Promise, 'a miss answers with a promise');
  t.ok(second instanceof Promise, 'so does a lookup made while the read is in flight');
  t.equal(fake.readsOf(A), 1, 'both lookups wait on one has() call');
  read.resolve(true);
  t.same(await Promise.all([first, second]), [true, true], 'both get the one answer');

  const hit = store.allows('default', A);
  t.type(hit, 'boolean', 'a hit is answered synchronously, not with a promise');
  t.equal(hit, true);
  t.equal(fake.readsOf(A), 1, 'a hit does not read the store');
});

t.test('denied verdicts expire after ttl.denied while allowed ones last ttl.allowed', async (t) => {
  const fake = fakeBackend();
  const store = new OriginStore(fake.backend, { logger: recordingLogger(), ttl: { allowed: LONG, denied: 50 } });
  await store.ready;
  t.equal(await store.allows('default', A), true);
  t.equal(await store.allows('default', DENIED), false);
  // Longer than ttl.denied, far shorter than ttl.allowed however slow the machine.
  await sleep(120);

  t.equal(store.allows('default', A), true, 'the allowed verdict is still a hit past ttl.denied');
  t.equal(fake.readsOf(A), 1, 'so it is not read again');
  t.equal(store.cached('default', A)?.allowed, true, 'explain() sees the allowed verdict held');
  t.equal(store.cached('default', DENIED), undefined, 'and not the expired denied one, which the next request reads again');
  const again = store.allows('default', DENIED);
  t.ok(again instanceof Promise, 'the denied verdict has expired');
  t.equal(await again, false);
  t.equal(fake.readsOf(DENIED), 2, 'so the denied origin is read again');
});

t.test('an allowed verdict past its TTL but within maxStale is used while one background read refreshes it', async (t) => {
  const fake = fakeBackend();
  const events = recordEvents(t);
  const store = new OriginStore(fake.backend, { logger: recordingLogger(), ttl: { allowed: 50 }, maxStale: LONG, lookupTimeout: LONG });
  await store.ready;
  t.equal(await store.allows('default', A), true);
  await sleep(120);

  // The origin has been revoked meanwhile; the store says so when the refresh is let through.
  const refresh = deferred<boolean>();
  fake.answer = () => refresh.promise;
  const stale = store.allows('default', A);
  t.type(stale, 'boolean', 'the stale verdict is answered synchronously');
  t.equal(stale, true, 'and is still the allowed one');
  t.equal(fake.readsOf(A), 2, 'one background read was started');
  t.equal(store.allows('default', A), true, 'a second stale lookup is also answered at once');
  t.equal(fake.readsOf(A), 2, 'without starting another read');
  t.ok(
    events.some((event) => event.event === 'stale' && event.origin === A),
    'the stale use is published',
  );

  refresh.resolve(false);
  await settled();
  t.equal(await store.allows('default', A), false, 'the refreshed verdict (now denied) is used next');
  t.equal(fake.readsOf(A), 2, 'from the cache, as the refresh kept it');
});

t.test('with maxEntries 2, a third origin pushes the first out, so it is read again', async (t) => {
  const fake = fakeBackend();
  const store = new OriginStore(fake.backend, { logger: recordingLogger(), maxEntries: 2 });
  await store.ready;
  for (const origin of [A, B, C]) t.equal(await store.allows('default', origin), true);
  t.equal(fake.reads.length, 3);

  t.equal(store.allows('default', C), true, 'the last one read is kept');
  t.equal(fake.reads.length, 3);
  const first = store.allows('default', A);
  t.ok(first instanceof Promise, 'the first one read was dropped');
  t.equal(await first, true);
  t.equal(fake.readsOf(A), 2, 'so it is read again');
});

t.test('maxEntries counts verdicts over every tenant: the tenant held longest gives up its oldest first', async (t) => {
  const fake = fakeBackend();
  const store = new OriginStore(fake.backend, { logger: recordingLogger(), maxEntries: 2 });
  await store.ready;
  await store.allows('first', A);
  await store.allows('second', A);
  await store.allows('second', B);
  t.equal(typeof store.allows('second', A), 'boolean', "the second tenant's verdicts are held");
  t.equal(typeof store.allows('second', B), 'boolean');
  t.ok(store.allows('first', A) instanceof Promise, "the first tenant's was dropped, not a third verdict kept");
});

t.test('a store that never answers: each lookup is refused after lookupTimeout, and the outage is logged once naming maxStale', async (t) => {
  const fake = fakeBackend();
  const logger = recordingLogger();
  const events = recordEvents(t);
  const store = new OriginStore(fake.backend, { logger, lookupTimeout: 20 });
  await store.ready;
  fake.answer = () => new Promise<boolean>(() => {});

  // A fresh origin each time, so every lookup waits on its own read and its own timer.
  for (const origin of [A, B, C, 'https://d.test', 'https://e.test']) {
    const verdict = await notHung(origin, store.allows('default', origin));
    t.equal(verdict, false, `${origin} is refused (fail closed), not rejected`);
  }
  t.equal(fake.reads.length, 5);
  t.equal(logger.errors.length, 1, 'the outage is told once, however many lookups time out');
  t.match(logger.errors[0], /maxStale/, 'naming what is still allowed during it');
  t.match(logger.errors[0], /gave no answer in 20 ms/);
  t.equal(events.filter((event) => event.event === 'outage').length, 1, 'and published once');
});

t.test('a store read that rejects refuses the origin instead of rejecting the lookup', async (t) => {
  const fake = fakeBackend();
  const logger = recordingLogger();
  const store = new OriginStore(fake.backend, { logger });
  await store.ready;
  fake.answer = () => Promise.reject(new Error('connection reset'));

  const lookup = store.allows('default', A);
  t.ok(lookup instanceof Promise, 'a miss');
  await t.resolveMatch(Promise.resolve(lookup), false, 'the lookup resolves to a refusal');
  t.equal(logger.errors.length, 1);
  t.match(logger.errors[0], /connection reset/);
  // Not kept: the next lookup asks the store again, which can answer now.
  fake.answer = () => true;
  t.equal(await store.allows('default', A), true, 'a failed read is not cached');
});

t.test('the feed: changed() drops that verdict and publishes invalidation; up() drops all verdicts and publishes reconnect', async (t) => {
  const fake = fakeBackend();
  const events = recordEvents(t);
  const store = new OriginStore(fake.backend, { logger: recordingLogger() });
  await store.ready;
  t.equal(await store.allows('default', A), true);
  t.equal(await store.allows('default', B), true);
  t.equal(store.allows('default', A), true, 'A is cached');

  fake.feed.changed('default', A);
  t.ok(
    events.some((event) => event.event === 'invalidation' && event.tenant === 'default' && event.origin === A),
    'the invalidation is published with its tenant and origin',
  );
  const afterChange = store.allows('default', A);
  t.ok(afterChange instanceof Promise, 'the changed verdict is gone');
  t.equal(await afterChange, true);
  t.equal(fake.readsOf(A), 2, 'so A is read again');
  t.equal(store.allows('default', B), true, 'another origin keeps its verdict');
  t.equal(fake.readsOf(B), 1);

  fake.feed.up();
  t.ok(
    events.some((event) => event.event === 'reconnect' && event.store === 'fake-store'),
    'a resubscription with verdicts cached publishes reconnect',
  );
  for (const origin of [A, B]) {
    const lookup = store.allows('default', origin);
    t.ok(lookup instanceof Promise, `${origin} was dropped by the reconnect`);
    t.equal(await lookup, true);
  }
  t.equal(fake.readsOf(A), 3, 'every key is read again');
  t.equal(fake.readsOf(B), 2);
});

t.test('while the feed is down, an allowed verdict older than maxStale is read again within its TTL; a denied one stays a refusal', async (t) => {
  const fake = fakeBackend();
  const logger = recordingLogger();
  const store = new OriginStore(fake.backend, { logger, ttl: { allowed: LONG, denied: LONG }, maxStale: 50 });
  await store.ready;
  t.equal(await store.allows('default', A), true);
  t.equal(await store.allows('default', DENIED), false);
  await sleep(120);

  // The control: while the feed is up, maxStale does not shorten a TTL.
  t.equal(store.allows('default', A), true, 'with the feed up, the allowed verdict is a hit past maxStale');
  t.equal(store.allows('default', DENIED), false, 'and so is the denied one');
  t.equal(fake.reads.length, 2);

  fake.feed.down(new Error('feed cut'));
  t.equal(logger.errors.length, 1, 'the cut is told');
  const lookup = store.allows('default', A);
  t.ok(lookup instanceof Promise, 'with the feed down, the allowed verdict older than maxStale is not used');
  t.equal(await lookup, true);
  t.equal(fake.readsOf(A), 2, 'it is read again');

  // A denied verdict is never widened by the outage: the cache drops it like every verdict older
  // than maxStale while changes may be missed (a grant may have been missed too), and if the store
  // cannot answer, the origin is still refused.
  fake.answer = () => Promise.reject(new Error('store unreachable'));
  t.equal(await store.allows('default', DENIED), false, 'the denied origin is still refused');
  t.equal(fake.readsOf(DENIED), 2, 'after asking the store, as no verdict outlives maxStale while the feed is down');
});

t.test('a read that began before a changed() for its key is not kept (generation check)', async (t) => {
  const fake = fakeBackend();
  const store = new OriginStore(fake.backend, { logger: recordingLogger(), lookupTimeout: LONG });
  await store.ready;
  const read = deferred<boolean>();
  fake.answer = () => read.promise;

  const lookup = store.allows('default', A);
  // The change lands while the read is in flight: its answer may predate the change.
  fake.feed.changed('default', A);
  read.resolve(true);
  t.equal(await lookup, true, 'the request that started the read still gets its answer');

  fake.answer = () => false;
  const next = store.allows('default', A);
  t.ok(next instanceof Promise, 'the answer from before the change was not cached');
  t.equal(await next, false, 'the store is asked again and its current answer used');
  t.equal(fake.readsOf(A), 2);
});

t.test("the origin property checks the request's tenant, and a request without one is refused without a read", async (t) => {
  interface Request {
    host?: string;
  }
  const fake = fakeBackend();
  const store = new OriginStore<Request>(fake.backend, { logger: recordingLogger(), tenant: (request) => request.host });
  await store.ready;

  t.equal(await store.origin(A, { host: 'acme' }), true);
  t.same(fake.reads, [`acme ${A}`], "has() is asked about the request's tenant");
  t.equal(store.origin(A, { host: 'acme' }), true, 'and the verdict is cached per tenant');

  const refused = store.origin(A, {});
  t.equal(refused, false, 'no tenant: refused synchronously');
  t.equal(fake.reads.length, 1, 'without reading the store');
});

t.test('a tenant function that throws refuses the origin, cached verdict or not, and the server answers', async (t) => {
  const fake = fakeBackend();
  const faults: string[] = [];
  // A tenant read as a header the request may lack: toLowerCase() of undefined throws.
  const store = new OriginStore<IncomingMessage>(fake.backend, {
    logger: recordingLogger(),
    tenant: (request) => (request.headers['x-tenant'] as string).toLowerCase(),
  });
  await store.ready;
  const logger = { warn: () => {}, error: (line: string) => void faults.push(line) };
  const cors = createCors({ origin: store.origin, allowCredentials: true }, { logger }).route('GET', '/data');
  const http = await serve((req, res) => cors.handle(req, res, () => res.end('data')));
  t.teardown(http.close);

  const granted = await http.send('GET', '/data', { Origin: A, 'X-Tenant': 'Acme' });
  t.equal(granted.headers['access-control-allow-origin'], A, 'with a tenant: granted, and now held in the cache');
  for (let i = 0; i < 2; i++) {
    const answer = await http.send('GET', '/data', { Origin: A });
    t.equal(answer.status, 200, 'without one: the route still answers');
    t.equal(answer.headers['access-control-allow-origin'], undefined, 'and the origin is refused');
  }
  t.match(faults[0], /threw TypeError/, "the fault is reported as an origin function's");
});

t.test("originCache with a store's origin is refused: keyed by origin alone, it would cross tenants and outlive revocations", async (t) => {
  const store = new OriginStore(fakeBackend().backend, { logger: recordingLogger() });
  t.throws(() => createCors({ origin: store.origin, originCache: { max: 100, ttl: 60_000 } }), {
    code: 'CORS_ORIGIN_CACHE_WITHOUT_FUNCTION',
    message: /ttl and maxEntries/,
  });
});

t.test('options that cannot work are refused at construction, each named with a fix that is accepted', async (t) => {
  const fake = fakeBackend();
  const cases: [string, Record<string, unknown>, string][] = [
    ['a tenant that is not a function', { tenant: 'acme' }, 'tenant'],
    ['a ttl that is a number', { ttl: 1000 }, 'ttl'],
    ['a lookupTimeout past the longest timer', { lookupTimeout: 2 ** 31 }, 'lookupTimeout'],
    ['a logger without error()', { logger: { warn() {} } }, 'logger'],
  ];
  for (const [what, options, field] of cases) {
    let error: { field?: string; errors?: { fix: string }[] } | undefined;
    try {
      new OriginStore(fake.backend, { logger: recordingLogger(), ...options } as never);
    } catch (thrown) {
      error = thrown as typeof error;
    }
    t.equal(error?.field, field, `${what}: refused, naming ${field}`);
    t.ok((error?.errors?.[0]?.fix.length ?? 0) > 0, `${what}: a fix is given`);
  }
  t.equal(fake.listens, 0, 'no store was started');
  const fixed = new OriginStore(fake.backend, {
    logger: recordingLogger(),
    tenant: () => 'acme',
    ttl: { allowed: 1000, denied: 1000 },
    lookupTimeout: 2 ** 31 - 1,
  });
  t.ok(fixed, 'the fixed forms are accepted');
  await fixed.close();
});

t.test('grant() and revoke() write through the backend; an origin that is not serialized is rejected without a write', async (t) => {
  const fake = fakeBackend();
  const store = new OriginStore(fake.backend, { logger: recordingLogger() });
  await store.ready;

  await store.grant('acme', A);
  await store.revoke('acme', B);
  t.same(fake.writes, [
    ['acme', A, true],
    ['acme', B, false],
  ]);

  await t.rejects(
    store.grant('acme', 'https://a.test/'),
    { code: 'CORS_INVALID_ORIGIN', message: /'https:\/\/a\.test'/ },
    'a trailing slash is refused, the fix named',
  );
  await t.rejects(store.revoke('acme', 'a.test'), { code: 'CORS_INVALID_ORIGIN' }, 'a bare host is refused');
  t.equal(fake.writes.length, 2, 'neither reached the backend');
});

t.test('a negative TTL throws CORS_INVALID_NUMBER naming ttl.denied, before the feed is started', async (t) => {
  const fake = fakeBackend();
  t.throws(() => new OriginStore(fake.backend, { logger: recordingLogger(), ttl: { denied: -5 } }), {
    code: 'CORS_INVALID_NUMBER',
    field: 'ttl.denied',
    message: /ttl\.denied: 5000/,
  });
  t.equal(fake.listens, 0, 'listen() was not called, so no subscription is left behind');
});

t.test('after close(), the feed being cut off is not news: nothing is logged', async (t) => {
  const fake = fakeBackend();
  const logger = recordingLogger();
  const events = recordEvents(t);
  const store = new OriginStore(fake.backend, { logger });
  await store.ready;
  await store.close();
  t.equal(fake.closes, 1, 'the backend is closed');

  fake.feed.down(new Error('connection closed'));
  t.same(logger.errors, [], 'no error is logged');
  t.same(logger.warnings, []);
  t.notOk(
    events.some((event) => event.event === 'outage'),
    'no outage is published',
  );
});
