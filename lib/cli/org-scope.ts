// What the CLI's organization commands share: the organization named by --org, and the organization operation each
// change runs as (lib/organizations/org-operation.ts, door `cli`): one transaction, its audit event the operator's
// (operator_cli), like every other door's.
import { runOrgOperation, type OrgOperationContext } from '../organizations/org-operation';
import { findOrganizationById, findOrganizationBySlug, type Organization } from '../organizations/organizations';
import { terminalText } from '../util/visible-text';
import { CommandError, UsageError, type CliContext } from './command';

export async function organizationOf(ctx: CliContext, values: Record<string, unknown>): Promise<Organization> {
  const slug = typeof values.org === 'string' ? values.org.trim() : '';
  if (!slug) throw new UsageError('--org is required');
  const org = await findOrganizationBySlug(ctx.db, slug);
  if (!org) throw new CommandError(`No organization has the slug "${terminalText(slug)}". List them with: npm run portico -- orgs list`);
  return org;
}

/**
 * Runs one change to the organization as an operation of the operator's: the CLI's local authority stands for a
 * role (it may do what an owner may), and the change writes exactly one audit event (`at_most_one` for a command
 * that changes nothing, and says so, when there is nothing to change).
 */
export function asOperator<T>(ctx: CliContext, org: Organization, work: (operation: OrgOperationContext) => Promise<T>, audit: 'exactly_one' | 'at_most_one' = 'exactly_one'): Promise<T> {
  return runOrgOperation(ctx.db, operatorScope(ctx, org), { audit }, work);
}

/** Who an operation of the CLI's is: for the domain code that runs its operation itself (after a network read). */
export function operatorScope(ctx: CliContext, org: Organization): Parameters<typeof runOrgOperation>[1] {
  return { org, role: null, actor: { door: 'cli', operator: ctx.operator } };
}

/** The organization an app belongs to, for an app command's operation. */
export async function organizationOfApp(ctx: CliContext, app: { orgId: string }): Promise<Organization> {
  const org = await findOrganizationById(ctx.db, app.orgId);
  if (!org) throw new CommandError('The app’s organization no longer exists.');
  return org;
}

/** The context the domain commands that take an organization's id (domains, webhooks) are given. */
export function operatorContext(operation: OrgOperationContext) {
  return { tx: operation.tx, orgId: operation.org.id, audit: operation.audit };
}
