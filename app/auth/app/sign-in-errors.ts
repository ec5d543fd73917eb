// Messages the sign-in card may show: the query string only selects one of these by code.
export const SIGN_IN_ERRORS = {
  invalid_credentials: 'The email or password is incorrect.',
  account_disabled: 'This account is disabled. Contact your organization’s administrator.',
  invalid_request: 'Enter your email and password.',
} as const;

export type SignInErrorCode = keyof typeof SIGN_IN_ERRORS;

/** oidc-provider's interaction ids are nanoids. */
export function isInteractionUid(value: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(value);
}
