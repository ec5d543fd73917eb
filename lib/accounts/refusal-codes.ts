// lib/accounts's refusals (issue 57): a step-up's, a second factor's and a passkey's; their codes, the status each
// answers with at every door, and the factories the rules throw. One family (lib/refusals/refusal.ts); the `domain`
// says whose rule refused. An organization's refusals: lib/organizations/refusal-codes.ts.
import { Refusal, type RefusalText } from '../refusals/refusal';

export const ACCOUNT_REFUSAL_STATUS = {
  // A step-up refused (the field says which proof).
  step_up: 403,
  // A second factor's enrollment, confirmation or removal refused (the field says which).
  invalid_second_factor: 400,
  // A passkey's options, assertion or registration refused (the passkey endpoints answer it as such).
  invalid_request: 400,
} as const satisfies Record<string, number>;

export type StepUpField = 'password' | 'code' | 'passkey';
export type SecondFactorField = 'code' | 'currentPassword' | 'stepUpCode' | 'name' | 'form';

/** A step-up refused; `field` is the proof the words belong next to (or the form's name for it). */
export function stepUpRefusal(text: RefusalText, field: StepUpField | (string & {})): Refusal {
  return new Refusal({ domain: 'step_up', status: ACCOUNT_REFUSAL_STATUS.step_up, code: 'step_up', text, field });
}

/** A second factor refused, with the form field it is about (the code, or the password typed again). */
export function secondFactorRefusal(text: RefusalText, field: SecondFactorField = 'code'): Refusal {
  return new Refusal({ domain: 'second_factor', status: ACCOUNT_REFUSAL_STATUS.invalid_second_factor, code: 'invalid_second_factor', text, field });
}

/** A passkey assertion or registration refused; the words are for the person, never the library's. */
export function passkeyRefusal(text: RefusalText): Refusal {
  return new Refusal({ domain: 'passkey', status: ACCOUNT_REFUSAL_STATUS.invalid_request, code: 'invalid_request', text });
}
