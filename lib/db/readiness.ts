// Readiness for load balancers: the database answers and holds every migration this build ships.
import { sql } from 'drizzle-orm';
import type { Database } from './client';
import { latestShippedMigration } from './migrate';

export type Readiness = { ready: true } | { ready: false; reason: 'database_unreachable' | 'migrations_pending' };

export async function checkReadiness(db: Database): Promise<Readiness> {
  let applied: number;
  try {
    const rows = await db.execute<{ latest: string | null }>(sql`select max(created_at)::text as latest from drizzle.__drizzle_migrations`);
    // postgres.js returns an array, PGlite an object with rows.
    const list = (Array.isArray(rows) ? rows : (rows as unknown as { rows: { latest: string | null }[] }).rows) as { latest: string | null }[];
    applied = Number(list[0]?.latest ?? 0);
  } catch {
    return { ready: false, reason: 'database_unreachable' };
  }
  return applied >= latestShippedMigration().when ? { ready: true } : { ready: false, reason: 'migrations_pending' };
}
