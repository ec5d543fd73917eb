// Who belongs to which organization. Leaving an organization closes its apps to the person at once.
import { and, count, eq, gt, ilike, inArray, isNull, or, sql } from 'drizzle-orm';
import { preparedQuery, readCacheOf, type Database, type Queryable, type Transaction } from '../db/client';
import { agents, agentUsers, appOperators, memberships, organizations, personGrants, teamMembers, teams, users } from '../db/schema';
import { endPersonGrantsInOrganization } from '../grants';
import type { MembershipRole } from './organizations';
import type { User } from '../accounts/users';
import { isUuid } from '../util/uuid';

/**
 * The person a token names, for oidc-provider's findAccount, in one statement: the user, and whether they are a
 * member of `orgId` (when the request belongs to an organization). Undefined for an unknown id. Read through the
 * per-process read cache (lib/db/read-cache.ts): any change to the person or to their memberships, on any
 * instance, drops it.
 */
export async function findAccountInOrganization(db: Queryable, userId: string, orgId: string | undefined): Promise<AccountInOrganization | undefined> {
  // Ids come from tokens and cookies; anything that is not a UUID cannot name a user.
  if (!isUuid(userId)) return undefined;
  const cache = readCacheOf(db);
  const read = () => readAccountInOrganization(db, userId, orgId);
  return cache ? cache.read(`account:${userId}:${orgId ?? ''}`, read, () => [`users:${userId}`]) : read();
}

/** What a token's person needs checked and claimed: no secret (the password hash) is read or kept. */
export interface AccountInOrganization {
  user: Pick<User, 'id' | 'email' | 'name' | 'givenName' | 'familyName' | 'emailVerifiedAt' | 'disabledAt'>;
  member: boolean;
}

async function readAccountInOrganization(db: Queryable, userId: string, orgId: string | undefined): Promise<AccountInOrganization | undefined> {
  const [row] = await db
    .select({
      user: { id: users.id, email: users.email, name: users.name, givenName: users.givenName, familyName: users.familyName, emailVerifiedAt: users.emailVerifiedAt, disabledAt: users.disabledAt },
      member: orgId ? sql<boolean>`exists (select 1 from ${memberships} where ${memberships.orgId} = ${orgId} and ${memberships.userId} = ${users.id})` : sql<boolean>`true`,
    })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  return row ? { user: row.user, member: row.member === true || (row.member as unknown) === 't' } : undefined;
}

/** True when the person is a member of the organization and not disabled. */
export async function isActiveMember(db: Queryable, orgId: string, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ userId: memberships.userId })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId), isNull(users.disabledAt)))
    .limit(1);
  return row !== undefined;
}

export async function findMembershipRole(db: Queryable, orgId: string, userId: string): Promise<MembershipRole | undefined> {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)))
    .limit(1);
  return row?.role;
}

/**
 * Removes the membership and, in the same transaction, the person's grants and refresh tokens at the
 * organization's apps: no new login, no refresh. Access tokens already issued live on until they expire.
 */
export async function removeMember(
  db: Database | Transaction,
  orgId: string,
  userId: string,
): Promise<{ removed: boolean; grantsRevoked: number; teamsLeft: number; agentsLeft: number }> {
  return db.transaction(async (tx) => {
    const removed = await tx
      .delete(memberships)
      .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)))
      .returning({ userId: memberships.userId });
    const grantsRevoked = await endPersonGrantsInOrganization(tx, orgId, userId);
    // A person who leaves is no longer an operator of any of its apps (not even if they come back).
    await tx.delete(appOperators).where(and(eq(appOperators.orgId, orgId), eq(appOperators.userId, userId)));
    // Nor in its teams, nor among the users of its agents: leaving leaves nothing behind that a later re-invitation
    // would bring back unasked.
    const teamsLeft = await tx
      .delete(teamMembers)
      .where(and(eq(teamMembers.userId, userId), inArray(teamMembers.teamId, tx.select({ id: teams.id }).from(teams).where(eq(teams.orgId, orgId)))))
      .returning({ teamId: teamMembers.teamId });
    const agentsLeft = await tx
      .delete(agentUsers)
      .where(and(eq(agentUsers.userId, userId), inArray(agentUsers.agentId, tx.select({ id: agents.id }).from(agents).where(eq(agents.orgId, orgId)))))
      .returning({ agentId: agentUsers.agentId });
    // Direct permissions on the organization's apps go too.
    await tx.delete(personGrants).where(and(eq(personGrants.userId, userId), eq(personGrants.orgId, orgId)));
    return { removed: removed.length > 0, grantsRevoked, teamsLeft: teamsLeft.length, agentsLeft: agentsLeft.length };
  });
}

export async function addMember(db: Queryable, input: { orgId: string; userId: string; role: MembershipRole }): Promise<void> {
  await db.insert(memberships).values(input).onConflictDoUpdate({ target: [memberships.orgId, memberships.userId], set: { role: input.role } });
}

export interface OrganizationMembership {
  orgId: string;
  slug: string;
  name: string;
  role: MembershipRole;
}

/** The organizations a person belongs to, with their role in each. */
export async function listMembershipsOf(db: Queryable, userId: string): Promise<OrganizationMembership[]> {
  // Built once per database handle: MCP's whoami runs it on every call.
  const query = preparedQuery(db, 'memberships.of', () =>
    db
      .select({ orgId: organizations.id, slug: organizations.slug, name: organizations.name, role: memberships.role })
      .from(memberships)
      .innerJoin(organizations, eq(organizations.id, memberships.orgId))
      .where(eq(memberships.userId, sql.placeholder('userId')))
      .orderBy(organizations.name)
      .prepare('memberships_of'),
  );
  return query.execute({ userId });
}

export interface MemberListing {
  userId: string;
  email: string;
  name: string;
  role: MembershipRole;
  disabled: boolean;
  since: Date;
}

export async function listMembers(db: Queryable, orgId: string): Promise<MemberListing[]> {
  const rows = await db
    .select({ userId: users.id, email: users.email, name: users.name, role: memberships.role, disabledAt: users.disabledAt, since: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.orgId, orgId))
    .orderBy(users.email);
  return rows.map(({ disabledAt, ...row }) => ({ ...row, disabled: disabledAt !== null }));
}

/** A page of the members list, in email order, and where the next one starts. */
export interface MemberPage {
  members: MemberListing[];
  /** The email the next page starts after; none on the last page. */
  nextAfter?: string;
  /** Members in all (those the search finds, when there is one). */
  total: number;
}

export const MEMBERS_PAGE_SIZE = 100;

/**
 * One page of an organization's members, by email (keyset: `after` is the last email of the page before), with an
 * optional search in emails and names. An organization of fifty thousand people is listed a hundred at a time, never
 * whole: the page walks the (org_id, email) index of memberships (the email is the person's, kept there by the
 * database) and stops after its hundred; the total without a search counts the organization's keys, never its
 * people. A search reads the organization's members until the page is full (docs/benchmarks.md).
 */
export async function listMembersPage(db: Queryable, orgId: string, options: { after?: string; search?: string; limit?: number } = {}): Promise<MemberPage> {
  const limit = options.limit ?? MEMBERS_PAGE_SIZE;
  const search = options.search?.trim().slice(0, 200);
  // ILIKE's own wildcards in what was typed are literal characters.
  const pattern = search ? `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%` : undefined;
  const found = pattern ? or(ilike(memberships.email, pattern), ilike(users.name, pattern)) : undefined;
  const [rows, counted] = await Promise.all([
    db
      .select({ userId: users.id, email: memberships.email, name: users.name, role: memberships.role, disabledAt: users.disabledAt, since: memberships.createdAt })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.orgId, orgId), options.after ? gt(memberships.email, options.after) : undefined, found))
      .orderBy(memberships.email)
      .limit(limit + 1),
    found
      ? db
          .select({ total: count() })
          .from(memberships)
          .innerJoin(users, eq(users.id, memberships.userId))
          .where(and(eq(memberships.orgId, orgId), found))
      : db.select({ total: count() }).from(memberships).where(eq(memberships.orgId, orgId)),
  ]);
  const members = rows.slice(0, limit).map(({ disabledAt, ...row }) => ({ ...row, disabled: disabledAt !== null }));
  return { members, total: counted[0]?.total ?? 0, ...(rows.length > limit ? { nextAfter: members.at(-1)!.email } : {}) };
}

export async function countOwners(db: Queryable, orgId: string): Promise<number> {
  const rows = await db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), eq(memberships.role, 'owner')));
  return rows.length;
}

/** Serializes membership changes of one organization (e.g. two owners demoting each other at once). */
export async function lockOrganization(db: Queryable, orgId: string): Promise<void> {
  await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId)).for('update');
}
