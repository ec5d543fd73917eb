// One factory for the database: postgres.js when DATABASE_URL is set, else an embedded PGlite in the data folder.
// Both speak the same SQL, share one drizzle schema and one set of migrations.
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { acquireDataDirLock } from './data-dir-lock';
import { preparePrivateFolder, restrictToOwner } from './data-folder';
import { OutageRecorder } from './outages';
import { safePostgresLocation } from '../util/postgres-url';
import { pgliteInvalidationFeed, postgresInvalidationFeed, ReadCache } from './read-cache';
import { databaseInstruments } from './instruments';
import * as schema from './schema';
import type { DeliveryChannel } from './schema';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
/** Either the whole database or an open transaction: domain functions accept both. */
export type Queryable = Database | Transaction;

export type RawDatabase =
  | {
      kind: 'postgres';
      url: string;
      /**
       * Where a session of its own may be held (LISTEN, the migrations' advisory lock): DATABASE_LISTEN_URL when set
       * (past a transaction-mode pooler), else the URL itself.
       */
      sessionUrl: string;
      sql: postgres.Sql;
      preparedStatements: boolean;
      readCache?: ReadCache;
      outages: OutageRecorder;
      afterCommit: AfterCommitHooks;
      close(): Promise<void>;
    }
  | { kind: 'pglite'; location: string; pglite: PGlite; drizzle: PgliteDrizzle; readCache?: ReadCache; afterCommit: AfterCommitHooks; close(): Promise<void> };

/**
 * What this process does right after a write commits, whichever handle or transaction wrote it: the outbox's
 * dispatcher is woken when something was queued to send (lib/deliveries/dispatcher.ts), so no door has to remember
 * to wake it, and nothing is woken for a transaction that rolled back.
 */
export class AfterCommitHooks {
  readonly #outbox = new Set<(channel?: DeliveryChannel) => void>();

  /** Calls `listener` after each commit that queued deliveries: with 'webhook' when only audit events were written. */
  onOutboxWrite(listener: (channel?: DeliveryChannel) => void): () => void {
    this.#outbox.add(listener);
    return () => this.#outbox.delete(listener);
  }

  committed(writes: CommittedWrites): void {
    if (writes.outbox === 'none') return;
    const channel = writes.outbox === 'webhook' ? 'webhook' : undefined;
    for (const listener of this.#outbox) listener(channel);
  }
}

/**
 * What a transaction (or a statement outside one) wrote that this process reacts to at its commit. `outbox`: 'all'
 * for a row of outbound_deliveries; 'webhook' for an audit event, which the database fans out to the webhook
 * endpoints that asked for it (the trigger of drizzle/0032_webhook_events.sql).
 */
interface CommittedWrites {
  cachedRows: boolean;
  outbox: 'none' | 'webhook' | 'all';
}

function noWrites(): CommittedWrites {
  return { cachedRows: false, outbox: 'none' };
}

/** Adds what `query` writes to `writes`; true when it writes anything this process reacts to at the commit. */
function noteWrites(writes: CommittedWrites, query: string): boolean {
  const cachedRows = CACHED_ROW_WRITE.test(query);
  const outbox = OUTBOX_WRITE.test(query) ? 'all' : AUDIT_WRITE.test(query) ? 'webhook' : 'none';
  if (cachedRows) writes.cachedRows = true;
  if (outbox === 'all' || (outbox === 'webhook' && writes.outbox === 'none')) writes.outbox = outbox;
  return cachedRows || outbox !== 'none';
}

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
  /** Prepare every parameterized query (default true): see instrumentedClient. */
  preparedStatements?: boolean;
  /**
   * Close a pooled connection after it has been idle this long (default: never). For processes that share one
   * PostgreSQL's connection limit with a server and use their pools in bursts: the bench's runner and baselines.
   */
  idleTimeoutSeconds?: number;
  /** Keep hot rows in a per-process cache invalidated by notifications (default true): lib/db/read-cache.ts. */
  readCache?: boolean;
  /** Where the cache's LISTEN connection goes (default databaseUrl): never a transaction-mode pooler. */
  listenUrl?: string;
  /**
   * A throwaway embedded database only: start from this copy of a data folder (PGlite's `dumpDataDir`) instead of an
   * empty one. The tests open each file's database from one migrated copy (test/support/global-setup.ts).
   */
  embeddedTemplate?: Blob;
}

export async function openRawDatabase(options: OpenDatabaseOptions): Promise<RawDatabase> {
  if (options.databaseUrl) {
    const databaseUrl = options.databaseUrl;
    const openPool = () => postgres(databaseUrl, {
      max: options.poolSize ?? 20,
      ...(options.idleTimeoutSeconds !== undefined ? { idle_timeout: options.idleTimeoutSeconds } : {}),
      onnotice: () => {},
      // Sessions run in UTC so that timestamps compare the same on every instance.
      connection: { TimeZone: 'UTC' },
      // Behind a transaction-mode pooler (DATABASE_PREPARED_STATEMENTS=false) postgres.js must not prepare its own
      // statements either: it prepares `begin`, `commit`, `rollback` and `savepoint` once per connection, and a
      // pooler hands the next transaction another server connection, where that statement does not exist. The
      // failed COMMIT aborts the transaction, and postgres.js's retry of it then answers ROLLBACK's success: the
      // transaction's writes are lost without an error. (The queries drizzle sends are covered in instrumentedClient.)
      prepare: options.preparedStatements !== false,
    });
    const pool = new RenewablePool(openPool());
    const sql = pool.sql;
    try {
      await sql`select 1`;
    } catch (error) {
      await sql.end({ timeout: 1 });
      throw new DatabaseUnavailableError(options.databaseUrl, error);
    }
    // A pool that went through an outage is replaced by a fresh one the moment the database answers again: see
    // RenewablePool. The cache's listening connection reports its losses too: a failover during which no statement
    // happened to fail is still an outage.
    const outages = new OutageRecorder(Date.now, () => pool.renew(openPool()));
    const readCache = options.readCache === false ? undefined : new ReadCache(postgresInvalidationFeed(options.listenUrl ?? options.databaseUrl, outages.listenerFailed));
    return {
      kind: 'postgres',
      url: options.databaseUrl,
      sessionUrl: options.listenUrl ?? options.databaseUrl,
      sql,
      preparedStatements: options.preparedStatements ?? true,
      readCache,
      outages,
      afterCommit: new AfterCommitHooks(),
      close: async () => {
        await readCache?.stop();
        await sql.end({ timeout: 5 });
      },
    };
  }

  const location = options.embeddedLocation ?? 'memory://';
  const { PGlite, drizzle } = await loadPglite();
  const embedded = async (release: () => void): Promise<RawDatabase> => {
    const pglite = options.embeddedTemplate && location.startsWith('memory://') ? await PGlite.create({ loadDataDir: options.embeddedTemplate }) : await PGlite.create(location);
    const onDisk = !location.startsWith('memory://');
    if (onDisk) restrictToOwner(location);
    const readCache = options.readCache === false ? undefined : new ReadCache(pgliteInvalidationFeed(pglite));
    return {
      kind: 'pglite',
      location,
      pglite,
      drizzle,
      readCache,
      afterCommit: new AfterCommitHooks(),
      close: async () => {
        await readCache?.stop();
        await pglite.close();
        // Files PGlite created while it ran (WAL segments, relations) came out 0666 as well.
        if (onDisk) restrictToOwner(location);
        release();
      },
    };
  };
  if (location.startsWith('memory://')) return embedded(() => {});

  // Owner-only folders, made here (PGlite keeps the mode of a folder it finds) or refused (lib/db/data-folder.ts);
  // only one process may open a folder at a time.
  preparePrivateFolder(path.dirname(location));
  preparePrivateFolder(location);
  const releaseLock = acquireDataDirLock(path.dirname(location));
  try {
    return await embedded(releaseLock);
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/** postgres.js's state shared by a pool's connections (not in its published types). */
const sharedOf = (sql: postgres.Sql) => (sql.options as unknown as { shared: { typeArrayMap: Record<number, number> } }).shared;

/**
 * The postgres.js pool behind one stable handle, which can be swapped for a fresh pool. postgres.js 3.4.9 can leave a
 * pooled connection that closed while a small write was buffered unable to send anything again (its deferred-write
 * timer is cleared but never reset: porsager/postgres issues 1154 and 1208): after a failover, a share of statements
 * then waited on such a connection for its 30 s connect timeout, again and again. So when an outage ends
 * (lib/db/outages.ts) the pool is renewed: new statements go to new connections, and the old pool is ended
 * (statements running on it get 5 s). drizzle's type parsers and serializers, set on the first pool's options when
 * drizzle wraps it, are carried over.
 */

class RenewablePool {
  #current: postgres.Sql;
  readonly sql: postgres.Sql;

  constructor(first: postgres.Sql) {
    this.#current = first;
    const pool = this;
    // Every property and call goes to the pool of the moment.
    this.sql = new Proxy(first, {
      get: (_target, property) => Reflect.get(pool.#current, property, pool.#current),
      apply: (_target, thisArgument, args: unknown[]) => Reflect.apply(pool.#current as unknown as (...args: unknown[]) => unknown, thisArgument, args),
    });
  }

  renew(next: postgres.Sql): void {
    const old = this.#current;
    Object.assign(next.options.parsers, old.options.parsers);
    Object.assign(next.options.serializers, old.options.serializers);
    // The array types postgres.js read at the old pool's first connection: with the parsers copied, the new pool's
    // connections skip reading them, and `sql.array()` would go out untyped.
    Object.assign(sharedOf(next).typeArrayMap, sharedOf(old).typeArrayMap);
    this.#current = next;
    void old.end({ timeout: 5 }).catch(() => {});
  }
}

/**
 * Wraps a raw connection in drizzle. Cheap: every bundle of the app (server, Next) wraps the one shared client.
 * `onQuery` sees the text and parameters of every statement drizzle sends (tests count the statements of a request
 * with it, and check their plans). `wakesOutbox: false` is the outbox's own handle: a delivery round claims and marks
 * its deliveries, and those writes must not wake the next round (that would be a busy loop).
 */
export function drizzleFor(raw: RawDatabase, options: { onQuery?: (query: string, parameters: unknown[]) => void; wakesOutbox?: boolean } = {}): Database {
  const logger = options.onQuery ? { logQuery: (query: string, parameters: unknown[]) => options.onQuery!(query, parameters) } : undefined;
  const wakesOutbox = options.wakesOutbox !== false;
  const db =
    raw.kind === 'postgres'
      ? (drizzlePostgres({ client: instrumentedClient(raw.sql, { prepare: raw.preparedStatements, outages: raw.outages, onCommit: committedTo(raw, wakesOutbox) }), schema, logger }) as unknown as Database)
      : (raw.drizzle({ client: wakesOutbox ? observedPglite(raw.pglite, raw.afterCommit) : raw.pglite, schema, logger }) as unknown as Database);
  if (raw.readCache) readCaches.set(db, raw.readCache);
  return db;
}

/** What a commit on the PostgreSQL pool sets off in this process: the read cache forgets, the outbox wakes. */
function committedTo(raw: Extract<RawDatabase, { kind: 'postgres' }>, wakesOutbox: boolean): (writes: CommittedWrites) => void {
  return (writes) => {
    if (writes.cachedRows) raw.readCache?.invalidate('*');
    if (wakesOutbox) raw.afterCommit.committed(writes);
  };
}

const readCaches = new WeakMap<Queryable, ReadCache>();

const preparedByDatabase = new WeakMap<Queryable, Map<string, unknown>>();

/**
 * A query drizzle builds once per database handle (its SQL text and parameter layout, with `sql.placeholder`s for
 * what varies) and then only runs: on hot paths building a query cost more CPU than running it (profiled in
 * docs/benchmarks.md: drizzle's query building was a quarter of an MCP call's CPU). `name` must be unique per query
 * shape.
 */
export function preparedQuery<Query>(db: Queryable, name: string, build: () => Query): Query {
  let queries = preparedByDatabase.get(db);
  if (!queries) preparedByDatabase.set(db, (queries = new Map()));
  let query = queries.get(name) as Query | undefined;
  if (!query) queries.set(name, (query = build()));
  return query;
}

/**
 * The per-process cache of hot rows (lib/db/read-cache.ts) behind a database handle; none for a transaction, whose
 * reads must see its own writes.
 */
export function readCacheOf(db: Queryable): ReadCache | undefined {
  return readCaches.get(db);
}

/**
 * The postgres.js client drizzle is given, with two additions:
 * - Prepared statements (when `prepare`): drizzle runs every query through `unsafe()` with `prepare: false` (it
 *   prepares only queries given a name): each one is then described before it runs (a second round trip) and parsed
 *   and planned afresh by PostgreSQL. Without `prepare`, nothing is prepared, named queries included. Here postgres.js prepares every parameterized query instead, once per
 *   connection and query text (its own statement cache; a statement PostgreSQL invalidates, after a migration, is
 *   re-prepared by postgres.js). Queries without parameters keep the simple protocol. Mind on hot paths: a query
 *   text that varies (an IN list of varying length) is a new statement each time.
 * - Commits are reported (`onCommit`, at the statement's end, or the transaction's) with what they wrote: this
 *   process reads its own writes (a write to a table the read cache keeps rows of empties it, without waiting for the
 *   notification the trigger sends to every instance: lib/db/read-cache.ts), and a queued delivery wakes the outbox
 *   (AfterCommitHooks).
 * - Every statement and transaction reports whether it reached the database to `outages` (lib/db/outages.ts), which
 *   /api/ready reports.
 * Transactions and savepoints hand drizzle a scoped client: wrapped too.
 */
function instrumentedClient<Client extends postgres.Sql | postgres.TransactionSql>(
  client: Client,
  options: { prepare: boolean; outages: OutageRecorder; onCommit: (writes: CommittedWrites) => void; transaction?: CommittedWrites },
): Client {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, parameters?: postgres.ParameterOrJSON<never>[], queryOptions?: postgres.UnsafeQueryOptions) => {
          // Off (a transaction-mode pooler before PgBouncer 1.21), nothing is prepared: not even the queries drizzle
          // was told to `.prepare()`, which it hands to postgres.js as named statements (a pooler would run them on a
          // server connection that never saw them, or one where that name is another client's statement).
          const pending = target.unsafe(query, parameters, { ...queryOptions, prepare: options.prepare && (parameters?.length ?? 0) > 0 });
          // Timed only when metrics are on (lib/observability/metrics.ts): otherwise no callback per statement.
          const timed = databaseInstruments()?.statementStarted(options.transaction !== undefined);
          if (timed) void pending.then(timed, timed);
          // Reported with the pool it went to: a failure on a pool replaced meanwhile (ended on purpose) is no outage.
          const generation = options.outages.generation;
          void pending.then(options.outages.succeeded, (error: unknown) => options.outages.failed(error, generation));
          if (options.transaction) {
            noteWrites(options.transaction, query);
            return pending;
          }
          const writes = noWrites();
          if (!noteWrites(writes, query)) return pending;
          // The query itself goes back (drizzle may still call `.values()` on it: postgres.js starts a query a microtask
          // after its first `then`, so the mode set now still applies); its end is observed beside.
          void pending.then(() => options.onCommit(writes), () => options.onCommit({ ...writes, outbox: 'none' }));
          return pending;
        };
      }
      if (property === 'begin' || property === 'savepoint') {
        const open = Reflect.get(target, property, receiver) as (...args: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => {
          const work = args.pop() as (scoped: postgres.TransactionSql) => unknown;
          const transaction = options.transaction ?? noWrites();
          const ran = open.call(target, ...args, (scoped: postgres.TransactionSql) => work(instrumentedClient(scoped, { ...options, transaction })));
          if (options.transaction) return ran; // a savepoint: the outer transaction's end counts
          const ended = databaseInstruments()?.transactionStarted();
          const generation = options.outages.generation;
          void ran.then(options.outages.succeeded, (error: unknown) => options.outages.failed(error, generation));
          return ran.then(
            (result) => {
              ended?.();
              options.onCommit(transaction);
              return result;
            },
            (error: unknown) => {
              ended?.();
              // Rolled back: nothing was queued, but a cached row may have been read under a lock meanwhile.
              options.onCommit({ ...transaction, outbox: 'none' });
              throw error;
            },
          );
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

/**
 * The embedded database handed to drizzle, reporting its commits like instrumentedClient (drizzle's PGlite driver
 * sends every statement through `query`, and a transaction through `transaction`). The read cache of an embedded
 * database hears of its writes from PGlite's own notifications (lib/db/read-cache.ts): only the outbox is told here.
 */
function observedPglite(pglite: PGlite, afterCommit: AfterCommitHooks): PGlite {
  const observe = <Target extends object>(target: Target, writes: CommittedWrites | undefined): Target =>
    new Proxy(target, {
      get(inner, property) {
        const value = Reflect.get(inner, property, inner) as unknown;
        if (typeof value !== 'function') return value;
        if (property === 'query') {
          return (query: string, ...rest: unknown[]) => {
            const pending = (value as (...args: unknown[]) => Promise<unknown>).call(inner, query, ...rest);
            if (writes) noteWrites(writes, query);
            else {
              const own = noWrites();
              if (noteWrites(own, query)) void pending.then(() => afterCommit.committed(own), () => {});
            }
            return pending;
          };
        }
        if (property === 'transaction' && !writes) {
          return async (work: (tx: object) => Promise<unknown>) => {
            const transaction = noWrites();
            const result = await (value as (work: (tx: object) => Promise<unknown>) => Promise<unknown>).call(inner, (tx) => work(observe(tx, transaction)));
            afterCommit.committed(transaction);
            return result;
          };
        }
        return (value as (...args: unknown[]) => unknown).bind(inner);
      },
    });
  return observe(pglite, undefined);
}

/**
 * A write to a table the read cache keeps rows of, or to organizations (whose deletion cascades into them); anywhere
 * in the statement, so that a write inside a CTE (`with … update "clients"`) counts too.
 */
const CACHED_ROW_WRITE = /\b(?:insert\s+into|update|delete\s+from|truncate(?:\s+table)?)\s+"(?:clients|redirect_uris|client_secrets|apps|users|memberships|organizations|gateway_servers|gateway_tools|agents|agent_keys|app_permissions|app_surfaces)"/i;
/** A delivery queued (or made due again) in the outbox. */
const OUTBOX_WRITE = /\b(?:insert\s+into|update)\s+"?outbound_deliveries"?/i;
/** An audit event, which the database fans out to subscribed webhook endpoints in the same transaction. */
const AUDIT_WRITE = /\binsert\s+into\s+"?audit_events"?/i;

export class DatabaseUnavailableError extends Error {
  constructor(url: string, cause: unknown) {
    const where = safePostgresLocation(url);
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Portico cannot reach the PostgreSQL database at ${where}: ${reason}. Check DATABASE_URL and that the server is running.`);
    this.name = 'DatabaseUnavailableError';
  }
}

/** Rows of a raw `db.execute(sql...)`: postgres.js returns an array, PGlite an object with `rows`. */
/** An instant as a timestamptz parameter of a raw statement (a Date in a raw template is not one every driver takes). */
export function sqlInstant(at: Date): SQL {
  return sql`${at.toISOString()}::timestamptz`;
}

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

/** Rows to insert, in statements of at most `size` rows each: PostgreSQL takes at most 65,535 parameters in one. */
export function chunksOf<T>(rows: readonly T[], size = 1000): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < rows.length; start += size) chunks.push(rows.slice(start, start + size));
  return chunks;
}
