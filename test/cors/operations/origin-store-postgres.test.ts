/** Issue 48 on a real PostgreSQL, through pg and postgres.js (the scenarios: helpers/origin-store-scenarios.ts). */
import pg from 'pg';
import t from 'tap';

import { postgresOrigins } from '@lib/cors/origin-store';

import { CLIENTS, PARTNER, recordingLogger, storeScenarios, TENANT, within } from '../../helpers/origin-store-scenarios.js';
import { startPostgres } from '../../helpers/stores.js';

storeScenarios(
  t,
  CLIENTS.filter((client) => client.start === startPostgres),
);

t.test('a table whose name is also a reserved word of SQL (user) is made, written and read', async (t) => {
  const server = await startPostgres(t);
  const pool = new pg.Pool({ connectionString: server.url });
  const store = postgresOrigins({ client: pool, table: 'user', createTable: true, logger: recordingLogger() });
  t.teardown(async () => {
    await store.close();
    await pool.end();
  });
  await store.grant(TENANT, PARTNER);
  t.equal(await store.allows(TENANT, PARTNER), true, 'the grant is read back');
  await store.ready;
  t.same((await pool.query('SELECT tenant, origin FROM "user"')).rows, [{ tenant: TENANT, origin: PARTNER }], 'into that very table');
});

t.test('instances that name the table with its schema and without hear each other', async (t) => {
  const server = await startPostgres(t);
  const pool = new pg.Pool({ connectionString: server.url });
  const plain = postgresOrigins({ client: pool, table: 'origins', createTable: true, ttl: { denied: 60_000 }, logger: recordingLogger() });
  const qualified = postgresOrigins({ client: pool, table: 'public.origins', ttl: { denied: 60_000 }, logger: recordingLogger() });
  t.teardown(async () => {
    await plain.close();
    await qualified.close();
    await pool.end();
  });
  await plain.ready;
  await qualified.ready;
  t.equal(await qualified.allows(TENANT, PARTNER), false, 'refused, and held for a minute');
  await plain.grant(TENANT, PARTNER);
  await within(5_000, async () => (await qualified.allows(TENANT, PARTNER)) === true);
  t.pass('the grant reached the other through the feed');
});
