// Scratch databases for tests: a fresh PostgreSQL database per suite when DATABASE_URL is set (created here,
// dropped afterwards, so runs never collide), else a throwaway in-memory PGlite.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { drizzleFor, openRawDatabase, type Database, type RawDatabase } from '../../lib/db/client';
import { migrateDatabase } from '../../lib/db/migrate';
import { env } from '../../lib/env';

let template: Blob | undefined;
/** The migrated PGlite data folder this vitest run made once, read once per worker. */
async function pgliteTemplate(): Promise<Blob | undefined> {
  if (template) return template;
  let file = '';
  try {
    // Imported here: the end-to-end runner and the benches import this module outside vitest.
    file = (await import('vitest')).inject('pgliteTemplate');
  } catch {
    return undefined;
  }
  if (!file) return undefined;
  template = new Blob([readFileSync(file)]);
  return template;
}

/** The migrated database this vitest run made once (test/support/global-setup.ts), if any. */
async function postgresTemplate(): Promise<string> {
  try {
    // Imported here, as above: outside vitest there is none.
    return (await import('vitest')).inject('postgresTemplate') ?? '';
  } catch {
    return '';
  }
}

/**
 * Creates a database next to the one `baseUrl` names and returns its URL: empty, or a copy of `template` (a database
 * nobody is connected to).
 */
export async function createScratchPostgres(baseUrl: string, prefix = 'portico_test', template?: string): Promise<string> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"${template ? ` template "${template}"` : ''}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropScratchPostgres(baseUrl: string, scratchUrl: string): Promise<void> {
  const name = new URL(scratchUrl).pathname.slice(1);
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/**
 * How a test opens a PostgreSQL database (`url`, a scratch database): as Portico would with this environment —
 * through a transaction-mode pooler when DATABASE_URL names one (then DATABASE_PREPARED_STATEMENTS=false), with the
 * cache's LISTEN connection past it when DATABASE_LISTEN_URL is set (to the same scratch database on that server).
 */
export function postgresOptions(url: string, options: { poolSize?: number; readCache?: boolean } = {}) {
  const listenBase = env().DATABASE_LISTEN_URL;
  let listenUrl: string | undefined;
  if (listenBase) {
    const listen = new URL(listenBase);
    listen.pathname = new URL(url).pathname;
    listenUrl = listen.toString();
  }
  return { databaseUrl: url, poolSize: options.poolSize ?? 20, preparedStatements: env().DATABASE_PREPARED_STATEMENTS, ...(listenUrl ? { listenUrl } : {}), ...(options.readCache === false || !env().PORTICO_READ_CACHE ? { readCache: false } : {}) };
}

/** The variables a child process needs to open the same scratch database the same way. */
export function postgresEnvironment(url: string | undefined): Record<string, string | undefined> {
  return url ? { DATABASE_URL: url, DATABASE_LISTEN_URL: postgresOptions(url).listenUrl } : { DATABASE_URL: undefined, DATABASE_LISTEN_URL: undefined };
}

export interface TestDatabase {
  raw: RawDatabase;
  db: Database;
  kind: 'postgres' | 'pglite';
  /** The scratch database's URL (PostgreSQL only): for a second connection or another process. */
  url?: string;
  close(): Promise<void>;
}

/** A migrated, empty database for one test file. */
export async function openTestDatabase(): Promise<TestDatabase> {
  const baseUrl = env().DATABASE_URL;
  if (!baseUrl) {
    // The run's migrated copy (test/support/global-setup.ts); without one (outside vitest), a new database, migrated.
    const copy = await pgliteTemplate();
    const raw = await openRawDatabase({ embeddedLocation: 'memory://', ...(copy ? { embeddedTemplate: copy } : {}) });
    if (!copy) await migrateDatabase(raw);
    return { raw, db: drizzleFor(raw), kind: 'pglite', close: () => raw.close() };
  }
  // The run's migrated copy (test/support/global-setup.ts); without one (outside vitest), a new database, migrated.
  const template = await postgresTemplate();
  const url = await createScratchPostgres(baseUrl, 'portico_test', template || undefined);
  const raw = await openRawDatabase(postgresOptions(url));
  if (!template) await migrateDatabase(raw);
  return {
    raw,
    db: drizzleFor(raw),
    kind: 'postgres',
    url,
    close: async () => {
      await raw.close();
      await dropScratchPostgres(baseUrl, url);
    },
  };
}
