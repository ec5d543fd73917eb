// What stopping an agent does, once, wherever it is stopped from (a person disabling it at any door, or its owner
// leaving the organization with no sponsor left): in the transaction of the change,
// - the agent is disabled: its next token request is refused at every instance (every grant reads the row), and
//   every token it holds is refused at Portico's own doors at once (they read the agent on each request);
// - the grants that name it end (its refresh tokens with them);
// - its pending confirmations are denied and its pending approval requests cancelled: nothing it asked for can be
//   approved later;
// - the apps it can reach hear a RISC account-disabled event about it (Shared Signals, RFC 8935/8936 streams), so
//   an app on the kit refuses the tokens it still holds before they expire;
// and the audit event (agent.disabled or agent.suspended) becomes the webhook. Agents hold no session, so no
// back-channel logout applies to them (a person's delegated sessions end with the grants above).
import { and, eq, gt, inArray, isNull, not, or, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { agentConnections, agentGrants, agents, approvalRequests, clients, confirmationChallenges, grantBindings, memberships, teamMembers, users } from '../db/schema';
import { queueSecurityEvent, SSF_EVENT_TYPES } from '../ssf/events';
import { recordAuditEvent } from '../audit/events';
import { endAgentGrants, type Agent } from './agents';

export interface AgentStopped {
  grantsEnded: number;
  confirmationsDenied: number;
  requestsCancelled: number;
  eventsQueued: number;
}

/** The apps' own clients of the apps the agent can reach (a connection, a direct grant, or a person's consent naming it). */
async function appClientsOfAgent(db: Queryable, agentId: string): Promise<string[]> {
  const appIds = [
    ...new Set([
      ...(await db.select({ appId: agentConnections.appId }).from(agentConnections).where(eq(agentConnections.agentId, agentId))).map((row) => row.appId),
      ...(await db.select({ appId: agentGrants.appId }).from(agentGrants).where(eq(agentGrants.agentId, agentId))).map((row) => row.appId),
      // Apps people's consents bound to it (tokens whose `act` is the agent): their apps refuse those tokens too.
      ...(await db.select({ appId: grantBindings.appId }).from(grantBindings).where(eq(grantBindings.agentId, agentId))).map((row) => row.appId),
    ].filter((appId): appId is string => appId !== null)),
  ];
  if (appIds.length === 0) return [];
  const rows = await db.select({ id: clients.id }).from(clients).where(and(eq(clients.kind, 'app'), inArray(clients.appId, appIds), isNull(clients.revokedAt)));
  return rows.map((row) => row.id);
}

/**
 * Stops the agent everywhere (see above). `reason`: a person disabled it, or its owner left. Idempotent on the
 * agent's row; the caller records the audit event.
 */
export async function stopAgent(tx: Queryable, agent: Pick<Agent, 'id'>, reason: 'disabled' | 'owner_left'): Promise<AgentStopped> {
  // Read first: ending the grants below ends the consents' bindings that name the apps.
  const clientIds = await appClientsOfAgent(tx, agent.id);
  await tx
    .update(agents)
    .set({ disabledAt: sql`coalesce(${agents.disabledAt}, now())`, suspendedReason: reason === 'owner_left' ? 'owner_left' : null })
    .where(eq(agents.id, agent.id));
  const grantsEnded = await endAgentGrants(tx, agent.id);
  const denied = await tx
    .update(confirmationChallenges)
    .set({ deniedAt: sql`now()` })
    .where(
      and(
        or(eq(confirmationChallenges.subject, agent.id), eq(confirmationChallenges.actor, agent.id)),
        isNull(confirmationChallenges.confirmedAt),
        isNull(confirmationChallenges.deniedAt),
        gt(confirmationChallenges.expiresAt, sql`now()`),
      ),
    )
    .returning({ id: confirmationChallenges.id });
  const cancelled = await tx
    .update(approvalRequests)
    .set({ state: 'cancelled', decidedAt: sql`now()`, decidedBy: 'agent_disabled' })
    .where(and(eq(approvalRequests.actor, agent.id), eq(approvalRequests.state, 'pending')))
    .returning({ id: approvalRequests.id });
  // RISC 1.0 §2.3 account-disabled, about the agent (its `sub` in the tokens the apps hold).
  const eventsQueued = await queueSecurityEvent(tx, {
    clientIds,
    subject: { sub: agent.id },
    eventType: SSF_EVENT_TYPES.accountDisabled,
    event: {},
  });
  return { grantsEnded, confirmationsDenied: denied.length, requestsCancelled: cancelled.length, eventsQueued };
}

/** Turns the agent on again (a person's decision): the suspension's reason goes with it. */
export async function restartAgent(tx: Queryable, agentId: string): Promise<void> {
  await tx.update(agents).set({ disabledAt: null, suspendedReason: null, suspensionToldAt: null }).where(eq(agents.id, agentId));
}

/**
 * Whether an agent of the organization still has someone who answers for it there: its owner a member, or a member
 * of its sponsor team whose account is enabled (an SQL condition on `agents`).
 */
function answeredFor(orgId: string) {
  const ownerIsMember = sql`exists (select 1 from ${memberships} where ${memberships.orgId} = ${orgId} and ${memberships.userId} = ${agents.ownerUserId})`;
  const sponsorRemains = sql`exists (select 1 from ${teamMembers} join ${memberships} on ${memberships.userId} = ${teamMembers.userId} and ${memberships.orgId} = ${orgId}
    join ${users} on ${users.id} = ${teamMembers.userId} and ${users.disabledAt} is null
    where ${teamMembers.teamId} = ${agents.sponsorTeamId})`;
  return or(ownerIsMember, sponsorRemains)!;
}

/** Whether someone answers for the agent now (enabling one nobody answers for is refused). */
export async function isAnsweredFor(tx: Queryable, orgId: string, agentId: string): Promise<boolean> {
  const [row] = await tx.select({ id: agents.id }).from(agents).where(and(eq(agents.id, agentId), eq(agents.orgId, orgId), answeredFor(orgId))).limit(1);
  return row !== undefined;
}

/**
 * The organization's running agents nobody answers for any more — the owner left and no enabled member of the
 * sponsor team remains (it had none, or its last one left the team or the organization, or the sponsor was
 * cleared) — are suspended: stopped as above, with the reason `owner_left`; the organization's owners and admins
 * are told by mail (the ticker, tellAboutSuspendedAgents). Called by every change that can leave an agent so: a
 * member's removal, a team member's removal, a sponsor's change. Returns the agents suspended.
 */
export async function suspendAgentsNobodyAnswersFor(tx: Queryable, orgId: string): Promise<Agent[]> {
  const orphans = await tx
    .select()
    .from(agents)
    .where(and(eq(agents.orgId, orgId), isNull(agents.disabledAt), not(answeredFor(orgId))));
  for (const agent of orphans) {
    const stopped = await stopAgent(tx, agent, 'owner_left');
    await recordAuditEvent(tx, {
      orgId,
      actor: { type: 'system', label: 'Portico' },
      action: 'agent.suspended',
      subject: { type: 'agent', id: agent.id, label: agent.name },
      details: { reason: 'owner_left', ownerUserId: agent.ownerUserId, sponsorTeamId: agent.sponsorTeamId, ...stopped },
    });
  }
  return orphans;
}

/** Disables (stopAgent, as a person's decision) or enables the agent. */
export async function setAgentDisabled(tx: Queryable, agentId: string, disabled: boolean): Promise<AgentStopped | undefined> {
  if (!disabled) {
    await restartAgent(tx, agentId);
    return undefined;
  }
  return stopAgent(tx, { id: agentId }, 'disabled');
}
