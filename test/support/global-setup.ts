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

declare module 'vitest' {
  export interface ProvidedContext {
    tlsDir: string;
    /** On the embedded database: a migrated, empty data folder (PGlite's dump), which each file's database starts from. */
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'portico-vitest-tls-'));
  process.env.NODE_EXTRA_CA_CERTS = loopbackTlsFiles({ regenerate: true, dir }).certPath;
  project.provide('tlsDir', dir);
  // On PGlite, creating a database (initdb) and migrating it cost seconds per test file; made once here, each file
  // loads a copy instead. On PostgreSQL every file still creates and migrates a database of its own.
  project.provide('pgliteTemplate', env().DATABASE_URL ? '' : await migratedPgliteTemplate(dir));
  return () => rmSync(dir, { recursive: true, force: true });
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
