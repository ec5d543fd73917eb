// What lib/observability measures of the database — statement and transaction timings, read cache hits — without
// lib/db depending on it: the metrics module installs these hooks when it is loaded, and the database calls them.
// Held on globalThis because the server and Next.js's bundle each load their own copy of these modules, and
// both copies of the database client must report to the one registry.
export interface DatabaseInstruments {
  /** A statement sent: the returned function is called when it ends (undefined when nobody measures). */
  statementStarted(inTransaction: boolean): (() => void) | undefined;
  /** A transaction opened: the returned function is called when it ends. */
  transactionStarted(): (() => void) | undefined;
  readCache(event: 'hit' | 'miss' | 'invalidation'): void;
}

const KEY = Symbol.for('portico.database-instruments');
type Holder = { [KEY]?: DatabaseInstruments };

export function installDatabaseInstruments(instruments: DatabaseInstruments): void {
  (globalThis as Holder)[KEY] = instruments;
}

export function databaseInstruments(): DatabaseInstruments | undefined {
  return (globalThis as Holder)[KEY];
}
