// Asking a person to approve one action from the app's backend, with nobody in front of a screen: OpenID Connect CIBA
// (poll mode) with RFC 9396 authorization details, done by openid-client (a certified relying party). Portico
// notifies the person (mail, their inbox, the organization's webhooks), they approve on their own device with
// step-up, and the backend receives an access token that carries exactly the approved action. Before acting, pass
// that token to the kit's `verifyApprovedAction`, which checks it covers this very action and spends it.
//
// The app's backend holds its client secret (PORTICO_CLIENT_SECRET) for this, as for signing people in, and an
// admin turns CIBA on for the app in Portico's console (Security tab).
import * as oidc from 'openid-client';
import type { ExpectedAction } from './approved-actions';
import type { RiskLevel } from './risk';
import { cachedDiscovery } from './sign-in';

export interface ApprovalRequestsConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The app's origin: the token is bound to `<origin>/api/mcp`, the app's resource. */
  origin: string;
}

export interface ApprovalRequest {
  /** Who approves: their email or their `sub` (a member of the app's organization). */
  person: string;
  /** CIBA Core §7.1: at most 64 printable characters, shown to the person; show the same text in your app. */
  bindingMessage: string;
  /** The action(s) to approve: a tool call (its arguments bound by their RFC 8785 digest) or an action in words. */
  actions: readonly (ExpectedAction & { riskLevel?: RiskLevel })[];
  /** Seconds the person has (Portico allows at most 600; 300 by default). */
  expiresInSeconds?: number;
  signal?: AbortSignal;
}

export interface ApprovalAnswer {
  /** The access token to hand to `verifyApprovedAction` (single use). */
  accessToken: string;
  /** The approved details, as the token carries them. */
  authorizationDetails: unknown[];
}

/** The RFC 9396 authorization details of an action, in Portico's types. */
export function authorizationDetailOf(action: ExpectedAction & { riskLevel?: RiskLevel }): Record<string, unknown> {
  if (action.type === 'portico_action') {
    return { type: 'portico_action', description: action.description, ...(action.target ? { target: action.target } : {}), ...(action.amount ? { amount: action.amount } : {}) };
  }
  return { type: 'portico_tool_call', tool: action.tool, risk_level: action.riskLevel ?? 'approval_required', arguments: action.arguments };
}

export interface ApprovalRequests {
  /**
   * Asks and waits for the answer (polling at the interval Portico gives). Resolves with the token when the person
   * approves; rejects with openid-client's error `access_denied` when they deny, `expired_token` when nobody answered
   * in time, `slow_down` when the person already has several requests of this app waiting.
   */
  ask(request: ApprovalRequest): Promise<ApprovalAnswer>;
}

export function createApprovalRequests(config: ApprovalRequestsConfig): ApprovalRequests {
  const resource = `${new URL(config.origin).origin}/api/mcp`;
  const discover = cachedDiscovery(config);
  return {
    async ask(request) {
      const client = await discover();
      const started = await oidc.initiateBackchannelAuthentication(client, {
        scope: 'openid',
        login_hint: request.person,
        binding_message: request.bindingMessage,
        resource,
        authorization_details: JSON.stringify(request.actions.map(authorizationDetailOf)),
        ...(request.expiresInSeconds ? { requested_expiry: String(request.expiresInSeconds) } : {}),
      });
      const tokens = await oidc.pollBackchannelAuthenticationGrant(client, started, undefined, request.signal ? { signal: request.signal } : undefined);
      return { accessToken: tokens.access_token, authorizationDetails: (tokens.authorization_details as unknown[] | undefined) ?? [] };
    },
  };
}
