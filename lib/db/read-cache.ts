// Rows read on every request (a client with its redirect URIs and secrets, an app, a person with a membership) kept
// per process, and dropped the moment any instance changes them: triggers on the tables they come from send
// `pg_notify('portico_cache', '<tag>')` at commit (migration 0026), every process LISTENs on one connection of its
// own, and each notification drops the entries read from the rows it names.
//
// What keeps it correct:
// - Rows are cached, never decisions: time windows (a secret's validity, an app's dev environment) are checked at
//   each use from the cached timestamps.
// - Nothing is stored while the feed is down, and the cache empties when it (re)connects: a change made while this
//   process could not hear about it is never served.
// - A read that started before a notification arrived is not stored (a generation count): it may have seen the row
//   as it was before the change.
// - Entries live at most CACHE_TTL_MS, a safety net for whatever the above misses.
// - Reads inside a transaction never use the cache (they must see the transaction's own writes).
// The window left is the delivery of one notification (milliseconds): a request on instance B that starts before
// B hears of a commit on instance A can still see the row as it was, as it could have without a cache.
import { databaseInstruments } from './instruments';
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';

export const CACHE_CHANNEL = 'portico_cache';
export const CACHE_TTL_MS = 60_000;
const MAX_ENTRIES = 20_000;
const RECONNECT_DELAYS_MS = [250, 1000, 2000, 5000, 10_000];

interface Entry {
  value: unknown;
  tags: readonly string[];
  storedAt: number;
}

/** A source of invalidations: calls `invalidate(tag)` per notification, `reset()` when it (re)connects or drops. */
export interface InvalidationFeed {
  stop(): Promise<void>;
}

export class ReadCache {
  readonly #entries = new Map<string, Entry>();
  readonly #keysByTag = new Map<string, Set<string>>();
  #generation = 0;
  #live = false;
  #feed: InvalidationFeed | undefined;
  #startFeed: ((cache: ReadCache) => InvalidationFeed) | undefined;
  readonly #clock: () => number;

  /** The database's clock minus this process's, in ms, as the feed last measured it (time windows use it). */
  clockOffsetMs = 0;

  // Monotonic by default: a clock stepped back must not stretch the TTL.
  constructor(startFeed?: (cache: ReadCache) => InvalidationFeed, clock: () => number = () => performance.now()) {
    this.#startFeed = startFeed;
    this.#clock = clock;
  }

  /**
   * The value under `key`: cached, or loaded (and cached when found, with the tags whose notifications drop it).
   * `undefined` (nothing found) is never cached: an unknown id costs a statement every time, as before.
   */
  async read<Value>(key: string, load: () => Promise<Value | undefined>, tagsOf: (value: Value) => readonly string[]): Promise<Value | undefined> {
    this.#ensureFeed();
    const entry = this.#entries.get(key);
    if (entry && this.#live && this.#clock() - entry.storedAt < CACHE_TTL_MS) {
      databaseInstruments()?.readCache('hit');
      return entry.value as Value;
    }
    databaseInstruments()?.readCache('miss');
    if (entry) this.#forget(key);
    const generation = this.#generation;
    const value = await load();
    if (value !== undefined && this.#live && generation === this.#generation) this.#store(key, value, tagsOf(value));
    return value;
  }

  /** Drops every entry read from the rows `tag` names (a notification). */
  invalidate(tag: string): void {
    databaseInstruments()?.readCache('invalidation');
    // '*': a TRUNCATE (or anything else too wide to name) empties the cache.
    if (tag === '*') return this.#clear();
    this.#generation += 1;
    // An entry that depends on every row of a table (an app found by origin) is tagged '<table>:*'.
    const table = tag.slice(0, tag.indexOf(':'));
    for (const dropped of [tag, `${table}:*`]) {
      const keys = this.#keysByTag.get(dropped);
      if (keys) for (const key of [...keys]) this.#forget(key);
    }
  }

  /** The feed is (again) connected (`true`): start from nothing; or it dropped (`false`): store nothing until then. */
  setLive(live: boolean): void {
    this.#live = live;
    this.#clear();
  }

  #clear(): void {
    this.#generation += 1;
    this.#entries.clear();
    this.#keysByTag.clear();
  }

  /** True while the invalidation feed is connected (only then is anything stored or served). */
  get live(): boolean {
    return this.#live;
  }

  get size(): number {
    return this.#entries.size;
  }

  async stop(): Promise<void> {
    this.#startFeed = undefined;
    const feed = this.#feed;
    this.#feed = undefined;
    this.setLive(false);
    await feed?.stop();
  }

  // Started on first use: a process that never reads a cached row (a CLI command) opens no listening connection.
  #ensureFeed(): void {
    if (this.#feed || !this.#startFeed) return;
    this.#feed = this.#startFeed(this);
  }

  #store(key: string, value: unknown, tags: readonly string[]): void {
    if (this.#entries.size >= MAX_ENTRIES) {
      // The oldest entry goes first (a Map iterates in insertion order).
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#forget(oldest);
    }
    this.#entries.set(key, { value, tags, storedAt: this.#clock() });
    for (const tag of tags) {
      let keys = this.#keysByTag.get(tag);
      if (!keys) this.#keysByTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
  }

  #forget(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    for (const tag of entry.tags) {
      const keys = this.#keysByTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.#keysByTag.delete(tag);
    }
  }
}

export const LISTENER_APPLICATION_NAME = 'portico-cache-listener';

/** How often the feed proves it still hears notifications, and how long a proof may take. */
const HEARTBEAT_EVERY_MS = 5000;
const HEARTBEAT_WITHIN_MS = 2000;

/**
 * LISTEN on a PostgreSQL connection of its own (outside the pool: a pooled connection is shared and may be
 * recycled). The cache counts as live only while this connection demonstrably delivers: every few seconds it sends
 * itself a notification (`ping:<nonce>`), and one that does not come back in time — a silently dead TCP path, or a
 * transaction-mode pooler that lost the LISTEN — takes the cache out of service and reconnects, as a closed
 * connection does, with a growing delay. Once listening again the cache starts empty. Each (re)connection also
 * measures the database's clock against this process's, so that time windows are checked on the database's time.
 * `onConnectionLost` hears of a close and of a failed (re)connection: the database's outages (lib/db/outages.ts).
 */
export function postgresInvalidationFeed(url: string, onConnectionLost: (error: unknown) => void = () => {}): (cache: ReadCache) => InvalidationFeed {
  return (cache) => {
    let stopped = false;
    let attempt = 0;
    let retry: NodeJS.Timeout | undefined;
    let listener: postgres.Sql | undefined;
    let awaitedPing: string | undefined;
    let pingDeadline: NodeJS.Timeout | undefined;

    const open = (): postgres.Sql => {
      const connection: postgres.Sql = postgres(url, {
        max: 1,
        idle_timeout: 0,
        max_lifetime: null,
        fetch_types: false,
        keep_alive: 10,
        // Named, so that an operator (and a test) can tell it in pg_stat_activity.
        connection: { application_name: LISTENER_APPLICATION_NAME },
        onnotice: () => {},
        // postgres.js's own `listen()` is built on this option (not in its types); used directly so that a closed
        // connection is seen (onclose), which `listen()` hides behind a single silent re-listen.
        ...({
          onnotify: (channel: string, payload: string) => {
            if (channel !== CACHE_CHANNEL) return;
            if (payload.startsWith('ping:')) {
              if (payload === awaitedPing) awaitedPing = undefined;
              return;
            }
            cache.invalidate(payload);
          },
        } as object),
        onclose: () => {
          if (connection !== listener) return;
          // This connection is never closed on purpose while it listens (no idle timeout, no lifetime): the
          // database went away, which /api/ready reports (lib/db/outages.ts) even if no statement failed meanwhile.
          onConnectionLost(Object.assign(new Error('listening connection closed'), { code: 'CONNECTION_CLOSED' }));
          drop();
        },
      });
      return connection;
    };

    /** Out of service until a new connection listens. */
    const drop = () => {
      cache.setLive(false);
      awaitedPing = undefined;
      if (pingDeadline) clearTimeout(pingDeadline);
      const old = listener;
      listener = undefined;
      void old?.end({ timeout: 0 }).catch(() => {});
      if (!stopped) schedule();
    };

    const listen = async () => {
      retry = undefined;
      if (stopped) return;
      const connection = open();
      listener = connection;
      try {
        await connection.unsafe(`listen ${CACHE_CHANNEL}`);
        const sentAt = Date.now();
        const [row] = await connection.unsafe<{ now: string }[]>('select (extract(epoch from clock_timestamp()) * 1000)::text as now');
        const receivedAt = Date.now();
        if (connection !== listener) return;
        cache.clockOffsetMs = Number(row?.now ?? receivedAt) - (sentAt + receivedAt) / 2;
        attempt = 0;
        cache.setLive(true);
      } catch (error) {
        if (connection !== listener) return;
        onConnectionLost(error);
        drop();
      }
    };

    const schedule = () => {
      if (retry || stopped) return;
      const delay = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)]!;
      attempt += 1;
      retry = setTimeout(() => void listen(), delay);
      retry.unref();
    };

    const heartbeat = setInterval(() => {
      const connection = listener;
      if (!connection || !cache.live || awaitedPing) return;
      const ping = `ping:${randomUUID()}`;
      awaitedPing = ping;
      pingDeadline = setTimeout(() => {
        if (awaitedPing === ping && connection === listener) drop();
      }, HEARTBEAT_WITHIN_MS);
      pingDeadline.unref();
      connection.unsafe(`select pg_notify('${CACHE_CHANNEL}', $1)`, [ping]).catch(() => {});
    }, HEARTBEAT_EVERY_MS);
    heartbeat.unref();

    void listen();
    return {
      stop: async () => {
        stopped = true;
        clearInterval(heartbeat);
        if (retry) clearTimeout(retry);
        if (pingDeadline) clearTimeout(pingDeadline);
        const connection = listener;
        listener = undefined;
        await connection?.end({ timeout: 1 });
      },
    };
  };
}

/** The embedded database runs in this process: its notifications arrive before the writing statement returns. */
export function pgliteInvalidationFeed(pglite: { listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> }): (cache: ReadCache) => InvalidationFeed {
  return (cache) => {
    const unlistening = pglite.listen(CACHE_CHANNEL, (payload) => cache.invalidate(payload)).then((unlisten) => {
      cache.setLive(true);
      return unlisten;
    });
    unlistening.catch(() => cache.setLive(false));
    return {
      stop: async () => {
        const unlisten = await unlistening.catch(() => undefined);
        await unlisten?.().catch(() => {});
      },
    };
  };
}
