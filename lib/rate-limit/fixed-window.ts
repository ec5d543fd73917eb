// Window counters in PostgreSQL, shared by every instance. One atomic statement per hit: concurrent requests on any
// instance count exactly. Windows are aligned on the database clock, so instances agree on them.
// `hitRateLimit` decides with a sliding-window estimate: the current window's count plus the previous window's,
// weighted by the share of the previous window still inside the look-back (the "sliding window counter"). A plain
// fixed window would let a burst straddling a boundary through twice (a full window's worth on each side, seconds
// apart); the estimate sees it. `peekRateLimit` sums the current and the previous window in full (a look-back of
// one to two window lengths), for the checks that want the strictest reading.
import { sql } from 'drizzle-orm';
import { rowsOf, type Queryable } from '../db/client';
import { rateLimits } from '../db/schema';
import { clientNetworkKey } from './client-network';

export interface RateLimitRule {
  /** Namespaces the keys: 'login:account', 'login:ip', ... */
  name: string;
  limit: number;
  windowSeconds: number;
  /** The subject is a client's IP address: counted per /64 for IPv6 (lib/rate-limit/client-network.ts). */
  perClientNetwork?: boolean;
}

function keyOf(rule: RateLimitRule, subject: string): string {
  return `${rule.name}:${rule.perClientNetwork ? clientNetworkKey(subject) : subject}`;
}

export interface RateLimitState {
  /** Events counted in the current window (for peekRateLimit: in the current and the previous window). */
  count: number;
  limited: boolean;
  /** Seconds until one more event would be allowed (peekRateLimit: until the current window ends). */
  retryAfterSeconds: number;
}

/**
 * The instant a limit is decided at: the database's clock, so that instances agree, unless a test injects one
 * (`at`) to put events on either side of a window boundary without waiting for the real clock to get there.
 */
function instant(at: Date | undefined) {
  return at ? sql`${at.toISOString()}::timestamptz` : sql`now()`;
}

function windowStart(windowSeconds: number, at: Date | undefined) {
  return sql`to_timestamp(floor(extract(epoch from ${instant(at)}) / ${windowSeconds}) * ${windowSeconds})`;
}

function state(rule: RateLimitRule, row: { count: number | string; retry_after: number | string } | undefined): RateLimitState {
  const count = Number(row?.count ?? 0);
  const retryAfterSeconds = Math.max(1, Math.ceil(Number(row?.retry_after ?? rule.windowSeconds)));
  return { count, limited: count >= rule.limit, retryAfterSeconds };
}

/** Counts one event and returns the state after it. */
export async function hitRateLimit(db: Queryable, rule: RateLimitRule, subject: string, at?: Date): Promise<RateLimitState> {
  const key = keyOf(rule, subject);
  const start = windowStart(rule.windowSeconds, at);
  const result = await db.execute(sql`
    with hit as (
      insert into ${rateLimits} (key, window_start, count, expires_at)
      values (${key}, ${start}, 1, ${start} + make_interval(secs => ${2 * rule.windowSeconds}))
      on conflict (key, window_start) do update set count = ${rateLimits.count} + 1
      returning count, window_start
    )
    select hit.count,
      coalesce((select previous.count from ${rateLimits} previous
        where previous.key = ${key} and previous.window_start = hit.window_start - make_interval(secs => ${rule.windowSeconds})), 0) as previous,
      extract(epoch from (${instant(at)} - hit.window_start)) as elapsed
    from hit`);
  const row = rowsOf<{ count: number | string; previous: number | string; elapsed: number | string }>(result)[0];
  return slidingWindowState(rule, Number(row?.count ?? 1), Number(row?.previous ?? 0), Number(row?.elapsed ?? 0));
}

/**
 * The decision for a hit that made the current window's count `current`, with `previous` events in the window before
 * and `elapsed` seconds into the current one. Limited once the estimate exceeds the limit: the hit that goes over is
 * refused (it still counts: a client that keeps knocking keeps the window full). The wait is the time until one
 * more event would fit under the estimate (within this window as the previous one's weight fades, or in the next).
 */
export function slidingWindowState(rule: RateLimitRule, current: number, previous: number, elapsed: number): RateLimitState {
  const window = rule.windowSeconds;
  const elapsedShare = Math.min(Math.max(elapsed / window, 0), 1);
  const estimate = current + previous * (1 - elapsedShare);
  let waitSeconds: number;
  if (current + 1 <= rule.limit && previous > 0) {
    // In this window: (current + 1) + previous × (1 − share) ≤ limit.
    const shareNeeded = 1 - (rule.limit - current - 1) / previous;
    waitSeconds = shareNeeded < 1 ? Math.max(shareNeeded - elapsedShare, 0) * window : window - elapsed;
  } else if (current + 1 <= rule.limit) {
    waitSeconds = 0;
  } else {
    // In the next window, where this window's count fades: 1 + current × (1 − share) ≤ limit.
    const shareNeeded = rule.limit >= 1 ? Math.max(1 - (rule.limit - 1) / current, 0) : 1;
    waitSeconds = window - elapsed + shareNeeded * window;
  }
  return { count: current, limited: estimate > rule.limit, retryAfterSeconds: Math.max(1, Math.ceil(waitSeconds)) };
}

/** Events in the current and the previous window, without counting. `limited` when they reach the limit. */
export async function peekRateLimit(db: Queryable, rule: RateLimitRule, subject: string, at?: Date): Promise<RateLimitState> {
  const result = await db.execute(sql`
    select coalesce(sum(count), 0) as count, extract(epoch from (max(window_start) + make_interval(secs => ${rule.windowSeconds}) - ${instant(at)})) as retry_after from ${rateLimits}
    where key = ${keyOf(rule, subject)}
      and window_start >= ${windowStart(rule.windowSeconds, at)} - make_interval(secs => ${rule.windowSeconds})`);
  return state(rule, rowsOf<{ count: number; retry_after: number }>(result)[0]);
}

/** Takes back one event of the current window (an attempt that turned out not to count, such as a success). */
export async function undoRateLimitHit(db: Queryable, rule: RateLimitRule, subject: string, at?: Date): Promise<void> {
  await db.execute(sql`
    update ${rateLimits} set count = greatest(count - 1, 0)
    where key = ${keyOf(rule, subject)} and window_start = ${windowStart(rule.windowSeconds, at)}`);
}

