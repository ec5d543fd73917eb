// What the database connection went through, for /api/ready: the outage going on now (if any) and the last one that
// ended. Every statement this process sends reports here (lib/db/client.ts): one that fails because the database
// cannot be reached (refused, closed, shutting down, read-only after a failover…) opens an outage, the next one that
// succeeds closes it. Errors of the statement itself (a unique violation, a syntax error) say nothing about the
// connection and are ignored. Kept in this process's memory only: each process (PORTICO_WORKERS) has its own record,
// and a restart forgets it.

/** A short class of connection failure: never a message, a host, a URL or a stack. */
export type OutageError =
  | 'connection refused'
  | 'connection closed'
  | 'connection timeout'
  | 'host not found'
  | 'server shutting down'
  | 'server starting up'
  | 'server read-only'
  | 'too many connections'
  | 'connection failed';

export interface Outage {
  /** ISO 8601 instants. */
  from: string;
  to: string;
  error: OutageError;
}

export interface DatabaseOutages {
  /** The outage going on now: since when, and the class of the last failure. */
  outage: { from: string; error: OutageError } | null;
  /** The most recent outage that ended. */
  lastOutage: Outage | null;
}

const BY_CODE: Record<string, OutageError> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection closed',
  EPIPE: 'connection closed',
  CONNECTION_CLOSED: 'connection closed',
  CONNECTION_ENDED: 'connection closed',
  CONNECTION_DESTROYED: 'connection closed',
  CONNECT_TIMEOUT: 'connection timeout',
  ETIMEDOUT: 'connection timeout',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'connection refused',
  ENETUNREACH: 'connection refused',
  // SQLSTATEs: admin_shutdown, crash_shutdown, cannot_connect_now, read_only_sql_transaction (a standby, or a
  // primary demoted under this process), too_many_connections; class 08 is connection exceptions.
  '57P01': 'server shutting down',
  '57P02': 'server shutting down',
  '57P03': 'server starting up',
  '25006': 'server read-only',
  '53300': 'too many connections',
};

/** The outage class of a failed statement's error, or undefined when the error is not about reaching the database. */
export function outageErrorOf(error: unknown): OutageError | undefined {
  const candidates = [error, (error as { cause?: unknown } | undefined)?.cause];
  for (const candidate of candidates) {
    const code = (candidate as { code?: unknown } | undefined)?.code;
    if (typeof code !== 'string') continue;
    const known = BY_CODE[code];
    if (known) return known;
    if (/^08[0-9A-Z]{3}$/.test(code)) return 'connection failed';
  }
  return undefined;
}

export class OutageRecorder {
  #current: { from: number; error: OutageError } | null = null;
  #last: { from: number; to: number; error: OutageError } | null = null;
  readonly #clock: () => number;

  readonly #onRecovered: (() => void) | undefined;

  /**
   * `clock`: milliseconds since the epoch (wall time: the instants are reported). `onRecovered`: called once when an
   * outage ends (the database client renews its pool then).
   */
  constructor(clock: () => number = Date.now, onRecovered?: () => void) {
    this.#clock = clock;
    this.#onRecovered = onRecovered;
  }

  // Arrow functions: handed to every statement's `then` as they are, no closure per statement.
  /** A statement failed: opens an outage when the error is about reaching the database. */
  readonly failed = (error: unknown): void => {
    const kind = outageErrorOf(error);
    if (!kind) return;
    if (this.#current) this.#current.error = kind;
    else this.#current = { from: this.#clock(), error: kind };
  };

  /** A statement succeeded: the outage going on, if any, has ended. */
  readonly succeeded = (): void => {
    if (!this.#current) return;
    this.#last = { ...this.#current, to: this.#clock() };
    this.#current = null;
    this.#onRecovered?.();
  };

  snapshot(): DatabaseOutages {
    const iso = (at: number) => new Date(at).toISOString();
    return {
      outage: this.#current ? { from: iso(this.#current.from), error: this.#current.error } : null,
      lastOutage: this.#last ? { from: iso(this.#last.from), to: iso(this.#last.to), error: this.#last.error } : null,
    };
  }
}
