// Starts a real Portico server process (server.ts, the production Next.js build) for end-to-end tests, on its
// own data folder and, when DATABASE_URL is set, its own scratch PostgreSQL database.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { drizzleFor, openRawDatabase, type Database } from '../../lib/db/client';
import { migrateDatabase } from '../../lib/db/migrate';
import { childProcessEnvironment, env } from '../../lib/env';
import { createScratchPostgres, dropScratchPostgres } from '../../test/support/databases';
import { demoEnvironment } from './constants';
import { serverLogPath } from './secret-scan';

export interface PorticoStorage {
  dataDir: string;
  databaseUrl?: string;
  dispose(): Promise<void>;
}

/** A data folder and, on PostgreSQL (DATABASE_URL, unless `embedded`), a scratch database of its own. */
export async function createStorage(prefix: string, { embedded = false }: { embedded?: boolean } = {}): Promise<PorticoStorage> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  const baseUrl = embedded ? undefined : env().DATABASE_URL;
  if (!baseUrl) return { dataDir, dispose: async () => {} };
  const databaseUrl = await createScratchPostgres(baseUrl, prefix.replaceAll('-', '_'));
  return { dataDir, databaseUrl, dispose: () => dropScratchPostgres(baseUrl, databaseUrl) };
}

/** Opens the storage's database (migrated) while no server runs, e.g. to write fixtures. */
export async function withStorageDatabase(storage: PorticoStorage, work: (db: Database) => Promise<void>): Promise<void> {
  const raw = await openRawDatabase({ databaseUrl: storage.databaseUrl, embeddedLocation: path.join(storage.dataDir, 'pglite') });
  try {
    await migrateDatabase(raw);
    await work(drizzleFor(raw));
  } finally {
    await raw.close();
  }
}

export interface RunningPortico {
  process: ChildProcess;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /**
   * Sends `signal` to the server and resolves once it is gone. Under npm that is the whole process group (npm, tsx and
   * the server), which npm does not pass a signal on to reliably.
   */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const groupAlive = (pid: number) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Spawns `node <args>` (or `npm <args>` with `{ npm: true }`) and resolves once its output contains `ready`; rejects
 * if it exits first or takes too long.
 */
export async function spawnUntilReady(
  args: string[],
  env: Record<string, string | undefined>,
  ready: string,
  label: string,
  timeoutSeconds = 90,
  options: { npm?: boolean; /** Also written here, whole (the end-to-end run's secret scan reads it). */ logFile?: string } = {},
): Promise<RunningPortico> {
  const child = options.npm
    ? spawn('npm', args, { cwd: process.cwd(), env: childProcessEnvironment(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    : spawn(process.execPath, args, { cwd: process.cwd(), env: childProcessEnvironment(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const logFile = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
  if (logFile) {
    // A log that cannot be written must not end the run; the scan then finds the file short, not the run dead.
    logFile.on('error', () => {});
    child.stdout?.pipe(logFile, { end: false });
    child.stderr?.pipe(logFile, { end: false });
    // 'close' comes after both output streams are drained ('exit' may come before their last lines).
    child.on('close', () => logFile.end());
  }
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (!options.npm) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
      return;
    }
    if (child.pid === undefined) return;
    if (groupAlive(child.pid)) process.kill(-child.pid, signal);
    for (let waited = 0; groupAlive(child.pid) && waited < 15_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${label} did not start within ${timeoutSeconds} s:\n${output}`));
      void stop('SIGKILL');
    }, timeoutSeconds * 1000);
    let started = false;
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // Looked for until found, then never again: the output grows by a log line per request, and searching all of
      // it at every line would cost the test (or the bench's load generator) more than the server's work.
      if (!started && output.includes(ready)) {
        started = true;
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${code} before starting:\n${output}`));
    });
  });
  return { process: child, output: () => output, exited, stop };
}

/** Spawns server.ts and resolves once it prints that it is running. */
export function startPortico(port: number, storage: PorticoStorage, extra: Record<string, string> = {}): Promise<RunningPortico> {
  return spawnUntilReady(['--import', 'tsx', 'server.ts'], { ...demoEnvironment(port), PORTICO_DATA_DIR: storage.dataDir, DATABASE_URL: storage.databaseUrl, ...extra }, 'Portico is running at', 'Portico', 90, { logFile: serverLogPath(`portico-${port}`) });
}
