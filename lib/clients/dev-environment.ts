// An app's dev environment: while it is on (until an explicit end time), its dev-only redirect URIs work.
import { eq, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { apps } from '../db/schema';

/** Turns the app's dev environment on until `until`, or off (null). Dev-only redirect URIs work only while it is on. */
export async function setDevEnvironment(db: Queryable, appId: string, until: Date | null): Promise<void> {
  await db.update(apps).set({ devEnvironmentUntil: until }).where(eq(apps.id, appId));
}

export async function devEnvironmentActive(db: Queryable, appId: string): Promise<boolean> {
  const [row] = await db
    .select({ active: sql<boolean>`coalesce(${apps.devEnvironmentUntil} > now(), false)` })
    .from(apps)
    .where(eq(apps.id, appId));
  return row?.active ?? false;
}
