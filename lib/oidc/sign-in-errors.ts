// Product error codes of the sign-in card; the query string only selects a code, and the message comes from the
// catalogs (messages/*.json, signIn.errors). No text from a request is ever displayed.
import { DEFAULT_LOCALE, translator } from '../i18n/catalogs';

export const SIGN_IN_ERROR_CODES = ['invalid_credentials', 'account_disabled', 'invalid_request', 'throttled', 'not_a_member', 'passkey', 'sso_required'] as const;

export type SignInErrorCode = (typeof SIGN_IN_ERROR_CODES)[number];

export function isSignInErrorCode(value: unknown): value is SignInErrorCode {
  return typeof value === 'string' && (SIGN_IN_ERROR_CODES as readonly string[]).includes(value);
}

/** The message of a code in a language (English on the wire: error_description). */
export function signInErrorMessage(code: SignInErrorCode, locale: string = DEFAULT_LOCALE): string {
  return translator(locale, 'signIn')(`errors.${code}`);
}
