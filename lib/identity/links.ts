// The links between a Portico account and a company identity provider's subject (external_identities): what the
// person sees and ends on their account page, what an organization's owners see and end for their members, and what
// a password reset by mail ends. A link is how a federated sign-in finds an account (lib/identity/federation/core.ts), so
// ending one means the next sign-in through that connection must prove the account again.
import { and, desc, eq, inArray } from 'drizzle-orm';
import { recordAuditEvent, type AuditRecord } from '../audit/events';
import type { Queryable } from '../db/client';
import { externalIdentities, identityConnections, organizations, users } from '../db/schema';

export type LinkedBy = (typeof externalIdentities.$inferSelect)['linkedBy'];

export interface LinkedIdentity {
  id: string;
  userId: string;
  email: string;
  connectionId: string;
  connectionName: string;
  orgId: string;
  orgName: string;
  orgSlug: string;
  subject: string;
  linkedBy: LinkedBy;
  createdAt: Date;
  lastSignInAt: Date | null;
}

function selectLinks(db: Queryable) {
  return db
    .select({
      id: externalIdentities.id,
      userId: externalIdentities.userId,
      email: users.email,
      connectionId: externalIdentities.connectionId,
      connectionName: identityConnections.name,
      orgId: identityConnections.orgId,
      orgName: organizations.name,
      orgSlug: organizations.slug,
      subject: externalIdentities.subject,
      linkedBy: externalIdentities.linkedBy,
      createdAt: externalIdentities.createdAt,
      lastSignInAt: externalIdentities.lastSignInAt,
    })
    .from(externalIdentities)
    .innerJoin(identityConnections, eq(identityConnections.id, externalIdentities.connectionId))
    .innerJoin(organizations, eq(organizations.id, identityConnections.orgId))
    .innerJoin(users, eq(users.id, externalIdentities.userId));
}

/** A person's own links, newest first (their account page). */
export function linkedIdentitiesOf(db: Queryable, userId: string): Promise<LinkedIdentity[]> {
  return selectLinks(db).where(eq(externalIdentities.userId, userId)).orderBy(desc(externalIdentities.createdAt));
}

/** The links made through an organization's connections (its owners' view), at most `limit`, newest first. */
export function linkedIdentitiesThroughOrg(db: Queryable, orgId: string, limit = 200): Promise<LinkedIdentity[]> {
  return selectLinks(db).where(eq(identityConnections.orgId, orgId)).orderBy(desc(externalIdentities.createdAt)).limit(limit);
}

/**
 * Ends one link. `scope`: the person's own (their user id) or an organization's (an owner ending a member's link
 * through one of its connections). Audited in the connection's organization; false when there is no such link.
 */
export async function endLinkedIdentity(
  tx: Queryable,
  scope: { userId: string } | { orgId: string },
  linkId: string,
  /** The person's own door records its event here; an owner's goes through the organization operation's audit. */
  recordedBy: { actor: { id: string; label: string; ip: string } } | { audit: (record: Omit<AuditRecord, 'orgId' | 'actor' | 'act'>) => Promise<void> },
): Promise<LinkedIdentity | undefined> {
  const [link] = await selectLinks(tx)
    .where(and(eq(externalIdentities.id, linkId), 'userId' in scope ? eq(externalIdentities.userId, scope.userId) : eq(identityConnections.orgId, scope.orgId)))
    .limit(1);
  if (!link) return undefined;
  const [ended] = await tx.delete(externalIdentities).where(eq(externalIdentities.id, link.id)).returning({ id: externalIdentities.id });
  if (!ended) return undefined;
  const event = {
    action: 'identity.link_removed',
    subject: { type: 'person', id: link.userId, label: link.email },
    details: { connection: link.connectionName, connectionId: link.connectionId, linkedBy: link.linkedBy, by: 'userId' in scope ? 'person' : 'owner' },
  };
  if ('audit' in recordedBy) await recordedBy.audit(event);
  else await recordAuditEvent(tx, { ...event, orgId: link.orgId, actor: { type: 'person', ...recordedBy.actor } });
  return link;
}

/**
 * A password reset by mail ends every link that was made by proving the password: whoever knew the old password may
 * have linked an identity provider's account of theirs, and the mailbox proved more than the password did. Audited
 * in each connection's organization; returns how many ended (the reset's notice says so).
 */
export async function endPasswordProvenLinks(tx: Queryable, user: { id: string; email: string }, ip: string): Promise<number> {
  const ended = await tx
    .delete(externalIdentities)
    .where(and(eq(externalIdentities.userId, user.id), eq(externalIdentities.linkedBy, 'password')))
    .returning({ connectionId: externalIdentities.connectionId });
  if (ended.length === 0) return 0;
  const connections = await tx
    .select({ id: identityConnections.id, name: identityConnections.name, orgId: identityConnections.orgId })
    .from(identityConnections)
    .where(inArray(identityConnections.id, ended.map((link) => link.connectionId)));
  for (const connection of connections) {
    await recordAuditEvent(tx, {
      orgId: connection.orgId,
      actor: { type: 'person', id: user.id, label: user.email, ip },
      action: 'identity.link_removed',
      subject: { type: 'person', id: user.id, label: user.email },
      details: { connection: connection.name, connectionId: connection.id, linkedBy: 'password', by: 'password_reset' },
    });
  }
  return ended.length;
}
