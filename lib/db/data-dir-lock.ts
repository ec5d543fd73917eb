// The embedded database may be opened by one process only: two PGlite instances on one folder corrupt it.
// A pid file says who holds the folder; a lock left by a process that died (kill -9) is taken over.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `Another Portico process (pid ${pid}) is already using the embedded database in ${dataDir}. ` +
        'Stop it first, point PORTICO_DATA_DIR at another folder, or set DATABASE_URL to share a PostgreSQL server between processes. ' +
        '(The operator CLI needs none of this: it sends its commands to the running server.)',
    );
    this.name = 'DataDirInUseError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the folder's lock or throws DataDirInUseError; returns the function that releases it. */
export function acquireDataDirLock(dataDir: string): () => void {
  const lockFile = path.join(dataDir, 'portico.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: 'wx', mode: 0o600 });
      const release = () => {
        try {
          if (readFileSync(lockFile, 'utf8') === String(process.pid)) rmSync(lockFile);
        } catch {
          // already gone
        }
      };
      process.once('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readFileSync(lockFile, 'utf8'), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new DataDirInUseError(dataDir, holder);
      }
      rmSync(lockFile, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Could not take the lock on ${dataDir}`);
}
