// Once per vitest run, before the workers start: a loopback TLS certificate of this run's own (a folder of its own,
// so that a vitest run never replaces the certificate an end-to-end run's server trusts), presented by test servers
// (the webhook receiver) and trusted by the workers through NODE_EXTRA_CA_CERTS, which Node reads only when a process
// starts — so it is set here, in the process that forks them. The folder reaches the workers through vitest's provide.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { loopbackTlsFiles } from '../../e2e/support/tls';
import { openRawDatabase } from '../../lib/db/client';
import { migrateDatabase } from '../../lib/db/migrate';
import { env } from '../../lib/env';
import postgres from 'postgres';
import { createScratchPostgres, dropScratchPostgres, postgresOptions } from './databases';

declare module 'vitest' {
  export interface ProvidedContext {
    tlsDir: string;
    /** On the embedded database: a migrated, empty data folder (PGlite's dump), which each file's database starts from. */
    pgliteTemplate: string;
    /** On PostgreSQL: a migrated, empty database (its name), which each file's database is created from. */
    postgresTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'portico-vitest-tls-'));
  process.env.NODE_EXTRA_CA_CERTS = loopbackTlsFiles({ regenerate: true, dir }).certPath;
  project.provide('tlsDir', dir);
  // On PGlite, creating a database (initdb) and migrating it cost seconds per test file; made once here, each file
  // loads a copy instead. On PostgreSQL the same: every file's scratch database is a copy of one migrated here
  // (CREATE DATABASE … TEMPLATE), which took about a tenth of the 0.8 s that creating and migrating one did.
  const baseUrl = env().DATABASE_URL;
  const postgresTemplate = baseUrl ? await migratedPostgresTemplate(baseUrl) : undefined;
  project.provide('pgliteTemplate', baseUrl ? '' : await migratedPgliteTemplate(dir));
  project.provide('postgresTemplate', postgresTemplate ? new URL(postgresTemplate).pathname.slice(1) : '');
  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (baseUrl && postgresTemplate) await dropScratchPostgres(baseUrl, postgresTemplate);
  };
}

/**
 * A scratch database, migrated the way every file's used to be (through the configured URL: through the pooler when
 * CI runs the suite behind PgBouncer), then left with no session on it — PostgreSQL copies a template only then, and
 * a pooler keeps its server connections open a while after its clients have gone.
 */
async function migratedPostgresTemplate(baseUrl: string): Promise<string> {
  const url = await createScratchPostgres(baseUrl, 'portico_template');
  const raw = await openRawDatabase({ ...postgresOptions(url, { poolSize: 1 }), readCache: false });
  try {
    await migrateDatabase(raw);
  } finally {
    await raw.close();
  }
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${new URL(url).pathname.slice(1)} and pid <> pg_backend_pid()`;
  } finally {
    await admin.end({ timeout: 5 });
  }
  return url;
}

async function migratedPgliteTemplate(dir: string): Promise<string> {
  const raw = await openRawDatabase({ embeddedLocation: 'memory://', readCache: false });
  try {
    await migrateDatabase(raw);
    if (raw.kind !== 'pglite') throw new Error('expected the embedded database');
    const dump = await raw.pglite.dumpDataDir('none');
    const file = path.join(dir, 'pglite-template.tar');
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    return file;
  } finally {
    await raw.close();
  }
}
