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

  constructor(startFeed?: (cache: ReadCache) => InvalidationFeed, clock: () => number = Date.now) {
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
    if (entry && this.#live && this.#clock() - entry.storedAt < CACHE_TTL_MS) return entry.value as Value;
    if (entry) this.#forget(key);
    const generation = this.#generation;
    const value = await load();
    if (value !== undefined && this.#live && generation === this.#generation) this.#store(key, value, tagsOf(value));
    return value;
  }

  /** Drops every entry read from the rows `tag` names (a notification). */
  invalidate(tag: string): void {
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

/**
 * LISTEN on a PostgreSQL connection of its own (outside the pool: a pooled connection is shared and may be
 * recycled). When it closes, the cache stops storing and the feed reconnects with a growing delay; once listening
 * again the cache starts empty.
 */
export function postgresInvalidationFeed(url: string): (cache: ReadCache) => InvalidationFeed {
  return (cache) => {
    let stopped = false;
    let attempt = 0;
    let timer: NodeJS.Timeout | undefined;
    const listener = postgres(url, {
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      fetch_types: false,
      onnotice: () => {},
      // postgres.js's own `listen()` is built on this option (not in its types); used directly so that a closed
      // connection is seen (onclose), which `listen()` hides behind a single silent re-listen.
      ...({ onnotify: (channel: string, payload: string) => channel === CACHE_CHANNEL && cache.invalidate(payload) } as object),
      onclose: () => {
        cache.setLive(false);
        if (!stopped) schedule();
      },
    });
    const listen = async () => {
      timer = undefined;
      if (stopped) return;
      try {
        await listener.unsafe(`listen ${CACHE_CHANNEL}`);
        attempt = 0;
        cache.setLive(true);
      } catch {
        // Closing the connection calls onclose, which schedules the next attempt; a refused connection may not.
        if (!stopped && !timer) schedule();
      }
    };
    const schedule = () => {
      if (timer) return;
      const delay = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)]!;
      attempt += 1;
      timer = setTimeout(() => void listen(), delay);
      timer.unref();
    };
    void listen();
    return {
      stop: async () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        await listener.end({ timeout: 1 });
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
