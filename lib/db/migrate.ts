// Applies drizzle-kit's generated migrations (drizzle/) on start and through `npm run db:migrate`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import type { RawDatabase } from './client';

// Resolved from the working directory: bundlers cannot follow import.meta.url to a data folder.
export const migrationsFolder = path.join(process.cwd(), 'drizzle');

// Any fixed number: all instances agree on it, so only one migrates at a time during a rolling start.
const MIGRATION_LOCK_KEY = 727_001;

export async function migrateDatabase(raw: RawDatabase): Promise<void> {
  if (raw.kind === 'pglite') {
    // Loaded only for the embedded database (see loadPglite in ./client).
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    await migrate(raw.drizzle({ client: raw.pglite }), { migrationsFolder });
    return;
  }
  // A session-level advisory lock needs one dedicated connection for the whole run: past a transaction-mode pooler
  // when DATABASE_LISTEN_URL names a direct (or session-mode) URL. Through the pooler itself, nothing is prepared
  // (postgres.js would otherwise prepare the migrations' COMMIT, which another server connection does not know).
  const direct = raw.sessionUrl !== raw.url;
  const connection = postgres(raw.sessionUrl, { max: 1, onnotice: () => {}, prepare: direct || raw.preparedStatements });
  try {
    await connection`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migratePostgres(drizzlePostgres({ client: connection }), { migrationsFolder });
  } finally {
    await connection`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {});
    await connection.end({ timeout: 5 });
  }
}

interface Journal {
  entries: { when: number; tag: string }[];
}

/** The newest migration this build ships, from drizzle-kit's journal. */
export function latestShippedMigration(): { when: number; tag: string } {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as Journal;
  const last = journal.entries.at(-1);
  if (!last) throw new Error('drizzle/meta/_journal.json lists no migration');
  return last;
}
