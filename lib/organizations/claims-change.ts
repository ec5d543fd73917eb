// CAEP token-claims-change (CAEP 1.0 §3.4): when what a person may do in an app changes (a permission granted to or
// taken from them, their team, or their team membership), the app's Shared Signals streams that asked for it hear the
// permissions the person holds there now — the `scope` their next access token for the app carries at most. Only
// apps the person uses (a grant at the app's own client) hear it.
import { and, eq, inArray } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { clients, teamMembers } from '../db/schema';
import { appClientsUsedBy, queueSecurityEvent, SSF_EVENT_TYPES } from '../ssf/events';
import { effectivePermissionsOfPerson } from './effective-permissions';

/** For each person: every app of the organization they use (or only `appId`), with the permissions they hold now. */
export async function announcePermissionChange(db: Queryable, input: { orgId: string; userIds: readonly string[]; appId?: string }): Promise<number> {
  let queued = 0;
  for (const userId of new Set(input.userIds)) {
    const used = await appClientsUsedBy(db, userId, { orgId: input.orgId });
    if (used.length === 0) continue;
    const appClients = await db
      .select({ clientId: clients.id, appId: clients.appId })
      .from(clients)
      .where(and(inArray(clients.id, used), input.appId ? eq(clients.appId, input.appId) : undefined));
    for (const { clientId, appId } of appClients) {
      if (!appId) continue;
      const permissions = await effectivePermissionsOfPerson(db, { orgId: input.orgId, appId, userId });
      queued += await queueSecurityEvent(db, {
        clientIds: [clientId],
        subject: { sub: userId },
        eventType: SSF_EVENT_TYPES.tokenClaimsChange,
        event: { claims: { scope: permissions.map((permission) => permission.scope).sort().join(' ') }, initiating_entity: 'admin' },
      });
    }
  }
  return queued;
}

/** The members of a team (whose permissions a change to the team's grants changes). */
export async function teamMemberIds(db: Queryable, teamId: string): Promise<string[]> {
  return (await db.select({ userId: teamMembers.userId }).from(teamMembers).where(eq(teamMembers.teamId, teamId))).map((row) => row.userId);
}
