// Product error codes of the sign-in card and the message each shows. The query string only selects a code;
// no text from a request is ever displayed.
export const SIGN_IN_ERRORS = {
  invalid_credentials: 'The email or password is incorrect.',
  account_disabled: 'This account is disabled. Contact your organization’s administrator.',
  invalid_request: 'Enter your email and password.',
  throttled: 'Too many failed sign-in attempts. Wait up to 30 minutes, then try again.',
  not_a_member: 'Your account is not a member of the organization that publishes this app. Ask one of its administrators to add you.',
  passkey: 'That passkey did not sign you in (it may have been removed, or the request expired). Try again, or use your email and password.',
} as const;

export type SignInErrorCode = keyof typeof SIGN_IN_ERRORS;

export function isSignInErrorCode(value: unknown): value is SignInErrorCode {
  return typeof value === 'string' && Object.hasOwn(SIGN_IN_ERRORS, value);
}
