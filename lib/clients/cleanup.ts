// Client use and the clean-up of dynamically registered clients (MCP authorization 2026-07-28 deprecates dynamic
// registration; clients that register again on every connection leave hundreds of dead clients behind).
//
// - Each token a non-app client obtains marks its first and latest use, on the client and on the app it served
//   (the console's Clients page shows both). The latest is kept to the minute, so a busy client writes once a minute.
// - A dynamically registered client that obtained no token and holds no consent 24 hours after registering is
//   removed; one that obtained none for 90 days is removed too, audited in every organization whose apps it reached.
//   A removed client that comes back gets 401 invalid_client at the token endpoint (RFC 6749 §5.2), which is what
//   tells an MCP client to register again.
import { and, eq, inArray, isNull, lt, notExists, or, sql } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client';
import { clientAppLinks, clients, grantBindings, oidcPayloads } from '../db/schema';
import { recordAuditEvent } from '../audit/events';

export const UNUSED_REGISTRATION_HOURS = 24;
export const IDLE_CLIENT_DAYS = 90;
const BATCH = 200;
const stamp = (at: Date) => sql`${at.toISOString()}::timestamptz`;

/** Marks a use of the client (and of its link to the app it served), at most once a minute each. */
export async function noteClientUse(db: Queryable, clientId: string, appId: string | undefined, at: Date = new Date()): Promise<void> {
  const stale = (column: typeof clients.lastUsedAt | typeof clientAppLinks.lastUsedAt) => or(isNull(column), lt(column, sql`${stamp(at)} - interval '1 minute'`));
  await db
    .update(clients)
    .set({ firstUsedAt: sql`coalesce(${clients.firstUsedAt}, ${stamp(at)})`, lastUsedAt: at })
    .where(and(eq(clients.id, clientId), stale(clients.lastUsedAt)));
  if (appId) {
    await db
      .update(clientAppLinks)
      .set({ firstUsedAt: sql`coalesce(${clientAppLinks.firstUsedAt}, ${stamp(at)})`, lastUsedAt: at })
      .where(and(eq(clientAppLinks.clientId, clientId), eq(clientAppLinks.appId, appId), stale(clientAppLinks.lastUsedAt)));
  }
}

export interface CleanupReport {
  neverUsed: number;
  idle: number;
}

/** How often a process runs the clean-up (the ticker's rounds are every 15 seconds; this need not be). */
export const CLEANUP_EVERY_MS = 10 * 60_000;

/** Removes abandoned dynamic clients as of `at` (a batch per call; the ticker calls it every CLEANUP_EVERY_MS). */
export async function removeAbandonedDynamicClients(db: Database, at: Date): Promise<CleanupReport> {
  const idleSince = sql`${stamp(at)} - make_interval(days => ${IDLE_CLIENT_DAYS})`;
  return db.transaction(async (tx) => {
    const neverUsed = await tx
      .select({ id: clients.id, name: clients.name })
      .from(clients)
      .where(
        and(
          eq(clients.kind, 'dynamic'),
          isNull(clients.firstUsedAt),
          lt(clients.createdAt, sql`${stamp(at)} - make_interval(hours => ${UNUSED_REGISTRATION_HOURS})`),
          notExists(tx.select({ one: sql`1` }).from(grantBindings).where(eq(grantBindings.clientId, clients.id))),
        ),
      )
      .limit(BATCH)
      .for('update', { skipLocked: true });
    const idle = await tx
      .select({ id: clients.id, name: clients.name, lastUsedAt: clients.lastUsedAt, createdAt: clients.createdAt })
      .from(clients)
      .where(
        and(
          eq(clients.kind, 'dynamic'),
          // Two conditions rather than coalesce(last_used_at, created_at), so that the (kind, last_used_at) index serves.
          or(
            lt(clients.lastUsedAt, idleSince),
            and(isNull(clients.lastUsedAt), lt(clients.createdAt, idleSince)),
          ),
        ),
      )
      .limit(BATCH)
      .for('update', { skipLocked: true });
    const idleIds = idle.map((row) => row.id).filter((id) => !neverUsed.some((row) => row.id === id));
    const removed = [...neverUsed.map((row) => row.id), ...idleIds];
    if (removed.length === 0) return { neverUsed: 0, idle: 0 };
    // Audited where people will look: every organization whose apps an idle client reached, and once overall.
    const links = idleIds.length > 0 ? await tx.select({ clientId: clientAppLinks.clientId, orgId: clientAppLinks.orgId, appId: clientAppLinks.appId }).from(clientAppLinks).where(inArray(clientAppLinks.clientId, idleIds)) : [];
    for (const client of idle.filter((row) => idleIds.includes(row.id))) {
      const details = { reason: 'idle', idleDays: IDLE_CLIENT_DAYS, lastUsedAt: client.lastUsedAt?.toISOString() ?? null, registeredAt: client.createdAt.toISOString() };
      const orgs = links.filter((link) => link.clientId === client.id);
      for (const link of orgs.length > 0 ? orgs : [{ orgId: null, appId: null }]) {
        await recordAuditEvent(tx, { orgId: link.orgId, actor: { type: 'system', label: 'client clean-up' }, action: 'client.removed_unused', subject: { type: 'client', id: client.id, label: client.name }, appId: link.appId, clientId: client.id, details });
      }
    }
    if (neverUsed.length > 0) {
      await recordAuditEvent(tx, {
        orgId: null,
        actor: { type: 'system', label: 'client clean-up' },
        action: 'client.registrations_removed',
        details: { reason: 'never_used', afterHours: UNUSED_REGISTRATION_HOURS, count: neverUsed.length, clientIds: neverUsed.map((row) => row.id) },
      });
    }
    // What oidc-provider kept for them (grants, refresh tokens, codes) goes with them; the rest cascades.
    await tx.delete(oidcPayloads).where(inArray(oidcPayloads.clientId, removed));
    await tx.delete(clients).where(inArray(clients.id, removed));
    return { neverUsed: neverUsed.length, idle: idleIds.length };
  });
}
