// Revoking a client's access: every grant, refresh token, authorization code in flight and opaque access token of
// the client, in one statement (so one transaction). What it cannot reach: a JWT access token already issued stays
// valid until it expires (10 minutes at most), because apps verify it locally.
import { eq, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { apps } from '../db/schema';
import { endClientAccess } from '../grants';

export function revokeClientAccess(db: Queryable, clientId: string): Promise<Record<string, number>> {
  return endClientAccess(db, clientId);
}

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
