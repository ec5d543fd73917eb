// Invitations: the only way into an organization. An admin names an email, a role and teams; Portico mails a
// single-use link; membership begins when the invitee accepts, with an account they create (their own password)
// or the one they already have (its password, unchanged). The admin's side never depends on whether the email
// has an account, and never holds a credential. Tokens are 256-bit random; only their SHA-256 is stored, and
// resending replaces it, so an earlier link stops working.
import { randomBytes } from 'node:crypto';
import { and, desc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { invitations, memberships, organizations, teams, users } from '../db/schema';
import { localized } from '../i18n/catalogs';
import { hitRateLimit, type RateLimitRule } from '../rate-limit/fixed-window';
import { hashLinkToken, isLinkToken } from '../accounts/account-links';
import { markEmailVerified } from '../accounts/credentials';
import { addTeamMember } from './teams';
import { normalizeEmail, type User } from '../accounts/users';
import type { MembershipRole, Organization } from './organizations';
import { invitationRefusal } from './refusal-codes';

export type Invitation = typeof invitations.$inferSelect;

/** Invitations (new or resent) one organization may mail per hour: a compromised admin cannot turn Portico into a spam relay. */
export const INVITATIONS_PER_ORG_PER_HOUR: RateLimitRule = { name: 'invite:org', limit: 200, windowSeconds: 3600 };

async function countInvitationMail(db: Queryable, orgId: string): Promise<void> {
  if ((await hitRateLimit(db, INVITATIONS_PER_ORG_PER_HOUR, orgId)).limited) {
    throw invitationRefusal(localized('invite.refusals.tooManyInvitations'));
  }
}

export function invitationUrl(issuer: string, token: string): string {
  return `${issuer}/invite/${token}`;
}

function newToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashLinkToken(token) };
}

async function teamsOfOrganization(db: Queryable, orgId: string, teamIds: readonly string[]): Promise<string[]> {
  if (teamIds.length === 0) return [];
  const rows = await db
    .select({ id: teams.id })
    .from(teams)
    .where(and(eq(teams.orgId, orgId), inArray(teams.id, [...teamIds])));
  return rows.map((row) => row.id);
}

export interface InviteInput {
  orgId: string;
  email: string;
  role: MembershipRole;
  teamIds: readonly string[];
  invitedBy: string | null;
  ttlDays: number;
}

/**
 * Invites the email, or — when an open invitation for it exists — renews that one (new link, new expiry, the role
 * and teams given now). Returns the token to mail; it is never stored or shown.
 */
export async function inviteToOrganization(db: Queryable, input: InviteInput): Promise<{ invitation: Invitation; token: string; renewed: boolean }> {
  const email = normalizeEmail(input.email);
  const teamIds = await teamsOfOrganization(db, input.orgId, input.teamIds);
  if (teamIds.length !== new Set(input.teamIds).size) throw invitationRefusal(localized('invite.refusals.unknownTeam'));
  // Telling an admin that someone is already a member reveals nothing they cannot see on the members page.
  const [member] = await db
    .select({ userId: memberships.userId })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.orgId, input.orgId), eq(users.email, email)))
    .limit(1);
  if (member) throw invitationRefusal(localized('invite.refusals.alreadyMember', { email }));
  await countInvitationMail(db, input.orgId);

  const { token, tokenHash } = newToken();
  const expiresAt = sql`now() + make_interval(days => ${input.ttlDays})`;
  const [open] = await db
    .select({ id: invitations.id })
    .from(invitations)
    .where(and(eq(invitations.orgId, input.orgId), eq(invitations.email, email), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .for('update')
    .limit(1);
  if (open) {
    const [renewed] = await db
      .update(invitations)
      .set({ tokenHash, role: input.role, teamIds, expiresAt, lastSentAt: sql`now()`, invitedBy: input.invitedBy })
      .where(eq(invitations.id, open.id))
      .returning();
    return { invitation: renewed!, token, renewed: true };
  }
  const [created] = await db
    .insert(invitations)
    .values({ orgId: input.orgId, email, role: input.role, teamIds, tokenHash, invitedBy: input.invitedBy, expiresAt })
    .returning();
  if (!created) throw new Error('invitation insert returned nothing');
  return { invitation: created, token, renewed: false };
}

/** A new link for an open invitation (the previous one stops working) and a fresh expiry. */
export async function resendInvitation(db: Queryable, orgId: string, invitationId: string, ttlDays: number): Promise<{ invitation: Invitation; token: string } | undefined> {
  await countInvitationMail(db, orgId);
  const { token, tokenHash } = newToken();
  const [invitation] = await db
    .update(invitations)
    .set({ tokenHash, expiresAt: sql`now() + make_interval(days => ${ttlDays})`, lastSentAt: sql`now()` })
    .where(and(eq(invitations.id, invitationId), eq(invitations.orgId, orgId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .returning();
  return invitation ? { invitation, token } : undefined;
}

export async function revokeInvitation(db: Queryable, orgId: string, invitationId: string): Promise<Invitation | undefined> {
  const [invitation] = await db
    .update(invitations)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(invitations.id, invitationId), eq(invitations.orgId, orgId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .returning();
  return invitation;
}

export interface OpenInvitationListing {
  id: string;
  email: string;
  role: MembershipRole;
  teamIds: string[];
  lastSentAt: Date;
  expiresAt: Date;
  expired: boolean;
}

/** Invitations not yet accepted nor revoked (expired ones too: they can be resent). */
export async function listOpenInvitations(db: Queryable, orgId: string): Promise<OpenInvitationListing[]> {
  const rows = await db
    .select({
      id: invitations.id,
      email: invitations.email,
      role: invitations.role,
      teamIds: invitations.teamIds,
      lastSentAt: invitations.lastSentAt,
      expiresAt: invitations.expiresAt,
      expired: sql<boolean>`${invitations.expiresAt} <= now()`,
    })
    .from(invitations)
    .where(and(eq(invitations.orgId, orgId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .orderBy(desc(invitations.lastSentAt));
  return rows.map((row) => ({ ...row, expired: Boolean(row.expired) }));
}

export interface InvitationView {
  invitation: Invitation;
  organization: Organization;
  /** The account that has the invited email, if any. Shown only to the link's holder, who proved the mailbox. */
  account?: User;
}

/** The invitation a link names while it can be accepted. Reading it accepts nothing (mail scanners open links). */
export async function findOpenInvitation(db: Queryable, token: unknown): Promise<InvitationView | undefined> {
  if (!isLinkToken(token)) return undefined;
  const [row] = await db
    .select({ invitation: invitations, organization: organizations })
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.orgId))
    .where(and(eq(invitations.tokenHash, hashLinkToken(token)), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, sql`now()`)))
    .limit(1);
  if (!row) return undefined;
  const [account] = await db.select().from(users).where(eq(users.email, row.invitation.email)).limit(1);
  return { ...row, account };
}

/**
 * Accepts the invitation for the account that has its email: spends the link (one conditional UPDATE: of two
 * concurrent acceptances one wins), starts the membership with the invited role (an existing membership keeps its
 * role), joins the teams that still exist, and marks the email verified. Call inside the transaction that also
 * created the account, if it did.
 */
export async function acceptInvitation(db: Queryable, token: unknown, account: Pick<User, 'id' | 'email'>): Promise<Invitation | undefined> {
  if (!isLinkToken(token)) return undefined;
  const [accepted] = await db
    .update(invitations)
    .set({ acceptedAt: sql`now()`, acceptedBy: account.id })
    .where(
      and(
        eq(invitations.tokenHash, hashLinkToken(token)),
        eq(invitations.email, account.email),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, sql`now()`),
      ),
    )
    .returning();
  if (!accepted) return undefined;
  await db.insert(memberships).values({ orgId: accepted.orgId, userId: account.id, role: accepted.role }).onConflictDoNothing();
  for (const teamId of await teamsOfOrganization(db, accepted.orgId, accepted.teamIds)) await addTeamMember(db, teamId, account.id);
  await markEmailVerified(db, account.id, accepted.email);
  return accepted;
}
