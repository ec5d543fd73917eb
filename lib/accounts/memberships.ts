// Who belongs to which organization. Leaving an organization closes its apps to the person at once.
import { and, eq, isNull } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client';
import { memberships, users } from '../db/schema';
import { revokePersonGrantsInOrganization } from '../oidc/grant-revocation';
import type { MembershipRole } from './organizations';

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
export async function removeMember(db: Database, orgId: string, userId: string): Promise<{ removed: boolean; grantsRevoked: number }> {
  return db.transaction(async (tx) => {
    const removed = await tx
      .delete(memberships)
      .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)))
      .returning({ userId: memberships.userId });
    const grantsRevoked = await revokePersonGrantsInOrganization(tx, orgId, userId);
    return { removed: removed.length > 0, grantsRevoked };
  });
}

export async function addMember(db: Queryable, input: { orgId: string; userId: string; role: MembershipRole }): Promise<void> {
  await db.insert(memberships).values(input).onConflictDoUpdate({ target: [memberships.orgId, memberships.userId], set: { role: input.role } });
}
