// Actions a person approved through CIBA (OpenID Connect Client-Initiated Backchannel Authentication with RFC 9396
// authorization details): the app's backend asked Portico, the person approved on their own device, and the access
// token carries exactly what they approved. Before acting, the app checks that the token's details cover the very
// action it is about to take (the tool and the RFC 8785 digest of its arguments, or the action described in words),
// then records the token's use with Portico, so a token serves one action once, on any of the app's instances.
import type { JWTPayload } from 'jose';
import { argumentsDigest } from './risk';

/** Portico's record of used approvals, relative to the issuer; signed like every call of the app. */
export const APPROVED_ACTIONS_PATH = '/api/apps/approved-actions';

export type ExpectedAction =
  | { type?: 'portico_tool_call'; tool: string; arguments: Readonly<Record<string, unknown>> }
  | { type: 'portico_action'; description: string; target?: string; amount?: { value: string; currency: string } };

export interface ApprovedAction {
  /** The person who approved (the token's `sub`). */
  subject: string;
  /** The detail that covers the action, as the person saw it. */
  detail: Record<string, unknown>;
  /** The token's `jti`: recorded as used. */
  tokenId: string;
}

export class ApprovedActionRefusal extends Error {
  constructor(
    readonly code: 'invalid_token' | 'not_approved' | 'already_used',
    message: string,
  ) {
    super(message);
    this.name = 'ApprovedActionRefusal';
  }
}

/** The detail of a verified token's `authorization_details` that covers the expected action, or undefined. */
export function detailCovering(claims: JWTPayload, expected: ExpectedAction): Record<string, unknown> | undefined {
  const details = Array.isArray(claims.authorization_details) ? (claims.authorization_details as Record<string, unknown>[]) : [];
  if (expected.type === 'portico_action') {
    return details.find(
      (detail) =>
        detail?.type === 'portico_action' &&
        detail.description === expected.description &&
        (detail.target ?? undefined) === expected.target &&
        JSON.stringify(detail.amount ?? null) === JSON.stringify(expected.amount ? { value: expected.amount.value, currency: expected.amount.currency } : null),
    );
  }
  const digest = argumentsDigest(expected.arguments);
  return details.find((detail) => detail?.type === 'portico_tool_call' && detail.tool === expected.tool && detail.arguments_digest === digest);
}
