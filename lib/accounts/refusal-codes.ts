// lib/accounts's refusals (issue 57): their codes, the status each answers with at every door, and the factories
// the rules throw. One family (lib/refusals/refusal.ts); the `domain` says whose rule refused.
import type { LocalizedText } from '../i18n/catalogs';
import { codeOfStatus, Refusal } from '../refusals/refusal';

type Words = string | LocalizedText;

export const ACCOUNT_REFUSAL_STATUS = {
  // An organization operation (authorizeOrgOperation): not one the person belongs to (not revealed), or their role
  // does not allow it.
  not_found: 404,
  forbidden: 403,
  // A new organization's name or slug, or too many new organizations.
  invalid_organization: 400,
  // A step-up refused (the field says which proof).
  step_up: 403,
  // A second factor's enrollment, confirmation or removal refused (the field says which).
  invalid_second_factor: 400,
  // A passkey's options, assertion or registration refused (the passkey endpoints answer it as such).
  invalid_request: 400,
  // An invitation as asked conflicts with a rule (a member already, an unknown team, too many this hour).
  conflict: 409,
} as const satisfies Record<string, number>;

export type OperationRefusalReason = 'not_found' | 'forbidden';
export type StepUpField = 'password' | 'code' | 'passkey';
export type SecondFactorField = 'code' | 'currentPassword' | 'stepUpCode' | 'name' | 'form';

/**
 * A domain command's refusal the person can act on (a conflict, a rule): every door shows its words — the console
 * next to the form, REST as `status` with `code` (default: from the status), an MCP tool as its error text.
 */
export function commandRefusal(status: 400 | 404 | 409, text: Words, code?: string): Refusal {
  return new Refusal({ domain: 'command', status, code: code ?? codeOfStatus(status), text });
}

/** The organization is not one the person belongs to (not revealed), or their role does not allow the operation. */
export function operationRefusal(reason: OperationRefusalReason, text: LocalizedText): Refusal {
  return new Refusal({ domain: 'operation', status: ACCOUNT_REFUSAL_STATUS[reason], code: reason, text });
}

/** A new organization refused, next to its field (`form`: the whole form). */
export function organizationRefusal(text: LocalizedText, field: 'name' | 'slug' | 'form' = 'form'): Refusal {
  return new Refusal({ domain: 'organization', status: ACCOUNT_REFUSAL_STATUS.invalid_organization, code: 'invalid_organization', text, field });
}

/** A step-up refused; `field` is the proof the words belong next to (or the form's name for it). */
export function stepUpRefusal(text: Words, field: StepUpField | (string & {})): Refusal {
  return new Refusal({ domain: 'step_up', status: ACCOUNT_REFUSAL_STATUS.step_up, code: 'step_up', text, field });
}

/** A second factor refused, with the form field it is about (the code, or the password typed again). */
export function secondFactorRefusal(text: Words, field: SecondFactorField = 'code'): Refusal {
  return new Refusal({ domain: 'second_factor', status: ACCOUNT_REFUSAL_STATUS.invalid_second_factor, code: 'invalid_second_factor', text, field });
}

/** A passkey assertion or registration refused; the words are for the person, never the library's. */
export function passkeyRefusal(text: Words): Refusal {
  return new Refusal({ domain: 'passkey', status: ACCOUNT_REFUSAL_STATUS.invalid_request, code: 'invalid_request', text });
}

/** A rule that refuses an invitation as asked (shown to the admin). */
export function invitationRefusal(text: LocalizedText): Refusal {
  return new Refusal({ domain: 'invitation', status: ACCOUNT_REFUSAL_STATUS.conflict, code: 'conflict', text });
}
