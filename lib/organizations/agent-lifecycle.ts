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
import { and, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { agentConnections, agentGrants, agents, approvalRequests, clients, confirmationChallenges, memberships, teamMembers } from '../db/schema';
import { queueSecurityEvent, SSF_EVENT_TYPES } from '../ssf/events';
import { recordAuditEvent } from '../audit/events';
import { endAgentGrants, type Agent } from './agents';

export interface AgentStopped {
  grantsEnded: number;
  confirmationsDenied: number;
  requestsCancelled: number;
  eventsQueued: number;
}

/** The apps' own clients of the apps the agent can reach (a connection or a direct grant there). */
async function appClientsOfAgent(db: Queryable, agentId: string): Promise<string[]> {
  const appIds = [
    ...new Set([
      ...(await db.select({ appId: agentConnections.appId }).from(agentConnections).where(eq(agentConnections.agentId, agentId))).map((row) => row.appId),
      ...(await db.select({ appId: agentGrants.appId }).from(agentGrants).where(eq(agentGrants.agentId, agentId))).map((row) => row.appId),
    ]),
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
    clientIds: await appClientsOfAgent(tx, agent.id),
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
 * The owner left the organization: each of their agents there whose sponsor team has no member left (or that has
 * none) is suspended — stopped as above, with the reason `owner_left`; the organization's owners and admins are told
 * by mail (the ticker, tellAboutSuspendedAgents). An agent a sponsor team still answers for keeps running.
 * Returns the agents suspended.
 */
export async function suspendAgentsOfLeavingOwner(tx: Queryable, orgId: string, ownerUserId: string): Promise<Agent[]> {
  const owned = await tx
    .select()
    .from(agents)
    .where(and(eq(agents.orgId, orgId), eq(agents.ownerUserId, ownerUserId), isNull(agents.disabledAt)));
  const suspended: Agent[] = [];
  for (const agent of owned) {
    if (agent.sponsorTeamId) {
      const [sponsor] = await tx
        .select({ userId: teamMembers.userId })
        .from(teamMembers)
        .innerJoin(memberships, and(eq(memberships.userId, teamMembers.userId), eq(memberships.orgId, orgId)))
        .where(and(eq(teamMembers.teamId, agent.sponsorTeamId), sql`${teamMembers.userId} <> ${ownerUserId}`))
        .limit(1);
      if (sponsor) continue;
    }
    const stopped = await stopAgent(tx, agent, 'owner_left');
    await recordAuditEvent(tx, {
      orgId,
      actor: { type: 'system', label: 'Portico' },
      action: 'agent.suspended',
      subject: { type: 'agent', id: agent.id, label: agent.name },
      details: { reason: 'owner_left', ownerUserId, sponsorTeamId: agent.sponsorTeamId, ...stopped },
    });
    suspended.push(agent);
  }
  return suspended;
}

/** Disables (stopAgent, as a person's decision) or enables the agent. */
export async function setAgentDisabled(tx: Queryable, agentId: string, disabled: boolean): Promise<AgentStopped | undefined> {
  if (!disabled) {
    await restartAgent(tx, agentId);
    return undefined;
  }
  return stopAgent(tx, { id: agentId }, 'disabled');
}
