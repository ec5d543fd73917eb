// Agents of an organization and who may use them. An agent has no credential: it acts only through a person's
// consent (delegated, as the token's `act`) or, later, through connections configured by people.
import { randomBytes } from 'node:crypto';
import { and, asc, eq, exists, isNull, or } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { agents, agentUsers, memberships } from '../db/schema';

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
  if (!/^agt_[A-Za-z0-9_-]{16,64}$/.test(agentId)) return undefined;
  const usable = await listUsableAgents(db, orgId, userId);
  return usable.find((agent) => agent.id === agentId);
}
