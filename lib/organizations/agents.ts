// Agents of an organization and who may use them. An agent acts through a person's consent (delegated, as the
// token's `act`), through connections configured by people, or as a workload with a key credential or a trust rule
// (lib/organizations/agent-keys.ts, workload-trust.ts): never with a secret of its own.
import { isAgentId } from '../util/agent-id';
import { randomBytes } from 'node:crypto';
import { and, asc, eq, exists, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { agentConnections, agentGrants, agentKeys, agents, agentUsers, apps, memberships, users, workloadTrustRules } from '../db/schema';
import { endGrants, grantsOfAgent } from '../grants';
import { isUuid } from '../util/uuid';

export type Agent = typeof agents.$inferSelect;

export function newAgentId(): string {
  return `agt_${randomBytes(16).toString('base64url')}`;
}

export async function createAgent(db: Queryable, input: { orgId: string; name: string; ownerUserId: string; id?: string }): Promise<Agent> {
  const [agent] = await db
    .insert(agents)
    .values({ id: input.id ?? newAgentId(), orgId: input.orgId, name: input.name, ownerUserId: input.ownerUserId })
    .returning();
  if (!agent) throw new Error('agent insert returned nothing');
  return agent;
}

/** Lets another person of the organization use the agent. */
export async function allowAgentUser(db: Queryable, agentId: string, userId: string): Promise<void> {
  await db.insert(agentUsers).values({ agentId, userId }).onConflictDoNothing();
}

/**
 * The agents a person may name as who acts in the organization: enabled, of that organization, owned by the person
 * or shared with them, and only while the person is a member there.
 */
export async function listUsableAgents(db: Queryable, orgId: string, userId: string): Promise<Agent[]> {
  const member = db
    .select({ one: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)));
  const shared = db
    .select({ one: agentUsers.agentId })
    .from(agentUsers)
    .where(and(eq(agentUsers.agentId, agents.id), eq(agentUsers.userId, userId)));
  return db
    .select()
    .from(agents)
    .where(and(eq(agents.orgId, orgId), isNull(agents.disabledAt), exists(member), or(eq(agents.ownerUserId, userId), exists(shared))))
    .orderBy(asc(agents.name), asc(agents.id));
}

/** The agent, when the person may name it in the organization; undefined otherwise (whatever the reason). */
export async function findUsableAgent(db: Queryable, orgId: string, userId: string, agentId: string): Promise<Agent | undefined> {
  if (!isAgentId(agentId)) return undefined;
  const usable = await listUsableAgents(db, orgId, userId);
  return usable.find((agent) => agent.id === agentId);
}

export async function findOrgAgent(db: Queryable, orgId: string, agentId: string): Promise<Agent | undefined> {
  if (!isAgentId(agentId)) return undefined;
  const [agent] = await db.select().from(agents).where(and(eq(agents.id, agentId), eq(agents.orgId, orgId))).limit(1);
  return agent;
}

export async function renameAgent(db: Queryable, agentId: string, name: string): Promise<void> {
  await db.update(agents).set({ name }).where(eq(agents.id, agentId));
}

/**
 * Disabling (or deleting, or moving) an agent ends every grant that names it, with its refresh tokens: access is
 * gone at the agent's next request to Portico, and no new token is issued for it.
 */
export async function endAgentGrants(db: Queryable, agentId: string, onlyForUserId?: string): Promise<number> {
  return (await endGrants(db, await grantsOfAgent(db, agentId, onlyForUserId), 'access_revoked')).grants;
}

export async function deleteAgent(db: Queryable, agentId: string): Promise<void> {
  await endAgentGrants(db, agentId);
  await db.delete(agents).where(eq(agents.id, agentId));
}

/**
 * Moves the agent to another organization, under a new owner there. Everything it held in the old organization
 * goes first — grants, connections, the people who could use it, live grants naming it — because the composite
 * keys forbid an agent to keep anything across organizations.
 */
export async function moveAgent(db: Queryable, agentId: string, targetOrgId: string, newOwnerUserId: string): Promise<void> {
  await endAgentGrants(db, agentId);
  // Its credentials and trust rules were the old organization's decisions: they do not travel.
  await db.delete(agentKeys).where(eq(agentKeys.agentId, agentId));
  await db.delete(workloadTrustRules).where(eq(workloadTrustRules.agentId, agentId));
  await db.update(agents).set({ jwksUri: null, sponsorTeamId: null }).where(eq(agents.id, agentId));
  await db.delete(agentConnections).where(eq(agentConnections.agentId, agentId));
  await db.delete(agentGrants).where(eq(agentGrants.agentId, agentId));
  await db.delete(agentUsers).where(eq(agentUsers.agentId, agentId));
  await db.update(agents).set({ orgId: targetOrgId, ownerUserId: newOwnerUserId }).where(eq(agents.id, agentId));
}

export async function disallowAgentUser(db: Queryable, agentId: string, userId: string): Promise<void> {
  await db.delete(agentUsers).where(and(eq(agentUsers.agentId, agentId), eq(agentUsers.userId, userId)));
  // The person's consents that named this agent end too (their clients' refresh tokens with them).
  await endAgentGrants(db, agentId, userId);
  // Delegations to that person through this agent end with the permission to use it.
  await db.delete(agentConnections).where(and(eq(agentConnections.agentId, agentId), eq(agentConnections.delegateUserId, userId)));
}

export async function grantAgentScope(db: Queryable, input: { agentId: string; orgId: string; appId: string; scope: string }): Promise<void> {
  await db.insert(agentGrants).values(input).onConflictDoNothing();
}

export async function revokeAgentScope(db: Queryable, input: { agentId: string; appId: string; scope: string }): Promise<void> {
  await db.delete(agentGrants).where(and(eq(agentGrants.agentId, input.agentId), eq(agentGrants.appId, input.appId), eq(agentGrants.scope, input.scope)));
}

/** What the agent itself may do on the app: its direct grants, and nothing else. */
export async function agentScopesOn(db: Queryable, agentId: string, appId: string): Promise<string[]> {
  const rows = await db.select({ scope: agentGrants.scope }).from(agentGrants).where(and(eq(agentGrants.agentId, agentId), eq(agentGrants.appId, appId)));
  return rows.map((row) => row.scope).sort();
}

/**
 * A connection's mode, as a type: own mode has no person, delegated mode has exactly one. There is no third shape
 * and no default, so a mode can never be inferred from a missing field.
 */
export type ConnectionMode =
  | { mode: 'own' }
  /** `narrowedTo`: the subset of the person's permissions the connection may use; absent or null for all of them. */
  | { mode: 'delegated'; delegateUserId: string; narrowedTo?: readonly string[] | null };

export type AgentConnection = typeof agentConnections.$inferSelect;

export async function createConnection(
  db: Queryable,
  input: { agentId: string; orgId: string; appId: string; createdByUserId: string | null; connection: ConnectionMode },
): Promise<AgentConnection> {
  const [created] = await db
    .insert(agentConnections)
    .values({
      agentId: input.agentId,
      orgId: input.orgId,
      appId: input.appId,
      mode: input.connection.mode,
      delegateUserId: input.connection.mode === 'delegated' ? input.connection.delegateUserId : null,
      narrowedTo: input.connection.mode === 'delegated' && input.connection.narrowedTo ? [...new Set(input.connection.narrowedTo)].sort() : null,
      createdByUserId: input.createdByUserId,
    })
    .returning();
  if (!created) throw new Error('connection insert returned nothing');
  return created;
}

export async function deleteConnection(db: Queryable, agentId: string, connectionId: string): Promise<boolean> {
  if (!isUuid(connectionId)) return false;
  const removed = await db
    .delete(agentConnections)
    .where(and(eq(agentConnections.id, connectionId), eq(agentConnections.agentId, agentId)))
    .returning({ id: agentConnections.id });
  return removed.length === 1;
}

export interface AgentListing {
  agent: Agent;
  ownerEmail: string;
  users: { userId: string; email: string }[];
  grants: { appId: string; appName: string; scope: string }[];
  connections: { id: string; appId: string; appName: string; mode: 'own' | 'delegated'; delegateEmail: string | null }[];
}

export async function listAgents(db: Queryable, orgId: string): Promise<AgentListing[]> {
  const rows = await db
    .select({ agent: agents, ownerEmail: users.email })
    .from(agents)
    .innerJoin(users, eq(users.id, agents.ownerUserId))
    .where(eq(agents.orgId, orgId))
    .orderBy(asc(agents.name), asc(agents.id));
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.agent.id);
  const [userRows, grantRows, connectionRows] = await Promise.all([
    db.select({ agentId: agentUsers.agentId, userId: users.id, email: users.email }).from(agentUsers).innerJoin(users, eq(users.id, agentUsers.userId)).where(inArray(agentUsers.agentId, ids)).orderBy(users.email),
    db.select({ agentId: agentGrants.agentId, appId: apps.id, appName: apps.name, scope: agentGrants.scope }).from(agentGrants).innerJoin(apps, eq(apps.id, agentGrants.appId)).where(inArray(agentGrants.agentId, ids)).orderBy(apps.name, agentGrants.scope),
    db
      .select({ agentId: agentConnections.agentId, id: agentConnections.id, appId: apps.id, appName: apps.name, mode: agentConnections.mode, delegateEmail: users.email })
      .from(agentConnections)
      .innerJoin(apps, eq(apps.id, agentConnections.appId))
      .leftJoin(users, eq(users.id, agentConnections.delegateUserId))
      .where(inArray(agentConnections.agentId, ids))
      .orderBy(apps.name),
  ]);
  return rows.map(({ agent, ownerEmail }) => ({
    agent,
    ownerEmail,
    users: userRows.filter((row) => row.agentId === agent.id).map(({ userId, email }) => ({ userId, email })),
    grants: grantRows.filter((row) => row.agentId === agent.id).map(({ appId, appName, scope }) => ({ appId, appName, scope })),
    connections: connectionRows.filter((row) => row.agentId === agent.id).map(({ id, appId, appName, mode, delegateEmail }) => ({ id, appId, appName, mode, delegateEmail })),
  }));
}

/**
 * The agent a person has connected to an app in delegated mode for themselves, if any: the consent screen opens
 * with it pre-selected (the person still confirms) when it is among the agents the person may use.
 */
export async function delegatedAgentFor(db: Queryable, appId: string, userId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ agentId: agentConnections.agentId })
    .from(agentConnections)
    .where(and(eq(agentConnections.appId, appId), eq(agentConnections.mode, 'delegated'), eq(agentConnections.delegateUserId, userId)))
    .limit(1);
  return row?.agentId;
}

/** Notes that the agent got a token now, to the minute (the console's "last use"): at most one write a minute. */
export async function noteAgentUse(db: Queryable, agentId: string): Promise<void> {
  await db.update(agents).set({ lastUsedAt: sql`now()` }).where(and(eq(agents.id, agentId), sql`(${agents.lastUsedAt} is null or ${agents.lastUsedAt} < now() - interval '1 minute')`));
}
