// `npm run portico -- approvals …`: the operators' fallback with local authority on the server machine, and the
// only channel for permanent, broad or elevated requests. Each decision shows the request, asks for confirmation
// (or takes --yes), and goes through the broker like any other: one transaction, audited as `operator_cli`.
import { and, desc, eq, gt, sql } from 'drizzle-orm';
import { findOrganizationBySlug } from '../organizations/organizations';
import { decideApprovalRequest, findApprovalRequest, revokeApprovalGrant, type ApprovalRequest } from '../approvals/broker';
import { approvalGrants, approvalRequests, apps, users } from '../db/schema';
import { terminalText } from '../util/visible-text';
import { CommandError, printList, UsageError, type CliContext, type Command } from './command';

async function describeRequest(ctx: CliContext, request: ApprovalRequest): Promise<string[]> {
  const [context] = await ctx.db
    .select({ email: users.email, app: apps.name })
    .from(approvalRequests)
    .innerJoin(users, eq(users.id, approvalRequests.subjectUserId))
    .innerJoin(apps, eq(apps.id, approvalRequests.appId))
    .where(eq(approvalRequests.id, request.id));
  const [grant] = await ctx.db.select().from(approvalGrants).where(eq(approvalGrants.requestId, request.id));
  // What came from outside (the reason, names, the client, the path) goes first and through terminalText; what the
  // operator decides on (access, duration, where it may be decided) comes after it, from the stored fields, so no
  // text an agent wrote can stand between them and the prompt.
  return [
    `request      ${request.id}`,
    `asked by     ${terminalText(context?.email ?? request.subjectUserId)}${request.actor ? `, through the agent ${terminalText(request.actor)}` : ''} (client ${terminalText(request.clientId)})`,
    `app          ${terminalText(context?.app ?? request.appId)}`,
    `reason       ${terminalText(request.reason)}`,
    `state        ${request.state}${request.state === 'pending' && request.expiresAt <= new Date() ? ' (expired)' : ''}`,
    `access       ${request.kind === 'root_access' ? 'ELEVATED (root) access' : `${request.profile} on ${terminalText(request.resource)}`}`,
    `for          ${request.durationSeconds === null ? 'PERMANENT' : `${request.durationSeconds} seconds`}`,
    `central      ${request.centralEligible ? 'may be decided in the central' : 'CLI only (permanent, broad or elevated)'}`,
    `fingerprint  ${request.fingerprint}`,
    ...(grant ? [`grant        ${grant.id}, ${grant.revokedAt ? `revoked ${grant.revokedAt.toISOString()}` : grant.expiresAt ? `until ${grant.expiresAt.toISOString()}` : 'permanent'}`] : []),
  ];
}

async function requestOrThrow(ctx: CliContext, id: string | undefined): Promise<ApprovalRequest> {
  if (!id) throw new UsageError('name the request (apr_…)');
  const request = await findApprovalRequest(ctx.db, id);
  if (!request) throw new CommandError(`No approval request ${id}. List the pending ones with: npm run portico -- approvals list`);
  return request;
}

async function confirmOrStop(ctx: CliContext, values: Record<string, unknown>, question: string): Promise<void> {
  if (values.yes === true) return;
  if (!(await ctx.confirm(question))) throw new CommandError('Not confirmed: nothing was changed. (Without a terminal, pass --yes.)');
}

function decide(decision: 'approve' | 'deny'): Command {
  return {
    async run(ctx, values, positionals) {
      const request = await requestOrThrow(ctx, positionals[0]);
      for (const line of await describeRequest(ctx, request)) ctx.out(line);
      // The question restates, from the stored fields, what is decided.
      const access = request.kind === 'root_access' ? 'ELEVATED (root) access' : `${request.profile} access`;
      const duration = request.durationSeconds === null ? 'PERMANENTLY' : `for ${request.durationSeconds} seconds`;
      await confirmOrStop(ctx, values, `${decision === 'approve' ? 'Approve' : 'Deny'} ${access} ${duration} (${request.id})?`);
      // The fingerprint of what was just shown: if the request changed meanwhile, the broker refuses (index.ts answers it).
      const { grant } = await decideApprovalRequest(ctx.db, {
        requestId: request.id,
        decision,
        fingerprint: request.fingerprint,
        channel: 'cli',
        decidedBy: ctx.operator,
        actor: { type: 'operator_cli', label: ctx.operator },
      });
      ctx.out(decision === 'approve' ? `Approved: grant ${grant!.id}${grant!.expiresAt ? ` until ${grant!.expiresAt.toISOString()}` : ' (permanent)'}.` : 'Denied.');
    },
  };
}

export const APPROVAL_COMMANDS: Record<string, Command> = {
  list: {
    async run(ctx, values) {
      const org = typeof values.org === 'string' ? await findOrganizationBySlug(ctx.db, values.org) : undefined;
      if (typeof values.org === 'string' && !org) throw new CommandError(`No organization has the slug "${values.org}".`);
      const rows = await ctx.db
        .select({ request: approvalRequests, email: users.email, app: apps.name })
        .from(approvalRequests)
        .innerJoin(users, eq(users.id, approvalRequests.subjectUserId))
        .innerJoin(apps, eq(apps.id, approvalRequests.appId))
        .where(
          and(
            org ? eq(approvalRequests.orgId, org.id) : undefined,
            values.all === true ? undefined : and(eq(approvalRequests.state, 'pending'), gt(approvalRequests.expiresAt, sql`now()`)),
          ),
        )
        .orderBy(desc(approvalRequests.createdAt))
        .limit(200);
      if (rows.length === 0) ctx.out(values.all === true ? 'No approval requests.' : 'No pending approval requests.');
      printList(
        ctx,
        ['REQUEST', 'STATE', 'FOR', 'APP', 'ACCESS', 'DURATION', 'DECIDED IN'],
        rows.map(({ request, email, app }) => [
          request.id,
          request.state,
          terminalText(email),
          terminalText(app),
          request.kind === 'root_access' ? 'root' : `${request.profile} ${terminalText(request.resource)}`,
          request.durationSeconds === null ? 'permanent' : `${request.durationSeconds}s`,
          request.centralEligible ? 'central' : 'cli-only',
        ]),
      );
    },
  },
  show: {
    async run(ctx, _values, positionals) {
      for (const line of await describeRequest(ctx, await requestOrThrow(ctx, positionals[0]))) ctx.out(line);
    },
  },
  approve: decide('approve'),
  deny: decide('deny'),
  revoke: {
    async run(ctx, values, positionals) {
      const id = positionals[0];
      if (!id) throw new UsageError('name the grant (apg_…) or its request (apr_…)');
      const [grant] = await ctx.db
        .select()
        .from(approvalGrants)
        .where(id.startsWith('apr_') ? eq(approvalGrants.requestId, id) : eq(approvalGrants.id, id));
      if (!grant) throw new CommandError(`No grant ${id}.`);
      for (const line of await describeRequest(ctx, (await findApprovalRequest(ctx.db, grant.requestId))!)) ctx.out(line);
      await confirmOrStop(ctx, values, 'Revoke this grant?');
      await revokeApprovalGrant(ctx.db, grant.id, ctx.operator, { type: 'operator_cli', label: ctx.operator });
      ctx.out(`Revoked grant ${grant.id}.`);
    },
  },
};
