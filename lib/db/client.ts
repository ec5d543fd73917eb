// One factory for the database: postgres.js when DATABASE_URL is set, else an embedded PGlite in the data folder.
// Both speak the same SQL, share one drizzle schema and one set of migrations.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { acquireDataDirLock } from './data-dir-lock';
import * as schema from './schema';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
/** Either the whole database or an open transaction: domain functions accept both. */
export type Queryable = Database | Transaction;

export type RawDatabase =
  | { kind: 'postgres'; url: string; sql: postgres.Sql; preparedStatements: boolean; close(): Promise<void> }
  | { kind: 'pglite'; location: string; pglite: PGlite; drizzle: PgliteDrizzle; close(): Promise<void> };

/** drizzle's PGlite driver, loaded with PGlite itself: a server on PostgreSQL never loads either (15–25 MB less). */
type PgliteDrizzle = (typeof import('drizzle-orm/pglite'))['drizzle'];

async function loadPglite(): Promise<{ PGlite: typeof PGlite; drizzle: PgliteDrizzle }> {
  const [pglite, driver] = await Promise.all([import('@electric-sql/pglite'), import('drizzle-orm/pglite')]);
  return { PGlite: pglite.PGlite, drizzle: driver.drizzle };
}

export interface OpenDatabaseOptions {
  /** A postgres:// URL; when absent the embedded database is used. */
  databaseUrl?: string;
  /** Folder for the embedded database's files, or 'memory://' for a throwaway one. */
  embeddedLocation?: string;
  poolSize?: number;
  /** Prepare every parameterized query (default true): see preparingEveryQuery. */
  preparedStatements?: boolean;
}

export async function openRawDatabase(options: OpenDatabaseOptions): Promise<RawDatabase> {
  if (options.databaseUrl) {
    const sql = postgres(options.databaseUrl, {
      max: options.poolSize ?? 20,
      onnotice: () => {},
      // Sessions run in UTC so that timestamps compare the same on every instance.
      connection: { TimeZone: 'UTC' },
    });
    try {
      await sql`select 1`;
    } catch (error) {
      await sql.end({ timeout: 1 });
      throw new DatabaseUnavailableError(options.databaseUrl, error);
    }
    return { kind: 'postgres', url: options.databaseUrl, sql, preparedStatements: options.preparedStatements ?? true, close: () => sql.end({ timeout: 5 }) };
  }

  const location = options.embeddedLocation ?? 'memory://';
  const { PGlite, drizzle } = await loadPglite();
  if (location.startsWith('memory://')) {
    const pglite = await PGlite.create(location);
    return { kind: 'pglite', location, pglite, drizzle, close: () => pglite.close() };
  }

  // PGlite creates only the last folder level, and only one process may open a folder at a time.
  mkdirSync(path.dirname(location), { recursive: true });
  const releaseLock = acquireDataDirLock(path.dirname(location));
  try {
    const pglite = await PGlite.create(location);
    return {
      kind: 'pglite',
      location,
      pglite,
      drizzle,
      close: async () => {
        await pglite.close();
        releaseLock();
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/**
 * Wraps a raw connection in drizzle. Cheap: every bundle of the app (server, Next) wraps the one shared client.
 * `onQuery` sees the text of every statement drizzle sends (tests count the statements of a request with it).
 */
export function drizzleFor(raw: RawDatabase, options: { onQuery?: (query: string) => void } = {}): Database {
  const logger = options.onQuery ? { logQuery: (query: string) => options.onQuery!(query) } : undefined;
  if (raw.kind === 'postgres') return drizzlePostgres({ client: raw.preparedStatements ? preparingEveryQuery(raw.sql) : raw.sql, schema, logger }) as unknown as Database;
  return raw.drizzle({ client: raw.pglite, schema, logger }) as unknown as Database;
}

/**
 * drizzle runs every query through postgres.js's `unsafe()` with `prepare: false` (it prepares only queries given a
 * name): each one is then described before it runs (a second round trip) and parsed and planned afresh by PostgreSQL.
 * This makes postgres.js prepare every parameterized query instead, once per connection and query text (its own
 * statement cache; a statement PostgreSQL invalidates, after a migration, is re-prepared by postgres.js). Transactions
 * and savepoints hand drizzle a scoped client: wrapped too. Queries without parameters keep the simple protocol.
 * Mind on hot paths: a query text that varies (an IN list of varying length) is a new statement each time.
 */
function preparingEveryQuery<Client extends postgres.Sql | postgres.TransactionSql>(client: Client): Client {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, parameters?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) =>
          target.unsafe(query, parameters, { ...options, prepare: (parameters?.length ?? 0) > 0 });
      }
      if (property === 'begin' || property === 'savepoint') {
        const open = Reflect.get(target, property, receiver) as (...args: unknown[]) => unknown;
        return (...args: unknown[]) => {
          const work = args.pop() as (scoped: postgres.TransactionSql) => unknown;
          return open.call(target, ...args, (scoped: postgres.TransactionSql) => work(preparingEveryQuery(scoped)));
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

export class DatabaseUnavailableError extends Error {
  constructor(url: string, cause: unknown) {
    const where = safeDatabaseLocation(url);
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Portico cannot reach the PostgreSQL database at ${where}: ${reason}. Check DATABASE_URL and that the server is running.`);
    this.name = 'DatabaseUnavailableError';
  }
}

/** host:port/database of a URL, without credentials, for messages. */
export function safeDatabaseLocation(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

/** Rows of a raw `db.execute(sql...)`: postgres.js returns an array, PGlite an object with `rows`. */
export function rowsOf<Row>(result: unknown): Row[] {
  return (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
}

/**
 * The SQLSTATE of a failed statement (23505 unique violation, 23503 foreign key violation, …), whether the error
 * comes from postgres.js or PGlite directly or wrapped by drizzle (as its `cause`).
 */
export function postgresErrorCode(error: unknown): string | undefined {
  const direct = (error as { code?: unknown } | undefined)?.code;
  const wrapped = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  const code = typeof wrapped === 'string' ? wrapped : direct;
  return typeof code === 'string' ? code : undefined;
}
