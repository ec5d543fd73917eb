// What /api/ready reports of the database connection (lib/db/outages.ts): which failures open an outage, when it
// ends, what is kept of it; and multi-host DATABASE_URLs (a failover pair) accepted and shown without credentials.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzleFor, openRawDatabase, rowsOf } from '../../lib/db/client';
import { OutageRecorder, outageErrorOf } from '../../lib/db/outages';
import { isPostgresUrl, safePostgresLocation } from '../../lib/util/postgres-url';
import { env } from '../../lib/env';
import { openTestDatabase, postgresOptions, type TestDatabase } from '../support/databases';

/** A clock the test moves by hand. */
function manualClock(start = Date.parse('2026-03-01T10:00:00.000Z')) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' });
const closed = Object.assign(new Error('write CONNECTION_CLOSED db.internal:5432'), { code: 'CONNECTION_CLOSED' });
const uniqueViolation = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });

describe('database outages', () => {
  it('classes connection failures, found directly or as the cause drizzle wraps; other errors are not outages', () => {
    expect(outageErrorOf(refused)).toBe('connection refused');
    expect(outageErrorOf(new Error('Failed query', { cause: closed }))).toBe('connection closed');
    expect(outageErrorOf({ code: '57P01' })).toBe('server shutting down');
    expect(outageErrorOf({ code: '25006' })).toBe('server read-only');
    expect(outageErrorOf({ code: '08006' })).toBe('connection failed');
    expect(outageErrorOf(uniqueViolation)).toBeUndefined();
    expect(outageErrorOf(new Error('no code'))).toBeUndefined();
    expect(outageErrorOf(undefined)).toBeUndefined();
  });

  it('opens at the first failure, keeps the latest class, ends at the next success, and keeps the last one', () => {
    const clock = manualClock();
    const outages = new OutageRecorder(clock.now);
    expect(outages.snapshot()).toEqual({ outage: null, lastOutage: null });
    outages.succeeded();
    outages.failed(uniqueViolation);
    expect(outages.snapshot()).toEqual({ outage: null, lastOutage: null });

    outages.failed(closed);
    clock.advance(800);
    outages.failed(refused);
    expect(outages.snapshot()).toEqual({ outage: { from: '2026-03-01T10:00:00.000Z', error: 'connection refused' }, lastOutage: null });
    clock.advance(1200);
    outages.succeeded();
    clock.advance(5000);
    outages.succeeded();
    const first = { from: '2026-03-01T10:00:00.000Z', to: '2026-03-01T10:00:02.000Z', error: 'connection refused' };
    expect(outages.snapshot()).toEqual({ outage: null, lastOutage: first });

    // A second outage: the first is still the last one while it lasts, then replaced.
    outages.failed({ code: '57P01' });
    expect(outages.snapshot()).toEqual({ outage: { from: '2026-03-01T10:00:07.000Z', error: 'server shutting down' }, lastOutage: first });
    clock.advance(300);
    outages.succeeded();
    expect(outages.snapshot().lastOutage).toEqual({ from: '2026-03-01T10:00:07.000Z', to: '2026-03-01T10:00:07.300Z', error: 'server shutting down' });
  });

  it('calls back once when an outage ends, never on a success without one', () => {
    let recovered = 0;
    const outages = new OutageRecorder(manualClock().now, () => (recovered += 1));
    outages.succeeded();
    outages.failed(uniqueViolation);
    outages.succeeded();
    expect(recovered).toBe(0);
    outages.failed(closed);
    outages.failed(refused);
    outages.succeeded();
    outages.succeeded();
    expect(recovered).toBe(1);
  });

  it('renews the pool at most every 30 seconds, never for the listener alone, and ignores a replaced pool\'s failures', () => {
    const clock = manualClock();
    let renewals = 0;
    const outages = new OutageRecorder(clock.now, () => (renewals += 1));
    outages.failed(closed);
    outages.succeeded();
    expect(renewals).toBe(1);
    expect(outages.generation).toBe(1);
    // The replaced pool's statements, ended on purpose, fail with its old generation: no outage, no renewal.
    outages.failed(closed, 0);
    outages.succeeded();
    expect(outages.snapshot().outage).toBeNull();
    expect(renewals).toBe(1);
    // A flapping database: the next outage right after is recorded, but the pool is not renewed again so soon.
    clock.advance(10_000);
    outages.failed(refused);
    outages.succeeded();
    expect(renewals).toBe(1);
    expect(outages.snapshot().lastOutage?.error).toBe('connection refused');
    // The listener's losses are reported and never renew.
    clock.advance(60_000);
    outages.listenerFailed(closed);
    expect(outages.snapshot().outage).not.toBeNull();
    outages.succeeded();
    expect(renewals).toBe(1);
    // Too many connections: reported, and a fresh pool would only make it worse.
    outages.failed(Object.assign(new Error('sorry, too many clients already'), { code: '53300' }));
    outages.succeeded();
    expect(renewals).toBe(1);
    outages.failed(closed);
    outages.succeeded();
    expect(renewals).toBe(2);
  });

  it('never reports a message, a host or a URL', () => {
    const outages = new OutageRecorder(manualClock().now);
    outages.failed(Object.assign(new Error('connect ECONNREFUSED postgres://admin:secret@10.0.0.7:5432/portico'), { code: 'ECONNREFUSED' }));
    expect(JSON.stringify(outages.snapshot())).not.toMatch(/10\.0\.0\.7|secret|postgres:|5432/);
  });
});

describe('multi-host DATABASE_URL', () => {
  const pair = 'postgres://portico:s3cret@db-a.internal:5432,db-b.internal:5433/portico?target_session_attrs=primary';

  it('is accepted, as are single-host URLs; empty hosts and other schemes are not', () => {
    expect(isPostgresUrl(pair)).toBe(true);
    expect(isPostgresUrl('postgres://postgres@127.0.0.1:5497,127.0.0.1:5498/postgres')).toBe(true);
    expect(isPostgresUrl('postgresql://u:p@localhost/portico')).toBe(true);
    expect(isPostgresUrl('postgres://u@db-a:5432,/portico')).toBe(false);
    expect(isPostgresUrl('postgres://u@db-a:5432,db-b:notaport/portico')).toBe(false);
    expect(isPostgresUrl('mysql://u@db-a:3306,db-b:3306/portico')).toBe(false);
    expect(isPostgresUrl('not a url')).toBe(false);
  });

  it('is shown with every host and no credentials or parameters', () => {
    expect(safePostgresLocation(pair)).toBe('db-a.internal:5432,db-b.internal:5433/portico');
    expect(safePostgresLocation('postgres://u:p@localhost/portico')).toBe('localhost/portico');
  });
});

describe.runIf(Boolean(env().DATABASE_URL))('the pool renewed when an outage ends', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database?.close());

  // As configured (through a transaction-mode pooler when the suite runs behind one, where a new client connection may
  // be handed the same server backend) and, behind a pooler, once more straight to the server (DATABASE_LISTEN_URL's),
  // where a renewed pool must show a new backend.
  const directUrl = () => postgresOptions(database.url!).listenUrl;
  it.each([
    { connection: 'as configured', options: () => postgresOptions(database.url!, { poolSize: 2, readCache: false }) },
    ...(env().DATABASE_LISTEN_URL ? [{ connection: 'straight to the server', options: () => ({ ...postgresOptions(directUrl()!, { poolSize: 2, readCache: false }), preparedStatements: true }) }] : []),
  ])('sends what follows to new connections, with drizzle\'s parsers, and the handle keeps working ($connection)', async ({ options }) => {
    const raw = await openRawDatabase(options());
    try {
      if (raw.kind !== 'postgres') throw new Error('expected PostgreSQL');
      const db = drizzleFor(raw);
      const session = async () => rowsOf<{ pid: number; at: unknown }>(await db.execute(sql`select pg_backend_pid() as pid, now() as at`))[0]!;
      const before = await session();
      // drizzle made timestamps come back as text (its own parsing follows): still so after the renewal.
      expect(typeof before.at).toBe('string');
      raw.outages.failed(Object.assign(new Error('closed'), { code: 'CONNECTION_CLOSED' }));
      raw.outages.succeeded();
      const after = await session();
      // Behind a transaction-mode pooler the new connection may well be handed the same server backend.
      if (raw.preparedStatements) expect(after.pid).not.toBe(before.pid);
      expect(raw.outages.generation).toBe(1);
      expect(typeof after.at).toBe('string');
      await db.transaction(async (tx) => tx.execute(sql`select ${1}::int`));
      // postgres.js's own array parameters still know their types' array types (read once, at the first connection).
      const [row] = await raw.sql`select ${raw.sql.array([3, 4])}::int[] as numbers`;
      expect(row!.numbers).toEqual([3, 4]);
    } finally {
      await raw.close();
    }
  });
});
