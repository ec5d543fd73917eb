// What the CLI's organization commands share (webhooks, domains): the organization named by --org, and the command
// context their domain commands take, auditing as the operator (operator_cli).
import { findOrganizationBySlug, type Organization } from '../accounts/organizations';
import { recordAuditEvent, type AuditRecord } from '../audit/events';
import type { Queryable } from '../db/client';
import { terminalText } from '../util/visible-text';
import { CommandError, UsageError, type CliContext } from './command';

export async function organizationOf(ctx: CliContext, values: Record<string, unknown>): Promise<Organization> {
  const slug = typeof values.org === 'string' ? values.org.trim() : '';
  if (!slug) throw new UsageError('--org is required');
  const org = await findOrganizationBySlug(ctx.db, slug);
  if (!org) throw new CommandError(`No organization has the slug "${terminalText(slug)}". List them with: npm run portico -- orgs list`);
  return org;
}

export function operatorContext(ctx: CliContext, tx: Queryable, org: Organization) {
  return { tx, orgId: org.id, audit: (record: Omit<AuditRecord, 'orgId' | 'actor'>) => recordAuditEvent(tx, { ...record, orgId: org.id, actor: { type: 'operator_cli', label: ctx.operator } }) };
}
