// Setting a person's password, always by the person: at setup, after a reset, at a forced change, or from the
// account page. Every path ends the sessions and refresh tokens that the old password opened, in the same
// transaction as the change, so no window exists in which the old credential still works somewhere.
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { agents, centralSessions, consoleSessions, memberships, organizations, users } from '../db/schema';
import { endAgentGrants } from '../organizations/agents';
import { endEverythingOfPerson } from '../grants';
import { endGatewayConnections } from '../grants/gateway-connections';
import { queueCredentialChange, queuePersonEvent, SSF_EVENT_TYPES } from '../ssf/events';
import type { User } from './users';

export interface SetPasswordInput {
  user: Pick<User, 'id' | 'email'>;
  passwordHash: string;
  /** The console session that made the change stays open (a change from the account page); every other ends. */
  keepConsoleSessionHash?: string;
  /** The address the person just proved they receive mail at (a link they opened): marks it verified. */
  provenEmail?: string;
}

export async function setOwnPassword(db: Queryable, input: SetPasswordInput): Promise<{ credentialVersion: number }> {
  const verified = input.provenEmail !== undefined && input.provenEmail === input.user.email;
  const [updated] = await db
    .update(users)
    .set({
      passwordHash: input.passwordHash,
      // Console and central sessions record the version they were opened with: older ones stop working at once.
      credentialVersion: sql`${users.credentialVersion} + 1`,
      passwordChangeRequired: false,
      ...(verified ? { emailVerifiedAt: sql`now()` } : {}),
    })
    .where(eq(users.id, input.user.id))
    .returning({ credentialVersion: users.credentialVersion });
  if (!updated) throw new Error('password change for a person who does not exist');
  if (input.keepConsoleSessionHash) {
    await db
      .update(consoleSessions)
      .set({ credentialVersion: updated.credentialVersion })
      .where(and(eq(consoleSessions.userId, input.user.id), eq(consoleSessions.tokenHash, input.keepConsoleSessionHash)));
    await db.delete(consoleSessions).where(and(eq(consoleSessions.userId, input.user.id), sql`${consoleSessions.tokenHash} <> ${input.keepConsoleSessionHash}`));
  } else {
    await db.delete(consoleSessions).where(eq(consoleSessions.userId, input.user.id));
  }
  await db.delete(centralSessions).where(eq(centralSessions.userId, input.user.id));
  // CAEP credential-change to the apps the person uses (before their grants, which say which apps those are, end).
  await queueCredentialChange(db, { userId: input.user.id, credentialType: 'password', changeType: 'update' });
  await endEverythingOfPerson(db, input.user.id);
  return updated;
}

/** Marks the address verified when the person proved it (an invitation or verification link sent there). */
export async function markEmailVerified(db: Queryable, userId: string, provenEmail: string): Promise<boolean> {
  const updated = await db
    .update(users)
    .set({ emailVerifiedAt: sql`now()` })
    .where(and(eq(users.id, userId), eq(users.email, provenEmail)))
    .returning({ id: users.id });
  return updated.length > 0;
}

/**
 * Disables the account (an installation operator's act, `portico users disable`): no sign-in anywhere, every console,
 * central and app session and every grant ends in this transaction, and the apps the person used hear it — RISC
 * account-disabled on their Shared Signals streams, logout tokens for their sessions. False when it was disabled.
 */
export async function disableAccount(db: Queryable, userId: string): Promise<boolean> {
  const changed = await db.update(users).set({ disabledAt: sql`now()` }).where(and(eq(users.id, userId), isNull(users.disabledAt))).returning({ id: users.id });
  if (changed.length === 0) return false;
  await queuePersonEvent(db, userId, SSF_EVENT_TYPES.accountDisabled, { initiating_entity: 'admin' });
  await db.delete(consoleSessions).where(eq(consoleSessions.userId, userId));
  await db.delete(centralSessions).where(eq(centralSessions.userId, userId));
  await endEverythingOfPerson(db, userId, 'account_disabled');
  return true;
}

/** Enables a disabled account again; its sessions and grants stay ended. False when it was not disabled. */
export async function enableAccount(db: Queryable, userId: string): Promise<boolean> {
  const changed = await db.update(users).set({ disabledAt: null }).where(and(eq(users.id, userId), isNotNull(users.disabledAt))).returning({ id: users.id });
  return changed.length > 0;
}

/** Why an account cannot be deleted: the organizations it is the only owner of (they would have no owner left). */
export type AccountDeletion = { deleted: true } | { deleted: false; onlyOwnerOf: string[] };

/**
 * Deletes an account for good (the installation operator's `users delete`). First the apps hear it: RISC
 * account-purged to the streams of the apps the person used, then every session and grant ends with its notices —
 * also those of the agents they own, which go with them. Then the person, their memberships, factors, sessions and
 * agents (foreign keys cascade). The audit trail keeps what happened. Refused while they are an organization's only
 * owner: someone must be made owner first.
 */
export async function deleteAccount(db: Queryable, userId: string): Promise<AccountDeletion> {
  const onlyOwnerOf = await db
    .select({ slug: organizations.slug })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(
      and(
        eq(memberships.userId, userId),
        eq(memberships.role, 'owner'),
        sql`(select count(*) from ${memberships} owners where owners.org_id = ${memberships.orgId} and owners.role = 'owner') = 1`,
      ),
    );
  if (onlyOwnerOf.length > 0) return { deleted: false, onlyOwnerOf: onlyOwnerOf.map((row) => row.slug) };
  await queuePersonEvent(db, userId, SSF_EVENT_TYPES.accountPurged, { initiating_entity: 'admin' });
  // Their own first (the apps hear "account deleted"), then what others still held through their agents.
  await endEverythingOfPerson(db, userId, 'account_deleted');
  // Their accounts at OAuth-protected gateway servers: deleted with them, revoked at those servers.
  await endGatewayConnections(db, { userId });
  for (const agent of await db.select({ id: agents.id }).from(agents).where(eq(agents.ownerUserId, userId))) await endAgentGrants(db, agent.id);
  await db.delete(users).where(eq(users.id, userId));
  return { deleted: true };
}
