/**
 * Allowed origins kept in PostgreSQL, shared by every instance: `DATABASE_URL=postgres://127.0.0.1/app
 * npm run example -- origin-store-postgres` (PORT=3000 by default). Start it twice on two ports and
 * grant or revoke an origin from either (or from any process with a store on the same database):
 * both answer the change at once. docs/operations.md, "Many instances".
 */
import pg from 'pg';

import { postgresOrigins } from '@lib/cors/origin-store';

import { serveTenantApi, tenantOfHost } from '../shared/tenant-api.js';

// A pool: the store keeps one of its connections for LISTEN, and takes another if that one fails.
// connectionTimeoutMillis: while PostgreSQL is down a read fails soon (the store refuses the
// origin then); the store tells the outage once, so the pool's own errors are not logged again.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://127.0.0.1/app', connectionTimeoutMillis: 1000 });
pool.on('error', () => {});

// createTable: the table (tenant, origin) is made at start when it is missing.
serveTenantApi('origin-store-postgres', postgresOrigins({ client: pool, createTable: true, tenant: tenantOfHost }));
