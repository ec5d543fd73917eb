// The data folder and the embedded database's folder are owner-only: made 0700, their files without group or world
// bits after PGlite wrote them, and a start refuses a folder that other accounts can reach (lib/db/data-folder.ts).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRawDatabase } from '../../lib/db/client';
import { migrateDatabase } from '../../lib/db/migrate';
import { DataFolderExposedError, preparePrivateFolder } from '../../lib/db/data-folder';
import { childProcessEnvironment } from '../../lib/env';
import { resolveSecretKey } from '../../lib/security/at-rest';

const modeOf = (file: string) => statSync(file).mode & 0o777;

/** Every file and folder under `folder` whose mode gives anything to group or world. */
function exposed(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !statSync(file).isSocket() && (modeOf(file) & 0o077) !== 0);
}

describe('a private data folder', () => {
  it('is created 0700 with PGlite’s folder, and nothing in them is readable by others after the database ran', async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'portico-private-')), 'data');
    resolveSecretKey(undefined, dataDir);
    const raw = await openRawDatabase({ embeddedLocation: path.join(dataDir, 'pglite') });
    try {
      await migrateDatabase(raw);
      expect(modeOf(dataDir)).toBe(0o700);
      expect(modeOf(path.join(dataDir, 'pglite'))).toBe(0o700);
      expect(exposed(dataDir)).toEqual([]);
    } finally {
      await raw.close();
    }
    // PGlite writes its files 0666: after it closed, none is left so.
    expect(exposed(dataDir)).toEqual([]);
    expect(modeOf(path.join(dataDir, 'secret.key'))).toBe(0o600);
  });

  it('refuses a data folder or a PGlite folder that others can reach, naming it and the fix', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'portico-exposed-'));
    chmodSync(dataDir, 0o755);
    expect(() => preparePrivateFolder(dataDir)).toThrow(DataFolderExposedError);
    expect(() => preparePrivateFolder(dataDir)).toThrow(`chmod -R go-rwx "${dataDir}"`);
    await expect(openRawDatabase({ embeddedLocation: path.join(dataDir, 'pglite') })).rejects.toThrow(/can be reached by other accounts/);

    chmodSync(dataDir, 0o700);
    mkdirSync(path.join(dataDir, 'pglite'), { mode: 0o750 });
    chmodSync(path.join(dataDir, 'pglite'), 0o750);
    await expect(openRawDatabase({ embeddedLocation: path.join(dataDir, 'pglite') })).rejects.toThrow(`${path.join(dataDir, 'pglite')} can be reached by other accounts on this machine (mode 0750)`);
  });

  it('a server started on an exposed data folder stops with that message, without a stack trace', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'portico-exposed-start-'));
    chmodSync(dataDir, 0o755);
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'server.ts'], {
      cwd: process.cwd(),
      env: childProcessEnvironment({ PORTICO_DATA_DIR: dataDir, PORTICO_ISSUER: 'http://localhost:3299' }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    const output = `${result.stdout}${result.stderr}`;
    expect(result.status).not.toBe(0);
    expect(output).toContain(`Portico cannot start: ${dataDir} can be reached by other accounts`);
    expect(output).toContain('chmod -R go-rwx');
    expect(output).not.toMatch(/\n\s+at /);
  });
});
