// The text an approval tool answers with (approval contract version 1): what the agent needs to tell the person and
// to follow the request up, and never anything that could itself approve.
import { APPROVAL_CONTRACT_VERSION, createApprovalRequest, type ApprovalRequest, type ApprovalStatus, type NewApprovalRequest } from '../approvals/broker';
import { appOfOrganization, brokerStep, requireOrgPermission, type PorticoToolExtra } from './context';

export const STATUS_TOOL = 'permissions.approval_status';
export const CANCEL_TOOL = 'permissions.cancel_approval';

export function approvalAnswer(request: ApprovalRequest, status: ApprovalStatus, extra: PorticoToolExtra, grantExpiresAt?: Date | null) {
  // Temporary, specific requests: an HTTPS link to the central, for the operator to open in a tab of its own (they
  // sign in there themselves). Permanent, broad or elevated ones: the CLI only.
  const channel = request.centralEligible ? 'central' : 'cli';
  const fields: [string, string][] = [
    ['approval_contract_version', String(APPROVAL_CONTRACT_VERSION)],
    ['request_id', request.id],
    ['status', status],
    ['approval_channel', channel],
    ['client_capabilities', JSON.stringify(extra.session?.clientCapabilities ?? {})],
    ['operator_authentication_required', 'true'],
    ...(channel === 'central' ? ([['operator_approval_url', `${extra.issuer}/central/requests/${request.id}`]] as [string, string][]) : []),
    ['operator_cli', `npm run portico -- approvals show ${request.id}`],
    ['status_tool', STATUS_TOOL],
    ['cancel_tool', CANCEL_TOOL],
    ['retry_after_seconds', '3'],
    ...(grantExpiresAt !== undefined ? ([['grant_expires_at', grantExpiresAt?.toISOString() ?? 'never']] as [string, string][]) : []),
  ];
  const guidance =
    status === 'pending'
      ? 'An operator must decide this request; nothing is granted yet. Tell the person, then call permissions.approval_status with the request_id (wait retry_after_seconds between calls) and act only when its status is approved.'
      : status === 'approved'
        ? 'The grant exists; the app checks it with Portico on every operation.'
        : 'There is no grant: do not proceed.';
  return {
    content: [{ type: 'text' as const, text: `${fields.map(([key, value]) => `${key}=${value}`).join('\n')}\n\n${guidance}` }],
    structuredContent: Object.fromEntries(fields) as Record<string, unknown>,
  };
}

/** A new request from the caller (the person, with the acting agent) on one app of an organization they belong to. */
export function requestThroughBroker(
  extra: PorticoToolExtra,
  where: { org: string; app: string },
  what: Pick<NewApprovalRequest, 'kind' | 'resource' | 'profile' | 'durationSeconds' | 'reason'>,
) {
  return brokerStep(extra, async (actor) => {
    const { org } = await requireOrgPermission(extra, where.org, 'org.read');
    const listing = await appOfOrganization(extra.db, org, where.app);
    const request = await createApprovalRequest(
      extra.db,
      { ...what, orgId: org.id, appId: listing.app.id, subjectUserId: extra.caller.user.id, actor: extra.caller.agentId, clientId: extra.caller.token.clientId },
      actor,
    );
    return approvalAnswer(request, 'pending', extra);
  });
}
