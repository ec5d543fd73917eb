// The length a new password needs, after NIST SP 800-63B-4 §3.1.1.2: its own module (no dictionary) so that a form in
// the browser states the same numbers the server enforces (lib/accounts/factors/password-policy.ts).

/** When the password is the only factor (NIST: 15). */
export const MIN_PASSWORD_LENGTH_SINGLE_FACTOR = 15;
/** When the person also has a second factor (NIST: 8). */
export const MIN_PASSWORD_LENGTH_WITH_SECOND_FACTOR = 8;
