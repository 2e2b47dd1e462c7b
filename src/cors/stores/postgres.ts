/**
 * Allowed origins in PostgreSQL, through the application's `pg` Pool or `postgres` (postgres.js)
 * client: one row per tenant and origin. A change and its `pg_notify()` are one statement, so
 * PostgreSQL delivers the notification exactly when the change commits, and never without it.
 * The feed is a `LISTEN` on a connection of its own: with `pg`, one the pool lends for as long as
 * the store runs (taken again after the connection fails); postgres.js listens, and reconnects,
 * by itself.
 */
import type { IncomingMessage } from 'node:http';

import { type Backend, OriginStore, type OriginStoreOptions, readChange } from './origin-store.js';
import { checkStoreOptions, invalidStoreOption, LONGEST_TIMER, wholeNumber } from './store-options.js';

/** What is used of a pg Pool and the clients it lends. */
interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<{ rowCount: number | null }>;
  connect(): Promise<PgClientLike>;
  readonly totalCount: number;
}
interface PgClientLike {
  query(text: string): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  release(error?: Error | boolean): void;
}

/** What is used of a postgres.js `sql`. */
interface PostgresJsLike {
  unsafe(text: string, values?: unknown[]): Promise<unknown[]>;
  listen(channel: string, onNotify: (payload: string) => void, onListen?: () => void): Promise<{ unlisten(): Promise<void> }>;
}

export interface PostgresOriginsOptions<Req> extends OriginStoreOptions<Req> {
  /** The application's `pg` Pool (not a single Client: the feed needs connections it can take again), or postgres.js's `sql`. */
  client: unknown;
  /** The table, optionally schema-qualified; lower-case letters, digits and `_`. Default `'lib_cors_origins'`. */
  table?: string;
  /** Creates the table (`CREATE TABLE IF NOT EXISTS`) before listening. Default `false`. */
  createTable?: boolean;
  /** How long to wait before taking a new feed connection after one failed, in ms (pg only). Default 1,000. */
  reconnectDelay?: number;
}

const OWN_OPTIONS = ['client', 'table', 'createTable', 'reconnectDelay'] as const;
const TABLE = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/;

/**
 * The origin store on PostgreSQL. `store.origin` is the `origin` option; `store.grant()` and
 * `store.revoke()` change a tenant's list on every instance.
 */
export function postgresOrigins<Req = IncomingMessage>(options: PostgresOriginsOptions<Req>): OriginStore<Req> {
  const source = 'postgresOrigins()';
  checkStoreOptions(source, options, OWN_OPTIONS);
  const table = options.table ?? 'lib_cors_origins';
  if (typeof table !== 'string' || !TABLE.test(table)) {
    throw invalidStoreOption(source, 'table', table, 'is not a lower-case table name (schema.table allowed)', "table: 'lib_cors_origins'");
  }
  // PostgreSQL cuts a name at 63 bytes, and pg_notify() refuses a longer channel.
  if (table.split('.').some((part) => part.length > 63)) {
    throw invalidStoreOption(source, 'table', table, 'has a part longer than PostgreSQL takes (63 letters)', "table: 'lib_cors_origins'");
  }
  const reconnectDelay = wholeNumber('reconnectDelay', options.reconnectDelay, 1000, 0, LONGEST_TIMER);
  const statements = statementsFor(table, options.createTable === true);
  const client = options.client as (Partial<PgPoolLike & PostgresJsLike> & object) | null;
  let backend: Backend;
  if (typeof client === 'function' && typeof (client as PostgresJsLike).unsafe === 'function' && typeof (client as PostgresJsLike).listen === 'function') {
    backend = postgresJsBackend(client as PostgresJsLike, statements);
  } else if (typeof client?.connect === 'function' && typeof client.totalCount === 'number') {
    backend = pgBackend(client as PgPoolLike, statements, reconnectDelay);
  } else {
    throw invalidStoreOption(
      source,
      'client',
      client,
      'is neither a pg Pool nor a postgres.js sql',
      'client: new pg.Pool({ connectionString }) (pg), or postgres(url) (postgres.js)',
    );
  }
  return new OriginStore(backend, options);
}

interface Statements {
  readonly channel: string;
  readonly create: string | undefined;
  readonly has: string;
  readonly allow: string;
  readonly refuse: string;
}

function statementsFor(name: string, create: boolean): Statements {
  // Named by the table alone, so instances that name it with its schema (public.origins) and
  // without (origins) hear each other. Two tables of one name in two schemas share the channel:
  // each instance then only reads again a verdict it need not have dropped.
  const channel = name.slice(name.indexOf('.') + 1);
  // Quoted, so a name that is also a keyword (user, order) is still a table.
  const table = name
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
  // One statement each: the change and its notification commit together, or not at all.
  const notify = `SELECT pg_notify('${channel}', $1::text || chr(10) || $2::text)`;
  return {
    channel,
    create: create ? `CREATE TABLE IF NOT EXISTS ${table} (tenant text NOT NULL, origin text NOT NULL, PRIMARY KEY (tenant, origin))` : undefined,
    has: `SELECT 1 FROM ${table} WHERE tenant = $1::text AND origin = $2::text`,
    allow: `WITH changed AS (INSERT INTO ${table} (tenant, origin) VALUES ($1::text, $2::text) ON CONFLICT DO NOTHING) ${notify}`,
    refuse: `WITH changed AS (DELETE FROM ${table} WHERE tenant = $1::text AND origin = $2::text) ${notify}`,
  };
}

/**
 * The table made once, before the first read, write or LISTEN that needs it: an application may
 * grant an origin the moment it starts, before the store is subscribed. A failed attempt is made
 * again by the next caller. Instances started together may each create the table: PostgreSQL's
 * `IF NOT EXISTS` does not stop two at once from colliding on its catalogue (23505, or 42P07),
 * which means it exists.
 */
function tableMaker(create: (() => Promise<unknown>) | undefined): () => Promise<void> | undefined {
  if (create === undefined) return () => undefined;
  let made: Promise<void> | undefined;
  const attempt = async () => {
    try {
      await create();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== '23505' && code !== '42P07') {
        made = undefined;
        throw error;
      }
    }
  };
  return () => (made ??= attempt());
}

function pgBackend(pool: PgPoolLike, statements: Statements, reconnectDelay: number): Backend {
  let listener: PgClientLike | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const table = tableMaker(statements.create === undefined ? undefined : () => pool.query(statements.create!));
  return {
    name: 'PostgreSQL',
    async has(tenant, origin) {
      await table();
      return ((await pool.query(statements.has, [tenant, origin])).rowCount ?? 0) > 0;
    },
    async write(tenant, origin, allowed) {
      await table();
      await pool.query(allowed ? statements.allow : statements.refuse, [tenant, origin]);
    },
    async listen(events) {
      const schedule = () => {
        if (!closed) retry = setTimeout(() => void take().catch(failedAgain), reconnectDelay);
      };
      const failedAgain = (error: unknown) => {
        events.down(error);
        schedule();
      };
      const take = async (): Promise<void> => {
        await table();
        const client = await pool.connect();
        let lost = false;
        const lose = (error?: unknown) => {
          if (lost || closed) return;
          lost = true;
          if (listener === client) listener = undefined;
          client.release(error instanceof Error ? error : true);
          if (closed) return;
          events.down(error);
          schedule();
        };
        client.on('notification', (message) => {
          const { channel, payload } = message as { channel: string; payload?: string };
          if (channel === statements.channel && payload !== undefined) readChange(payload, events.changed);
        });
        try {
          await client.query(`LISTEN "${statements.channel}"`);
        } catch (error) {
          lost = true;
          client.release(error instanceof Error ? error : true);
          throw error;
        }
        if (closed) {
          // close() came while this connection was being taken: it is given back, not kept.
          lost = true;
          client.release(true);
          return;
        }
        client.on('error', lose);
        client.on('end', lose);
        listener = client;
        events.up();
      };
      try {
        await take();
      } catch (error) {
        // Not reachable at start: tried again until it answers (every origin refused meanwhile).
        schedule();
        throw error;
      }
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const client = listener;
      listener = undefined;
      client?.release(true);
    },
  };
}

function postgresJsBackend(sql: PostgresJsLike, statements: Statements): Backend {
  let listening: { unlisten(): Promise<void> } | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const table = tableMaker(statements.create === undefined ? undefined : () => sql.unsafe(statements.create!));
  return {
    name: 'PostgreSQL',
    async has(tenant, origin) {
      await table();
      return (await sql.unsafe(statements.has, [tenant, origin])).length > 0;
    },
    async write(tenant, origin, allowed) {
      await table();
      await sql.unsafe(allowed ? statements.allow : statements.refuse, [tenant, origin]);
    },
    async listen(events) {
      // postgres.js listens again by itself after a reconnect, and calls onListen each time; a
      // first attempt that fails is tried again here until the store answers.
      const start = async (): Promise<void> => {
        await table();
        const subscribed = await sql.listen(
          statements.channel,
          (payload) => readChange(payload, events.changed),
          () => events.up(),
        );
        // close() came while LISTEN was on its way: undone at once.
        if (closed) await subscribed.unlisten();
        else listening = subscribed;
      };
      try {
        await start();
      } catch (error) {
        const again = () => {
          if (closed) return;
          retry = setTimeout(
            () =>
              void start().catch((failed: unknown) => {
                events.down(failed);
                again();
              }),
            1000,
          );
        };
        again();
        throw error;
      }
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await listening?.unlisten();
    },
  };
}
