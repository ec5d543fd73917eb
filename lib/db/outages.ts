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

/** Outages after which the pool is replaced (its connections may be dead); not one of too many connections. */
const RENEWING: ReadonlySet<OutageError> = new Set<OutageError>(['connection refused', 'connection closed', 'connection timeout', 'host not found', 'server shutting down', 'server read-only', 'connection failed']);
/** At most one pool renewal in this long: a flapping database cannot make the process open pool after pool. */
export const RENEWAL_SPACING_MS = 30_000;

export class OutageRecorder {
  #current: { from: number; error: OutageError } | null = null;
  #last: { from: number; to: number; error: OutageError } | null = null;
  /** Whether a statement of the current pool failed during the outage going on (not only the listener). */
  #poolFailed = false;
  #lastRenewal = Number.NEGATIVE_INFINITY;
  readonly #clock: () => number;
  readonly #onRecovered: (() => void) | undefined;
  /**
   * The pool of the moment (lib/db/client.ts RenewablePool): statements report with the generation they were sent
   * on, and a failure from a pool already replaced (its connections ended on purpose) is not an outage.
   */
  generation = 0;

  /**
   * `clock`: milliseconds since the epoch (wall time: the instants are reported). `onRecovered`: called when an
   * outage in which the pool's own statements failed ends (the database client renews its pool then), at most once
   * every RENEWAL_SPACING_MS.
   */
  constructor(clock: () => number = Date.now, onRecovered?: () => void) {
    this.#clock = clock;
    this.#onRecovered = onRecovered;
  }

  #open(error: unknown): OutageError | undefined {
    const kind = outageErrorOf(error);
    if (!kind) return undefined;
    if (this.#current) this.#current.error = kind;
    else this.#current = { from: this.#clock(), error: kind };
    return kind;
  }

  /** A statement sent on pool `generation` failed: opens an outage when the error is about reaching the database. */
  readonly failed = (error: unknown, generation: number = this.generation): void => {
    if (generation !== this.generation) return;
    const kind = this.#open(error);
    if (kind && RENEWING.has(kind)) this.#poolFailed = true;
  };

  /** The cache's listening connection was lost or could not connect: reported, but no reason to renew the pool. */
  readonly listenerFailed = (error: unknown): void => {
    this.#open(error);
  };

  /** A statement succeeded: the outage going on, if any, has ended. */
  readonly succeeded = (): void => {
    if (!this.#current) return;
    const now = this.#clock();
    this.#last = { ...this.#current, to: now };
    this.#current = null;
    const renew = this.#poolFailed && now - this.#lastRenewal >= RENEWAL_SPACING_MS;
    this.#poolFailed = false;
    if (!renew) return;
    this.#lastRenewal = now;
    this.generation += 1;
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
