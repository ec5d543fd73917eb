// lib/organizations's refusals (issue 57): an organization operation's, a domain command's, a new organization's and
// an invitation's; their codes, the status each answers with at every door, and the factories the rules throw. One
// family (lib/refusals/refusal.ts); the `domain` says whose rule refused.
import type { LocalizedText } from '../i18n/catalogs';
import { codeOfStatus, Refusal, type RefusalText } from '../refusals/refusal';

export const ORGANIZATION_REFUSAL_STATUS = {
  // An organization operation (authorizeOrgOperation): not one the person belongs to (not revealed), or their role
  // does not allow it.
  not_found: 404,
  forbidden: 403,
  // A new organization's name or slug, or too many new organizations.
  invalid_organization: 400,
  // An invitation as asked conflicts with a rule (a member already, an unknown team, too many this hour).
  conflict: 409,
} as const satisfies Record<string, number>;

export type OperationRefusalReason = 'not_found' | 'forbidden';

/**
 * A domain command's refusal the person can act on (a conflict, a rule): every door shows its words — the console
 * next to the form, REST as `status` with `code` (default: from the status), an MCP tool as its error text.
 */
export function commandRefusal(status: 400 | 404 | 409, text: RefusalText, code?: string): Refusal {
  return new Refusal({ domain: 'command', status, code: code ?? codeOfStatus(status), text });
}

/** The organization is not one the person belongs to (not revealed), or their role does not allow the operation. */
export function operationRefusal(reason: OperationRefusalReason, text: LocalizedText): Refusal {
  return new Refusal({ domain: 'operation', status: ORGANIZATION_REFUSAL_STATUS[reason], code: reason, text });
}

/** A new organization refused, next to its field (`form`: the whole form). */
export function organizationRefusal(text: LocalizedText, field: 'name' | 'slug' | 'form' = 'form'): Refusal {
  return new Refusal({ domain: 'organization', status: ORGANIZATION_REFUSAL_STATUS.invalid_organization, code: 'invalid_organization', text, field });
}

/** A rule that refuses an invitation as asked (shown to the admin). */
export function invitationRefusal(text: LocalizedText): Refusal {
  return new Refusal({ domain: 'invitation', status: ORGANIZATION_REFUSAL_STATUS.conflict, code: 'conflict', text });
}
