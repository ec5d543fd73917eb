// Who decides an app's approval requests: by default the people its owners designated (app_operators), or — while
// nobody is designated — the organization's owners (mayDecide); for a kind of request an approval policy governs
// (lib/approvals/policies.ts), the deciders it names (mayDecideKind). The rules and the designation live here.
import { and, eq, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { appOperators, approvalPolicies, memberships, teamMembers, teams, users } from '../db/schema';

/** A refusal to designate someone who is not a member (shown to the owner as is). */
export class OperatorRefusal extends Error {}

/**
 * Whether this person may decide (and revoke) for the app: one of the people the organization designated for it
 * who is still a member, or, for an app with no such operator, an owner of the organization (the default).
 */
export function mayDecide(appId: AnyColumn | SQL, orgId: AnyColumn | SQL, userId: string | AnyColumn | SQL): SQL {
  const designated = sql`select 1 from ${appOperators} o join ${memberships} om on om.org_id = o.org_id and om.user_id = o.user_id where o.app_id = ${appId}`;
  return sql`(
    exists (${designated} and o.user_id = ${userId})
    or (not exists (${designated})
        and exists (select 1 from ${memberships} m where m.org_id = ${orgId} and m.user_id = ${userId} and m.role = 'owner')))`;
}

/**
 * Whether this person may decide a request of this kind (and revoke what it granted): the deciders of the policy that
 * governs the kind for the app (the app's own policy, else the organization's), each still a member; with no policy,
 * the default rule (mayDecide). A policy naming a team that was removed leaves nobody: only the CLI decides then.
 */
export function mayDecideKind(appId: AnyColumn | SQL, orgId: AnyColumn | SQL, policyKind: AnyColumn | SQL, userId: string | AnyColumn | SQL): SQL {
  const member = sql`exists (select 1 from ${memberships} pm where pm.org_id = ${orgId} and pm.user_id = ${userId})`;
  const byPolicy = sql`(select case p.deciders
      when 'operators' then ${mayDecide(appId, orgId, userId)}
      when 'owners' then exists (select 1 from ${memberships} po where po.org_id = ${orgId} and po.user_id = ${userId} and po.role = 'owner')
      when 'team' then ${member} and exists (select 1 from ${teamMembers} tm join ${teams} t on t.id = tm.team_id where tm.team_id = p.team_id and tm.user_id = ${userId} and t.org_id = ${orgId})
      when 'people' then ${member} and ${userId}::uuid = any (p.user_ids)
      else false end
    from ${approvalPolicies} p
    where p.org_id = ${orgId} and p.kind = ${policyKind} and (p.app_id = ${appId} or p.app_id is null)
    order by p.app_id nulls last limit 1)`;
  return sql`coalesce(${byPolicy}, ${mayDecide(appId, orgId, userId)})`;
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
