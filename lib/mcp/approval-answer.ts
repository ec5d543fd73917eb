// The text an approval tool answers with (approval contract version 1): what the agent needs to tell the person and
// to follow the request up, and never anything that could itself approve. The channel (lib/approvals/channel.ts)
// decides where the operator is sent: the MCP Apps view, an elicitation, the external link or the CLI. Every
// channel but the CLI keeps the HTTPS link in the text, so a surface that fails leaves the link.
import { APPROVAL_CONTRACT_VERSION, cancelApprovalRequest, createApprovalRequest, type ApprovalRequest, type ApprovalStatus, type NewApprovalRequest } from '../approvals/broker';
import { centralRequestUrl, embeddedCentralRequestUrl } from '../approvals/central-urls';
import { selectApprovalChannel, type ApprovalChannel } from '../approvals/channel';
import { APPROVAL_VIEW_URI } from './approval-view';
import { appOfOrganization, brokerStep, requireOrgPermission, type PorticoToolExtra } from './context';
import type { ElicitationAnswer } from './elicitation';

export const STATUS_TOOL = 'permissions.approval_status';
export const CANCEL_TOOL = 'permissions.cancel_approval';

export function approvalChannelFor(request: Pick<ApprovalRequest, 'centralEligible'>, extra: PorticoToolExtra): ApprovalChannel {
  return selectApprovalChannel({
    surface: extra.approvals.surface,
    centralEnabled: extra.approvals.centralEnabled,
    centralEligible: request.centralEligible,
    clientCapabilities: extra.session?.clientCapabilities,
  });
}

export function approvalAnswer(request: ApprovalRequest, status: ApprovalStatus, extra: PorticoToolExtra, options: { grantExpiresAt?: Date | null; elicitation?: ElicitationAnswer & { mode: 'url' | 'form' } } = {}) {
  const channel = approvalChannelFor(request, extra);
  const linked = channel !== 'cli';
  const embedded = channel === 'mcp_app' && extra.approvals.frameAncestors.length > 0;
  const fields: [string, string][] = [
    ['approval_contract_version', String(APPROVAL_CONTRACT_VERSION)],
    ['request_id', request.id],
    ['status', status],
    ['approval_channel', channel],
    ['client_capabilities', JSON.stringify(extra.session?.clientCapabilities ?? {})],
    ['operator_authentication_required', 'true'],
    ...(linked ? ([['operator_approval_url', centralRequestUrl(request.id, extra.issuer)]] as [string, string][]) : []),
    ...(embedded ? ([['embedded_central_url', embeddedCentralRequestUrl(request.id, extra.issuer)]] as [string, string][]) : []),
    ...(channel === 'mcp_app' ? ([['approval_view', APPROVAL_VIEW_URI]] as [string, string][]) : []),
    ...(options.elicitation
      ? ([
          ['elicitation_mode', options.elicitation.mode],
          ['elicitation_outcome', options.elicitation.outcome],
        ] as [string, string][])
      : []),
    ['operator_cli', `npm run portico -- approvals show ${request.id}`],
    ['status_tool', STATUS_TOOL],
    ['cancel_tool', CANCEL_TOOL],
    ['retry_after_seconds', '3'],
    ...(options.grantExpiresAt !== undefined ? ([['grant_expires_at', options.grantExpiresAt?.toISOString() ?? 'never']] as [string, string][]) : []),
  ];
  const guidance =
    status === 'pending'
      ? `An operator must decide this request; nothing is granted yet. ${linked ? 'Give the person the operator_approval_url (the operator signs in there), ' : 'Tell the person an operator must run the operator_cli command, '}then call permissions.approval_status with the request_id (wait retry_after_seconds between calls) and act only when its status is approved.`
      : status === 'approved'
        ? 'The grant exists; the app checks it with Portico on every operation.'
        : 'There is no grant: do not proceed.';
  return {
    content: [{ type: 'text' as const, text: `${fields.map(([key, value]) => `${key}=${value}`).join('\n')}\n\n${guidance}` }],
    structuredContent: Object.fromEntries(fields) as Record<string, unknown>,
  };
}

const describe = (request: ApprovalRequest) =>
  request.kind === 'root_access' ? 'elevated (root) access' : `${request.profile} access to ${request.resource}`;

/**
 * A new request from the caller (the person, with the acting agent) on one app of an organization they belong to.
 * On an elicitation channel the client is asked right away: URL mode offers the central's page for the request;
 * form mode asks the person whether to send it or withdraw it. Either carries only the request id, its type and its
 * resource; the answer can withdraw the request, never approve it.
 */
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
    const channel = approvalChannelFor(request, extra);
    if (channel === 'mcp_app') {
      // Hosts that render MCP Apps show the view this points to; the text keeps the link for everyone else.
      return { ...approvalAnswer(request, 'pending', extra), _meta: { ui: { resourceUri: APPROVAL_VIEW_URI } } };
    }
    if ((channel === 'elicitation_url' || channel === 'elicitation_form') && extra.elicit) {
      const mode = channel === 'elicitation_url' ? 'url' : 'form';
      const answer = await extra.elicit({
        mode,
        approvalRequestId: request.id,
        message:
          mode === 'url'
            ? `Access request ${request.id} (${request.kind}: ${describe(request)}) needs an operator. Open the Portico central to decide it; the operator signs in there.`
            : `Access request ${request.id} (${request.kind}: ${describe(request)}) needs an operator's approval.`,
        url: mode === 'url' ? centralRequestUrl(request.id, extra.issuer) : undefined,
      });
      // Form mode: the person withdrew (chose to, or declined the form). Nothing the client sends approves.
      if (mode === 'form' && (answer.outcome === 'decline' || answer.intent === 'withdraw')) {
        const cancelled = await cancelApprovalRequest(extra.db, request.id, extra.caller.user.id, actor);
        return approvalAnswer(cancelled, 'cancelled', extra, { elicitation: { ...answer, mode } });
      }
      return approvalAnswer(request, 'pending', extra, { elicitation: { ...answer, mode } });
    }
    return approvalAnswer(request, 'pending', extra);
  });
}
