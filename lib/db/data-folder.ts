// The data folder (PORTICO_DATA_DIR) holds the secret key, the control socket, the development outbox and, without
// DATABASE_URL, the embedded database itself — whose files hold every session, every refresh token's hash and every
// key's ciphertext. Another local account must not read, write or even enter it: writable database files would let it
// rewrite the data and bypass the control socket's peer check. So the folder and PGlite's folder are created 0700,
// and a start refuses a folder that is group- or world-accessible (naming it and the fix) instead of quietly running
// with it. PGlite writes its files 0666 whatever the umask: they are made owner-only after it opens and closes
// (inside a 0700 folder nobody else can reach them meanwhile).
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export class DataFolderExposedError extends Error {
  constructor(readonly folder: string, mode: number) {
    super(
      `${folder} can be reached by other accounts on this machine (mode ${mode.toString(8).padStart(4, '0')}): it holds Portico's keys and data. ` +
        `Make it owner-only and start again: chmod -R go-rwx ${JSON.stringify(folder)}`,
    );
    this.name = 'DataFolderExposedError';
  }
}

/** Group and world permission bits. */
const OTHERS = 0o077;

/** Creates `folder` owner-only if it is missing (its parents as usual); refuses one that others can reach. */
export function preparePrivateFolder(folder: string): void {
  mkdirSync(path.dirname(folder), { recursive: true });
  try {
    mkdirSync(folder, { mode: 0o700 });
    // The process umask cannot widen 0700, but an inherited default ACL or a 0o7xx umask could narrow it: set it.
    chmodSync(folder, 0o700);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const mode = statSync(folder).mode & 0o7777;
  if (mode & OTHERS) throw new DataFolderExposedError(folder, mode);
}

/** Takes the group and world bits off everything under `folder` (symbolic links are left alone, never followed). */
export function restrictToOwner(folder: string): void {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isSymbolicLink()) continue;
    const mode = lstatSync(full).mode & 0o7777;
    if (mode & OTHERS) chmodSync(full, mode & ~OTHERS);
    if (entry.isDirectory()) restrictToOwner(full);
  }
}
