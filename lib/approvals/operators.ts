// Who decides an app's approval requests: by default the people its owners designated (app_operators), or — while
// nobody is designated — the organization's owners (mayDecide); for a request made under an approval policy
// (lib/approvals/policies.ts), the deciders it names and, once escalated, its escalation group (mayDecideRequest).
// The rules and the designation live here.
import { and, eq, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { appOperators, approvalPolicies, approvalRequests, memberships, teamMembers, teams, users } from '../db/schema';
import { operatorRefusal } from './refusal-codes';

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

/** The columns (or values) of a request that say who may decide it. */
export interface RequestDeciding {
  appId: AnyColumn | SQL;
  orgId: AnyColumn | SQL;
  subjectUserId: AnyColumn | SQL;
  /** The policy the request was made under (null: the default rule). */
  policyId: AnyColumn | SQL;
  quorum: AnyColumn | SQL;
  escalatedAt: AnyColumn | SQL;
}

/** The request's own columns. */
export const requestDeciding = {
  appId: approvalRequests.appId,
  orgId: approvalRequests.orgId,
  subjectUserId: approvalRequests.subjectUserId,
  policyId: approvalRequests.policyId,
  quorum: approvalRequests.quorum,
  escalatedAt: approvalRequests.escalatedAt,
} satisfies RequestDeciding;

/** A request already read, as values (for a statement about other rows: its votes, its deciders). */
export function requestValues(request: { appId: string; orgId: string; subjectUserId: string; policyId: string | null; quorum: number; escalatedAt: Date | null }): RequestDeciding {
  return {
    appId: sql`${request.appId}::uuid`,
    orgId: sql`${request.orgId}::uuid`,
    subjectUserId: sql`${request.subjectUserId}::uuid`,
    policyId: sql`${request.policyId}::uuid`,
    quorum: sql`${request.quorum}::int`,
    escalatedAt: sql`${request.escalatedAt?.toISOString() ?? null}::timestamptz`,
  };
}

/**
 * Whether this person may decide the request now — the one rule for listing, opening, deciding, counting votes and
 * mailing. The request was made under a policy (policy_id; a later policy governs later requests only): that
 * policy's deciders as they are now, each still a member, and — once the request was escalated — its escalation group
 * too. Without one, the default rule (mayDecide). A policy naming a team that was removed leaves nobody but the
 * escalation group (and the CLI). Under a policy, or any quorum, the person the request is for never decides it.
 */
export function mayDecideRequest(request: RequestDeciding, userId: string | AnyColumn | SQL): SQL {
  const { appId, orgId } = request;
  const member = sql`exists (select 1 from ${memberships} pm where pm.org_id = ${orgId} and pm.user_id = ${userId})`;
  const owner = sql`exists (select 1 from ${memberships} po where po.org_id = ${orgId} and po.user_id = ${userId} and po.role = 'owner')`;
  const inTeam = (team: SQL) => sql`(${member} and exists (select 1 from ${teamMembers} tm join ${teams} t on t.id = tm.team_id where tm.team_id = ${team} and tm.user_id = ${userId} and t.org_id = ${orgId}))`;
  const byPolicy = sql`coalesce((select (case p.deciders
        when 'operators' then ${mayDecide(appId, orgId, userId)}
        when 'owners' then ${owner}
        when 'team' then ${inTeam(sql`p.team_id`)}
        when 'people' then ${member} and ${userId}::uuid = any (p.user_ids)
        else false end)
      or (${request.escalatedAt} is not null and (case p.escalate_to when 'owners' then ${owner} when 'team' then ${inTeam(sql`p.escalate_team_id`)} else false end))
    from ${approvalPolicies} p where p.id = ${request.policyId}), false)`;
  return sql`((case when ${request.policyId} is null then ${mayDecide(appId, orgId, userId)} else ${byPolicy} end)
    and not (${request.subjectUserId} = ${userId}::uuid and (${request.policyId} is not null or ${request.quorum} > 1)))`;
}

/**
 * Who may revoke a grant: whoever may decide the request it came from, and the organization's owners (revoking only
 * takes access away).
 */
export function mayRevokeGrant(grantRequestId: AnyColumn | SQL, orgId: AnyColumn | SQL, userId: string): SQL {
  const r = approvalRequests;
  return sql`(exists (select 1 from ${memberships} ro where ro.org_id = ${orgId} and ro.user_id = ${userId} and ro.role = 'owner')
    or exists (select 1 from ${r} where ${r.id} = ${grantRequestId} and ${mayDecideRequest(requestDeciding, userId)}))`;
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
  if (!member) throw operatorRefusal('only a member of the organization can be an operator');
  const inserted = await db.insert(appOperators).values(input).onConflictDoNothing().returning({ userId: appOperators.userId });
  return inserted.length === 1;
}

export async function removeAppOperator(db: Queryable, appId: string, userId: string): Promise<boolean> {
  const removed = await db.delete(appOperators).where(and(eq(appOperators.appId, appId), eq(appOperators.userId, userId))).returning({ userId: appOperators.userId });
  return removed.length === 1;
}
