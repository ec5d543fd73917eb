// DATABASE_PREPARED_STATEMENTS=false (a transaction-mode pooler before PgBouncer 1.21) must leave no named
// statement on a server connection: not the queries Portico names for reuse, and not the BEGIN, COMMIT, ROLLBACK and
// SAVEPOINT postgres.js sends for itself. Behind such a pooler a prepared COMMIT reached a server connection where it
// was never prepared; the error aborted the transaction and postgres.js's retry of the COMMIT then succeeded as a
// rollback: the writes were lost without an error (found by running the suite through PgBouncer, .ci/run). This
// test reads pg_prepared_statements on a one-connection pool, with the setting on as the control.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzleFor, openRawDatabase, preparedQuery, rowsOf } from '../../lib/db/client';
import { users } from '../../lib/db/schema';
import { env } from '../../lib/env';
import { openTestDatabase, postgresOptions, type TestDatabase } from '../support/databases';

const onPostgres = Boolean(env().DATABASE_URL);

describe.runIf(onPostgres)('prepared statements, turned off for a transaction-mode pooler', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database?.close());

  /** Runs what a request does (a named query, a transaction with a savepoint, a rollback) and lists the session's statements. */
  async function statementsLeftBy(preparedStatements: boolean): Promise<string[]> {
    const raw = await openRawDatabase({ ...postgresOptions(database.url!, { poolSize: 1, readCache: false }), preparedStatements });
    try {
      const db = drizzleFor(raw);
      const byEmail = preparedQuery(db, 'test.userByEmail', () =>
        db.select({ id: users.id }).from(users).where(eq(users.email, sql.placeholder('email'))).prepare('test_user_by_email'),
      );
      await byEmail.execute({ email: 'nobody@prepared.test' });
      await db.transaction(async (tx) => {
        await tx.execute(sql`select ${1}::int`);
        await tx.transaction(async (savepoint) => savepoint.execute(sql`select ${2}::int`));
      });
      await db
        .transaction(async (tx) => {
          await tx.execute(sql`select ${3}::int`);
          throw new Error('roll back');
        })
        .catch(() => undefined);
      // Read inside a transaction so that the pool's one connection answers for everything above.
      return await db.transaction(async (tx) => rowsOf<{ statement: string }>(await tx.execute(sql`select statement from pg_prepared_statements`)).map((row) => row.statement));
    } finally {
      await raw.close();
    }
  }

  it('leaves no named statement behind, its own COMMIT, ROLLBACK and SAVEPOINT included', async () => {
    expect(await statementsLeftBy(false)).toEqual([]);
  });

  it('does prepare them when the setting is on (the control: the reading above can see them)', async () => {
    const statements = (await statementsLeftBy(true)).map((text) => text.trim().toLowerCase());
    expect(statements).toEqual(expect.arrayContaining(['commit', 'rollback', 'savepoint "s0"', 'select "id" from "users" where "users"."email" = $1']));
  });
});
