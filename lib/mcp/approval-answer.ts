// The text an approval tool answers with (approval contract version 1): what the agent needs to tell the person and
// to follow the request up, and never anything that could itself approve. The channel (lib/approvals/channel.ts)
// decides where the operator is sent: the MCP Apps view, an elicitation, the external link or the CLI. Every
// channel but the CLI keeps the HTTPS link in the text, so a surface that fails leaves the link.
import { inputRequired, inputResponse, type ServerContext } from '@modelcontextprotocol/server';
import { APPROVAL_CONTRACT_VERSION, approvalStatusFor, cancelApprovalRequest, createApprovalRequest, type ApprovalRequest, type ApprovalStatus, type NewApprovalRequest } from '../approvals/broker';
import { approvalNotifier } from '../notifications/notify';
import { centralRequestUrl, embeddedCentralRequestUrl } from '../approvals/central-urls';
import { selectApprovalChannel, type ApprovalChannel } from '../approvals/channel';
import { APPROVAL_VIEW_URI } from './approval-view';
import { appOfOrganization, brokerStep, requireOrgPermission, type ApprovalRoundState, type PorticoToolExtra } from './context';
import { intentSchema, type ElicitationAnswer } from './elicitation';
import { translator, type Translator } from '../i18n/catalogs';
import { toolRefusal } from './refusal-codes';

export const STATUS_TOOL = 'permissions.approval_status';
export const CANCEL_TOOL = 'permissions.cancel_approval';

export function approvalChannelFor(request: Pick<ApprovalRequest, 'centralEligible'>, extra: PorticoToolExtra): ApprovalChannel {
  return selectApprovalChannel({
    surface: extra.approvals.surface,
    centralEnabled: extra.approvals.centralEnabled,
    centralEligible: request.centralEligible,
    clientCapabilities: extra.clientCapabilities,
  });
}

/**
 * The answer: the contract's fields (key=value lines and structuredContent, exactly as they are), then what to do
 * next in words, in the language of the person the agent acts for.
 */
export async function approvalAnswer(request: ApprovalRequest, status: ApprovalStatus, extra: PorticoToolExtra, options: { grantExpiresAt?: Date | null; elicitation?: ElicitationAnswer & { mode: 'url' | 'form' } } = {}) {
  const t = translator(await extra.locale(), 'mcp.approval');
  const channel = approvalChannelFor(request, extra);
  const linked = channel !== 'cli';
  const embedded = channel === 'mcp_app' && extra.approvals.frameAncestors.length > 0;
  const fields: [string, string][] = [
    ['approval_contract_version', String(APPROVAL_CONTRACT_VERSION)],
    ['request_id', request.id],
    ['status', status],
    ['approval_channel', channel],
    ['client_capabilities', JSON.stringify(extra.clientCapabilities ?? {})],
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
  const guidance = status === 'pending' ? (linked ? t('pendingLinked') : t('pendingCli')) : status === 'approved' ? t('approved') : t('noGrant');
  return {
    content: [{ type: 'text' as const, text: `${fields.map(([key, value]) => `${key}=${value}`).join('\n')}\n\n${guidance}` }],
    structuredContent: Object.fromEntries(fields) as Record<string, unknown>,
  };
}

type Profile = NonNullable<ApprovalRequest['profile']>;
const PROFILES: readonly string[] = ['read', 'work', 'compose'] satisfies Profile[];

/** What is asked, in words: "read access to /finance/q3" (a profile the catalog does not know is named as it is). */
function describe(t: Translator<'mcp.approval'>, request: ApprovalRequest): string {
  if (request.kind === 'root_access') return t('accessRoot');
  const profile = request.profile && PROFILES.includes(request.profile) ? t(`profiles.${request.profile}`) : (request.profile ?? '');
  return t('accessTo', { profile, resource: request.resource ?? '' });
}

/** The retry of a 2026-07-28 approval round: the request it was about (verified state) and the person's answer. */
function approvalRoundOf(mcp: ServerContext | undefined, asks: string): { state: ApprovalRoundState; answer: ElicitationAnswer } | undefined {
  const state = mcp?.mcpReq.requestState<ApprovalRoundState>();
  if (!state || state.kind !== 'approval' || typeof state.requestId !== 'string' || state.asks !== asks) return undefined;
  const response = inputResponse(mcp?.mcpReq.inputResponses, 'approval');
  if (response.kind !== 'elicit') return { state, answer: { outcome: 'cancel' } };
  const intent = response.content?.intent;
  return { state, answer: { outcome: response.action, ...(intent === 'send' || intent === 'withdraw' ? { intent } : {}) } };
}

/**
 * A new request from the caller (the person, with the acting agent) on one app of an organization they belong to.
 * On an elicitation channel the client is asked right away: URL mode offers the central's page for the request;
 * form mode asks the person whether to send it or withdraw it. Either carries only the request id, its type and its
 * resource; the answer can withdraw the request, never approve it. In 2025-11-25 the question travels on the call's
 * stream (`extra.elicit`); in 2026-07-28 the call answers input-required and the client's retry carries the answer
 * and the signed state naming the request, so the retry reports on that request instead of making another.
 */
export function requestThroughBroker(
  extra: PorticoToolExtra & { mcp?: ServerContext },
  where: { org: string; app: string },
  what: Pick<NewApprovalRequest, 'kind' | 'resource' | 'profile' | 'durationSeconds' | 'reason'>,
) {
  return brokerStep(extra, async (actor) => {
    const round = extra.approvalRounds ? approvalRoundOf(extra.mcp, what.kind) : undefined;
    if (round) {
      const { status, request } = await approvalStatusFor(extra.db, round.state.requestId, extra.caller.user.id);
      if (!request) throw toolRefusal('The access request this answer is for was not found.');
      const elicitation = { ...round.answer, mode: round.state.mode };
      if (round.state.mode === 'form' && status === 'pending' && (round.answer.outcome === 'decline' || round.answer.intent === 'withdraw')) {
        const cancelled = await cancelApprovalRequest(extra.db, request.id, extra.caller.user.id, actor);
        return approvalAnswer(cancelled, 'cancelled', extra, { elicitation });
      }
      return approvalAnswer(request, status, extra, { elicitation });
    }
    const { org } = await requireOrgPermission(extra, where.org, 'org.read');
    const listing = await appOfOrganization(extra.db, org, where.app);
    const request = await createApprovalRequest(
      extra.db,
      { ...what, orgId: org.id, appId: listing.app.id, subjectUserId: extra.caller.user.id, actor: extra.caller.agentId, clientId: extra.caller.token.clientId },
      actor,
      extra.notify ? approvalNotifier(extra.notify) : undefined,
    );
    const channel = approvalChannelFor(request, extra);
    if (channel === 'mcp_app') {
      // Hosts that render MCP Apps show the view this points to; the text keeps the link for everyone else.
      return { ...(await approvalAnswer(request, 'pending', extra)), _meta: { ui: { resourceUri: APPROVAL_VIEW_URI } } };
    }
    if (channel === 'elicitation_url' || channel === 'elicitation_form') {
      const mode = channel === 'elicitation_url' ? 'url' : 'form';
      const locale = await extra.locale();
      const t = translator(locale, 'mcp.approval');
      const asked = { id: request.id, kind: request.kind, access: describe(t, request) };
      const message = mode === 'url' ? t('elicitUrl', asked) : t('elicitForm', asked);
      const url = centralRequestUrl(request.id, extra.issuer);
      if (extra.approvalRounds && extra.mcp) {
        return inputRequired({
          inputRequests: { approval: mode === 'url' ? inputRequired.elicitUrl({ message, url }) : inputRequired.elicit({ message, requestedSchema: intentSchema(locale) as never }) },
          requestState: await extra.approvalRounds.mint({ kind: 'approval', asks: what.kind, requestId: request.id, mode }, extra.mcp),
        });
      }
      if (extra.elicit) {
        const answer = await extra.elicit({ mode, approvalRequestId: request.id, message, url: mode === 'url' ? url : undefined, locale });
        // Form mode: the person withdrew (chose to, or declined the form). Nothing the client sends approves.
        if (mode === 'form' && (answer.outcome === 'decline' || answer.intent === 'withdraw')) {
          const cancelled = await cancelApprovalRequest(extra.db, request.id, extra.caller.user.id, actor);
          return approvalAnswer(cancelled, 'cancelled', extra, { elicitation: { ...answer, mode } });
        }
        return approvalAnswer(request, 'pending', extra, { elicitation: { ...answer, mode } });
      }
    }
    return approvalAnswer(request, 'pending', extra);
  });
}
