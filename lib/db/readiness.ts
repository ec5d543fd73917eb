// Readiness for load balancers: the database answers and holds every migration this build ships.
import { sql } from 'drizzle-orm';
import { rowsOf, type Database } from './client';
import { latestShippedMigration } from './migrate';

export type Readiness = { ready: true } | { ready: false; reason: 'database_unreachable' | 'migrations_pending' };

export async function checkReadiness(db: Database): Promise<Readiness> {
  let applied: number;
  try {
    const result = await db.execute(sql`select max(created_at)::text as latest from drizzle.__drizzle_migrations`);
    applied = Number(rowsOf<{ latest: string | null }>(result)[0]?.latest ?? 0);
  } catch {
    return { ready: false, reason: 'database_unreachable' };
  }
  return applied >= latestShippedMigration().when ? { ready: true } : { ready: false, reason: 'migrations_pending' };
}
