// lib/approvals's refusals (issue 57): the broker's and the central's codes, the status each answers with whichever
// endpoint reports it, and the factories the rules throw. One family (lib/refusals/refusal.ts).
import { Refusal, type RefusalText } from '../refusals/refusal';

export const APPROVAL_REFUSAL_STATUS = {
  invalid_request: 400,
  queue_full: 429,
  not_found: 404,
  not_pending: 409,
  expired: 409,
  fingerprint_mismatch: 409,
  not_eligible: 403,
  // A grant that is not active any more is, for whoever revokes it, no active grant.
  already_revoked: 404,
  // Not revealed: a request one may not decide looks like one that does not exist.
  not_authorized: 404,
  // Refused as asked (the status every code not named above had): a decider's second vote, one's own request.
  already_decided_by_you: 400,
  own_request: 400,
  // The central's own: its session ended (the page asks the operator to sign in again), a spent decision proof, a
  // missing or wrong step-up.
  session: 401,
  nonce: 409,
  step_up: 403,
  // An operator must be a member of the app's organization.
  not_member: 400,
  // An approval policy that names what the organization lacks, or a quorum that cannot be reached.
  invalid_policy: 400,
} as const satisfies Record<string, number>;

export type ApprovalRefusalCode =
  | 'invalid_request'
  | 'queue_full'
  | 'not_found'
  | 'not_pending'
  | 'expired'
  | 'fingerprint_mismatch'
  | 'not_eligible'
  | 'already_revoked'
  | 'not_authorized'
  | 'already_decided_by_you'
  | 'own_request';
export type CentralRefusalCode = 'session' | 'nonce' | 'step_up';

/** A code's status (400 for a code no table names). */
export function approvalRefusalStatus(code: string): number {
  return (APPROVAL_REFUSAL_STATUS as Record<string, number>)[code] ?? 400;
}

/**
 * A refusal of the broker. Its words as a catalog key (approvals.refusals.…): the central and the MCP tools show
 * them in the reader's language; `message` stays English (logs, CLI, REST).
 */
export function approvalRefusal(code: ApprovalRefusalCode, text: RefusalText): Refusal {
  return new Refusal({ domain: 'approvals', status: approvalRefusalStatus(code), code, text });
}

/** A refusal only the central gives: its session ended, a decision proof spent or foreign, a step-up missing or wrong. */
export function centralRefusal(code: CentralRefusalCode, text: RefusalText): Refusal {
  return new Refusal({ domain: 'central', status: approvalRefusalStatus(code), code, text });
}

/** Only a member of the organization can be an app's operator. */
export function operatorRefusal(text: RefusalText): Refusal {
  return new Refusal({ domain: 'operators', status: APPROVAL_REFUSAL_STATUS.not_member, code: 'not_member', text });
}

/** An approval policy refused, naming the form field it is about (the console shows it there). */
export function policyRefusal(field: string, text: RefusalText): Refusal {
  return new Refusal({ domain: 'command', status: APPROVAL_REFUSAL_STATUS.invalid_policy, code: 'invalid_policy', text, field });
}
