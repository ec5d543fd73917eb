// The pace of polling (CIBA Core §11 and RFC 8628 §3.5 `slow_down`): a client that polls the token endpoint for one
// CIBA request or one device code sooner than `interval` seconds after its previous poll is told to slow down. The
// last poll's moment lives in PostgreSQL (the rate_limits table, one row per request, keyed by the hash of its id,
// which is a bearer secret), so polls spread over several instances are paced as one.
import { sql } from 'drizzle-orm';
import { rowsOf, type Queryable } from '../db/client';
import { rateLimits } from '../db/schema';
import { hashStoredId } from './stored-ids';

/**
 * Records a poll of the request `id`; true when it came sooner than `intervalSeconds` after the previous one that
 * was on time. One statement: concurrent polls on any instance are counted exactly.
 */
export async function pollTooSoon(db: Queryable, id: string, intervalSeconds: number): Promise<boolean> {
  const result = await db.execute(sql`
    insert into ${rateLimits} (key, window_start, count, expires_at)
    values (${`poll:${hashStoredId(id)}`}, to_timestamp(0), 1, now() + make_interval(secs => ${intervalSeconds}))
    on conflict (key, window_start) do update set
      count = case when ${rateLimits.expiresAt} <= now() then 1 else ${rateLimits.count} + 1 end,
      expires_at = case when ${rateLimits.expiresAt} <= now() then now() + make_interval(secs => ${intervalSeconds}) else ${rateLimits.expiresAt} end
    returning count`);
  const [row] = rowsOf<{ count: number | string }>(result);
  return Number(row?.count ?? 1) > 1;
}
