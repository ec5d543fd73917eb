// Who decides an app's approval requests: the people its owners designated (app_operators), or — while nobody is
// designated — the organization's owners. The rule (mayDecide) and the designation live together here.
import { and, eq, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { appOperators, memberships, users } from '../db/schema';

/** A refusal to designate someone who is not a member (shown to the owner as is). */
export class OperatorRefusal extends Error {}

/**
 * Whether this person may decide (and revoke) for the app: one of the people the organization designated for it
 * who is still a member, or, for an app with no such operator, an owner of the organization (the default).
 */
export function mayDecide(appId: AnyColumn, orgId: AnyColumn, userId: string): SQL {
  const designated = sql`select 1 from ${appOperators} o join ${memberships} om on om.org_id = o.org_id and om.user_id = o.user_id where o.app_id = ${appId}`;
  return sql`(
    exists (${designated} and o.user_id = ${userId})
    or (not exists (${designated})
        and exists (select 1 from ${memberships} m where m.org_id = ${orgId} and m.user_id = ${userId} and m.role = 'owner')))`;
}

/** The people designated to decide an app's requests (empty: the organization's owners decide). */
export async function listAppOperators(db: Queryable, appId: string): Promise<{ userId: string; email: string; name: string }[]> {
  return db
    .select({ userId: appOperators.userId, email: users.email, name: users.name })
    .from(appOperators)
    .innerJoin(users, eq(users.id, appOperators.userId))
    .innerJoin(memberships, and(eq(memberships.orgId, appOperators.orgId), eq(memberships.userId, appOperators.userId)))
    .where(eq(appOperators.appId, appId))
    .orderBy(users.email);
}

/** Designates a member of the app's organization as one of its operators; false when they already are. */
export async function designateAppOperator(db: Queryable, input: { orgId: string; appId: string; userId: string }): Promise<boolean> {
  const [member] = await db.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.orgId, input.orgId), eq(memberships.userId, input.userId)));
  if (!member) throw new OperatorRefusal('only a member of the organization can be an operator');
  const inserted = await db.insert(appOperators).values(input).onConflictDoNothing().returning({ userId: appOperators.userId });
  return inserted.length === 1;
}

export async function removeAppOperator(db: Queryable, appId: string, userId: string): Promise<boolean> {
  const removed = await db.delete(appOperators).where(and(eq(appOperators.appId, appId), eq(appOperators.userId, userId))).returning({ userId: appOperators.userId });
  return removed.length === 1;
}
