// An organization's second-factor policy: who among its members must have a second factor (a passkey or an
// authenticator app). It holds wherever they sign in for it: an app of the organization (its policy), the console
// and the central (the policies of every organization they belong to). A person who must and has none is taken to
// set one up right after their password, before any session or code is issued (lib/accounts/sign-in-second-step.ts).
import { and, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { appOperators, memberships, organizations } from '../../db/schema';

export const SECOND_FACTOR_POLICIES = ['none', 'admins', 'operators', 'everyone'] as const;
export type SecondFactorPolicy = (typeof SECOND_FACTOR_POLICIES)[number];
// Their names for people are in the catalogs (console.settings.twoStep.policies).

export const isSecondFactorPolicy = (value: unknown): value is SecondFactorPolicy => typeof value === 'string' && (SECOND_FACTOR_POLICIES as readonly string[]).includes(value);

/**
 * Whether a policy requires this person to have a second factor: in one organization (an app's sign-in), or in any
 * organization they belong to (the console and the central, which serve all of them). "Operators" are the owners
 * (who decide for apps without designated operators) and the people designated for any app of the organization.
 */
export async function secondFactorRequired(db: Queryable, userId: string, orgId?: string): Promise<boolean> {
  const designated = sql`exists (select 1 from ${appOperators} where ${appOperators.orgId} = ${organizations.id} and ${appOperators.userId} = ${memberships.userId})`;
  const [row] = await db
    .select({ orgId: organizations.id })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(
      and(
        eq(memberships.userId, userId),
        ...(orgId ? [eq(organizations.id, orgId)] : []),
        sql`(${organizations.secondFactorPolicy} = 'everyone'
          or (${organizations.secondFactorPolicy} = 'admins' and ${memberships.role} in ('owner', 'admin'))
          or (${organizations.secondFactorPolicy} = 'operators' and (${memberships.role} = 'owner' or ${designated})))`,
      ),
    )
    .limit(1);
  return row !== undefined;
}

export async function setSecondFactorPolicy(db: Queryable, orgId: string, policy: SecondFactorPolicy): Promise<void> {
  await db.update(organizations).set({ secondFactorPolicy: policy }).where(eq(organizations.id, orgId));
}
