/** Issue 48 on a real PostgreSQL, through pg and postgres.js (the scenarios: helpers/origin-store-scenarios.ts). */
import pg from 'pg';
import t from 'tap';

import { postgresOrigins } from '@lib/cors/origin-store';

import { CLIENTS, PARTNER, recordingLogger, storeScenarios, TENANT } from '../../helpers/origin-store-scenarios.js';
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
