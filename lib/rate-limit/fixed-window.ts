// Fixed-window counters in PostgreSQL, shared by every instance. One atomic upsert per hit: concurrent requests
// on any instance count exactly. Windows are aligned on the database clock, so instances agree on them.
// `hitRateLimit` answers for the current window alone; `peekRateLimit` sums the current and the previous window,
// so that a burst straddling a boundary is still seen (a look-back of one to two window lengths).
import { lt, sql } from 'drizzle-orm';
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
  count: number;
  limited: boolean;
  /** Seconds until the current window ends. */
  retryAfterSeconds: number;
}

function windowStart(windowSeconds: number) {
  return sql`to_timestamp(floor(extract(epoch from now()) / ${windowSeconds}) * ${windowSeconds})`;
}

function state(rule: RateLimitRule, row: { count: number | string; retry_after: number | string } | undefined): RateLimitState {
  const count = Number(row?.count ?? 0);
  const retryAfterSeconds = Math.max(1, Math.ceil(Number(row?.retry_after ?? rule.windowSeconds)));
  return { count, limited: count >= rule.limit, retryAfterSeconds };
}

/** Counts one event and returns the state after it. `limited` is true once the count reaches the limit. */
export async function hitRateLimit(db: Queryable, rule: RateLimitRule, subject: string): Promise<RateLimitState> {
  const start = windowStart(rule.windowSeconds);
  const result = await db.execute(sql`
    insert into ${rateLimits} (key, window_start, count, expires_at)
    values (${keyOf(rule, subject)}, ${start}, 1, ${start} + make_interval(secs => ${2 * rule.windowSeconds}))
    on conflict (key, window_start) do update set count = ${rateLimits.count} + 1
    returning count, extract(epoch from (window_start + make_interval(secs => ${rule.windowSeconds}) - now())) as retry_after`);
  const after = state(rule, rowsOf<{ count: number; retry_after: number }>(result)[0]);
  // Over the limit is the state *after* this hit exceeded it.
  return { ...after, limited: after.count > rule.limit };
}

/** Events in the current and the previous window, without counting. `limited` when they reach the limit. */
export async function peekRateLimit(db: Queryable, rule: RateLimitRule, subject: string): Promise<RateLimitState> {
  const result = await db.execute(sql`
    select coalesce(sum(count), 0) as count, extract(epoch from (max(window_start) + make_interval(secs => ${rule.windowSeconds}) - now())) as retry_after from ${rateLimits}
    where key = ${keyOf(rule, subject)}
      and window_start >= ${windowStart(rule.windowSeconds)} - make_interval(secs => ${rule.windowSeconds})`);
  return state(rule, rowsOf<{ count: number; retry_after: number }>(result)[0]);
}

/** Takes back one event of the current window (an attempt that turned out not to count, such as a success). */
export async function undoRateLimitHit(db: Queryable, rule: RateLimitRule, subject: string): Promise<void> {
  await db.execute(sql`
    update ${rateLimits} set count = greatest(count - 1, 0)
    where key = ${keyOf(rule, subject)} and window_start = ${windowStart(rule.windowSeconds)}`);
}

/** Rows are kept two windows long: peekRateLimit looks back one window. */
export async function purgeExpiredRateLimits(db: Queryable): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.expiresAt, sql`now()`));
}
