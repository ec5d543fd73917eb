// An organization's approval policies: for a kind of request (read, write, protected, root, permanent), for all its
// apps or one, who may decide (the app's operators, the owners, a team, named people), how many distinct deciders
// must approve (quorum), whether one denial ends it, who is told when nobody decides in time (escalation) and the
// longest grant it may give. A request copies its policy's rules when it is made (a later change governs later
// requests); who may decide is read when deciding (someone removed decides nothing). Changes are audited.
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { OrgOperationContext } from '../organizations/org-operation';
import type { Queryable } from '../db/client';
import { APPROVAL_POLICY_KINDS, approvalPolicies, apps, memberships, teams, users, type ApprovalPolicyKind } from '../db/schema';
import { localized } from '../i18n/catalogs';
import { isUuid } from '../util/uuid';
import { commandRefusal } from '../organizations/refusal-codes';
import { policyRefusal } from './refusal-codes';

/** A pending request nobody decided within this is expired (a policy's escalation must come before it). */
export const REQUEST_TTL_SECONDS = 30 * 60;

export { APPROVAL_POLICY_KINDS, type ApprovalPolicyKind };
export type ApprovalPolicy = typeof approvalPolicies.$inferSelect;
export const POLICY_DECIDERS = ['operators', 'owners', 'team', 'people'] as const;
export type PolicyDeciders = (typeof POLICY_DECIDERS)[number];
export const MAX_QUORUM = 10;

/** A request's kind for the policies: the first that fits, in the order permanent, root, protected, then the profile. */
export function policyKindOf(request: { kind: 'root_access' | 'sensitive_access'; resource?: string | null; profile?: string | null; durationSeconds: number | null }): ApprovalPolicyKind {
  if (request.durationSeconds === null) return 'permanent';
  if (request.kind === 'root_access') return 'root';
  if (request.resource === '/' || request.resource?.includes('*')) return 'protected';
  return request.profile === 'read' ? 'read' : 'write';
}

/** The policy that governs a kind of request on an app: the app's own, else the organization's; none: the default. */
export async function governingPolicy(db: Queryable, orgId: string, appId: string, kind: ApprovalPolicyKind): Promise<ApprovalPolicy | undefined> {
  const [policy] = await db
    .select()
    .from(approvalPolicies)
    .where(and(eq(approvalPolicies.orgId, orgId), eq(approvalPolicies.kind, kind), sql`(${approvalPolicies.appId} = ${appId} or ${approvalPolicies.appId} is null)`))
    .orderBy(sql`${approvalPolicies.appId} nulls last`)
    .limit(1);
  return policy;
}

export interface PolicyInput {
  /** Null: every app of the organization. */
  appId: string | null;
  kind: ApprovalPolicyKind;
  deciders: PolicyDeciders;
  teamId?: string | null;
  userIds?: string[];
  quorum: number;
  anyDenyEnds: boolean;
  escalateAfterMinutes?: number | null;
  escalateTo?: 'owners' | 'team' | null;
  escalateTeamId?: string | null;
  maxGrantSeconds?: number | null;
}

type Context = Pick<OrgOperationContext, 'tx' | 'audit'> & { orgId: string };

async function teamOfOrg(tx: Queryable, orgId: string, teamId: string | null | undefined, field: string): Promise<string> {
  if (!teamId || !isUuid(teamId)) throw policyRefusal(field, localized('refusals.policies.team'));
  const [team] = await tx.select({ id: teams.id }).from(teams).where(and(eq(teams.id, teamId), eq(teams.orgId, orgId)));
  if (!team) throw policyRefusal(field, localized('refusals.policies.team'));
  return team.id;
}

/** The policy's fields, checked: everything it names belongs to the organization, and the quorum can be reached. */
async function checked(tx: Queryable, orgId: string, input: PolicyInput) {
  if (!(APPROVAL_POLICY_KINDS as readonly string[]).includes(input.kind)) throw policyRefusal('kind', localized('refusals.policies.kind'));
  if (!(POLICY_DECIDERS as readonly string[]).includes(input.deciders)) throw policyRefusal('deciders', localized('refusals.policies.deciders'));
  if (input.appId !== null) {
    const [app] = isUuid(input.appId) ? await tx.select({ id: apps.id }).from(apps).where(and(eq(apps.id, input.appId), eq(apps.orgId, orgId))) : [];
    if (!app) throw policyRefusal('appId', localized('refusals.policies.app'));
  }
  if (!Number.isInteger(input.quorum) || input.quorum < 1 || input.quorum > MAX_QUORUM) throw policyRefusal('quorum', localized('refusals.policies.quorum', { max: MAX_QUORUM }));
  const teamId = input.deciders === 'team' ? await teamOfOrg(tx, orgId, input.teamId, 'teamId') : null;
  let userIds: string[] = [];
  if (input.deciders === 'people') {
    userIds = [...new Set(input.userIds ?? [])];
    if (userIds.length === 0 || !userIds.every(isUuid)) throw policyRefusal('userIds', localized('refusals.policies.people'));
    const found = await tx.select({ userId: memberships.userId }).from(memberships).where(and(eq(memberships.orgId, orgId), inArray(memberships.userId, userIds)));
    if (found.length !== userIds.length) throw policyRefusal('userIds', localized('refusals.policies.people'));
    // A quorum larger than the people named could never be reached.
    if (input.quorum > userIds.length) throw policyRefusal('quorum', localized('refusals.policies.quorumPeople', { count: userIds.length }));
  }
  const escalateAfterMinutes = input.escalateAfterMinutes ?? null;
  let escalateTo: 'owners' | 'team' | null = null;
  let escalateTeamId: string | null = null;
  if (escalateAfterMinutes !== null) {
    if (!Number.isInteger(escalateAfterMinutes) || escalateAfterMinutes < 1 || escalateAfterMinutes * 60 >= REQUEST_TTL_SECONDS) throw policyRefusal('escalateAfterMinutes', localized('refusals.policies.escalateAfter'));
    escalateTo = input.escalateTo ?? 'owners';
    if (escalateTo === 'team') escalateTeamId = await teamOfOrg(tx, orgId, input.escalateTeamId, 'escalateTeamId');
  }
  const maxGrantSeconds = input.maxGrantSeconds ?? null;
  if (maxGrantSeconds !== null && (!Number.isInteger(maxGrantSeconds) || maxGrantSeconds < 60 || maxGrantSeconds > 30 * 86400)) throw policyRefusal('maxGrantSeconds', localized('refusals.policies.maxGrant'));
  return { appId: input.appId, kind: input.kind, deciders: input.deciders, teamId, userIds, quorum: input.quorum, anyDenyEnds: input.anyDenyEnds, escalateAfterMinutes, escalateTo, escalateTeamId, maxGrantSeconds };
}

/** Sets the policy for (app or organization, kind): creates it, or replaces the one there. */
export async function setApprovalPolicy(ctx: Context, input: PolicyInput): Promise<ApprovalPolicy> {
  const values = await checked(ctx.tx, ctx.orgId, input);
  // Two first saves of one scope at once: the second waits and replaces the first instead of failing on the index.
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`approval-policy:${ctx.orgId}:${values.appId ?? ''}:${values.kind}`}, 0))`);
  const scope = and(eq(approvalPolicies.orgId, ctx.orgId), eq(approvalPolicies.kind, values.kind), values.appId === null ? isNull(approvalPolicies.appId) : eq(approvalPolicies.appId, values.appId));
  const [existing] = await ctx.tx.select().from(approvalPolicies).where(scope).for('update');
  const [policy] = existing
    ? await ctx.tx.update(approvalPolicies).set({ ...values, updatedAt: sql`now()` }).where(eq(approvalPolicies.id, existing.id)).returning()
    : await ctx.tx.insert(approvalPolicies).values({ orgId: ctx.orgId, ...values }).returning();
  await ctx.audit({ action: existing ? 'approval_policy.updated' : 'approval_policy.created', subject: { type: 'approval_policy', id: policy!.id, label: `${values.kind}${values.appId ? ` (app)` : ''}` }, appId: values.appId, details: values });
  return policy!;
}

/** Removes a policy: its kind goes back to the organization's policy (for an app's) or the default rule. */
export async function removeApprovalPolicy(ctx: Context, policyId: string): Promise<void> {
  const [removed] = isUuid(policyId) ? await ctx.tx.delete(approvalPolicies).where(and(eq(approvalPolicies.id, policyId), eq(approvalPolicies.orgId, ctx.orgId))).returning() : [];
  if (!removed) throw commandRefusal(404, localized('refusals.policies.notFound'), 'not_found');
  await ctx.audit({ action: 'approval_policy.removed', subject: { type: 'approval_policy', id: removed.id, label: removed.kind }, appId: removed.appId, details: { kind: removed.kind, appId: removed.appId } });
}

export interface PolicyListing extends ApprovalPolicy {
  appName: string | null;
  /** The named deciders' emails (deciders = people), those still members. */
  peopleEmails: string[];
  teamName: string | null;
  escalateTeamName: string | null;
}

/** The organization's policies, organization-wide first, then per app, each in the order of the kinds. */
export async function listApprovalPolicies(db: Queryable, orgId: string): Promise<PolicyListing[]> {
  const rows = await db
    .select({
      policy: approvalPolicies,
      appName: apps.name,
      teamName: sql<string | null>`(select name from ${teams} where id = ${approvalPolicies.teamId})`,
      escalateTeamName: sql<string | null>`(select name from ${teams} where id = ${approvalPolicies.escalateTeamId})`,
      peopleEmails: sql<string[] | string | null>`(select json_agg(u.email order by u.email) from ${users} u join ${memberships} m on m.user_id = u.id and m.org_id = ${approvalPolicies.orgId} where u.id = any (${approvalPolicies.userIds}))`,
    })
    .from(approvalPolicies)
    .leftJoin(apps, eq(apps.id, approvalPolicies.appId))
    .where(eq(approvalPolicies.orgId, orgId));
  const order = (kind: string) => APPROVAL_POLICY_KINDS.indexOf(kind as ApprovalPolicyKind);
  return rows
    .map(({ policy, appName, teamName, escalateTeamName, peopleEmails }) => ({
      ...policy,
      appName: appName ?? null,
      teamName,
      escalateTeamName,
      // json_agg comes back parsed on postgres.js and as text on PGlite.
      peopleEmails: (typeof peopleEmails === 'string' ? (JSON.parse(peopleEmails) as string[]) : peopleEmails) ?? [],
    }))
    .sort((a, b) => (a.appName ?? '').localeCompare(b.appName ?? '') || order(a.kind) - order(b.kind));
}
