/** Issue 48 on a real Redis, through ioredis and node-redis (the scenarios: helpers/origin-store-scenarios.ts). */
import { Redis } from 'ioredis';
import pg from 'pg';
import t from 'tap';

import { postgresOrigins, redisOrigins } from '@lib/cors/origin-store';

import { CLIENTS, PARTNER, recordingLogger, storeScenarios, TENANT, within } from '../../helpers/origin-store-scenarios.js';
import { startRedis } from '../../helpers/stores.js';

storeScenarios(
  t,
  CLIENTS.filter((client) => client.start === startRedis),
);

t.test('an instance started while Redis is down refuses every origin, then serves once Redis is up', async (t) => {
  const server = await startRedis(t);
  const logger = recordingLogger();
  const writer = await CLIENTS[0]!.open(server, logger);
  await writer.store.grant(TENANT, PARTNER);
  await writer.close();
  await server.kill();
  const late = await CLIENTS[0]!.open(server, logger);
  t.teardown(() => late.close());
  t.equal(await late.store.allows(TENANT, PARTNER), false, 'fail closed while the store cannot be read');
  await server.start();
  await within(20_000, async () => (await late.store.allows(TENANT, PARTNER)) === true);
  t.pass('allowed once the store answers');
  // Told once the feed is subscribed again too, which may come a moment after the first read.
  await within(20_000, async () => logger.lines.some((line) => line.startsWith('warn:') && /answers again/.test(line)));
  t.pass('the end of the outage is told');
});

t.test('bad options name the option, the value and a fix that works', async (t) => {
  const server = await startRedis(t);
  const client = new Redis(server.url);
  t.teardown(() => client.disconnect());
  t.throws(() => redisOrigins({ client: {} }), { code: 'CORS_INVALID_ORIGIN_POLICY', field: 'client' });
  t.throws(() => redisOrigins({ client, prefix: 'has space' }), { code: 'CORS_INVALID_ORIGIN_POLICY', field: 'prefix' });
  t.throws(() => redisOrigins({ client, ttl: { allowed: -1 } }), { code: 'CORS_INVALID_NUMBER', field: 'ttl.allowed', message: /ttl\.allowed: 60000/ });
  t.throws(() => redisOrigins({ client, tll: 5 } as never), { code: 'CORS_UNKNOWN_OPTION', field: 'tll' });
  t.throws(() => postgresOrigins({ client: new pg.Client() }), { code: 'CORS_INVALID_ORIGIN_POLICY', field: 'client', message: /pg\.Pool/ });
  t.throws(() => postgresOrigins({ client: new pg.Pool(), table: 'Origins; DROP' }), { code: 'CORS_INVALID_ORIGIN_POLICY', field: 'table' });
  t.throws(() => postgresOrigins({ client: new pg.Pool(), table: `s.${'t'.repeat(64)}` }), {
    code: 'CORS_INVALID_ORIGIN_POLICY',
    field: 'table',
    message: /63/,
  });
  t.throws(() => postgresOrigins({ client: new pg.Pool(), reconnectDelay: -1 }), {
    code: 'CORS_INVALID_NUMBER',
    field: 'reconnectDelay',
    message: /reconnectDelay: 1000/,
  });
  // Each fix, applied as written, is accepted.
  const fixed = redisOrigins({ client, prefix: 'lib-cors:origins', ttl: { allowed: 60000 } });
  await fixed.ready;
  await fixed.close();
  t.pass('the fixes are accepted');
});

t.test('a write Redis refuses inside the transaction rejects grant(): ioredis resolves such a MULTI, the store does not', async (t) => {
  const server = await startRedis(t);
  const client = new Redis(server.url);
  t.teardown(() => client.disconnect());
  const store = redisOrigins({ client, logger: recordingLogger() });
  t.teardown(() => store.close());
  await store.ready;
  // A key of another type where the tenant's set belongs: SADD fails with WRONGTYPE.
  await client.set(`lib-cors:origins:${TENANT}`, 'not a set');
  await t.rejects(store.grant(TENANT, PARTNER), /WRONGTYPE/);
  await client.del(`lib-cors:origins:${TENANT}`);
  await store.grant(TENANT, PARTNER);
  t.equal(await store.allows(TENANT, PARTNER), true, 'and one it takes resolves');
});

t.test("a store on the application's own subscriber leaves it as it found it when closed", async (t) => {
  const server = await startRedis(t);
  const client = new Redis(server.url);
  const subscriber = new Redis(server.url);
  t.teardown(() => {
    client.disconnect();
    subscriber.disconnect();
  });
  const before = subscriber.eventNames().map((event) => [event, subscriber.listenerCount(event)]);
  for (let i = 0; i < 12; i++) {
    const store = redisOrigins({ client, subscriber, logger: recordingLogger() });
    await store.ready;
    await store.close();
  }
  t.same(
    subscriber.eventNames().map((event) => [event, subscriber.listenerCount(event)]),
    before,
    'no listener is left behind',
  );
  const channels = (await client.call('PUBSUB', 'CHANNELS')) as string[];
  t.same(channels, [], 'nor a subscription');

  // Two stores on it: the one that stays still hears the feed after the other closed.
  const staying = redisOrigins({ client, subscriber, ttl: { denied: 60_000 }, logger: recordingLogger() });
  const leaving = redisOrigins({ client, subscriber, logger: recordingLogger() });
  t.teardown(() => staying.close());
  await staying.ready;
  await leaving.ready;
  await leaving.close();
  t.equal(await staying.allows(TENANT, PARTNER), false, 'refused, and held for a minute');
  const writer = redisOrigins({ client, logger: recordingLogger() });
  await writer.grant(TENANT, PARTNER);
  await writer.close();
  await within(5_000, async () => (await staying.allows(TENANT, PARTNER)) === true);
  t.pass('its subscription was kept');
});
