// What a new password must be, after NIST SP 800-63B-4 §3.1.1.2: long enough for the factors it stands beside, no
// composition rules, no forced expiry, and never a value an attacker tries first (a common password, the account's
// email, the organization's name). The guessability check is zxcvbn-ts with its common-password dictionary.
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';
import { localized, textIn, type LocalizedText } from '../../i18n/catalogs';

import { MIN_PASSWORD_LENGTH_SINGLE_FACTOR, MIN_PASSWORD_LENGTH_WITH_SECOND_FACTOR } from './password-length';

export { MIN_PASSWORD_LENGTH_SINGLE_FACTOR, MIN_PASSWORD_LENGTH_WITH_SECOND_FACTOR };
/** NIST asks for at least 64; the cap only bounds the KDF's input. */
export const MAX_PASSWORD_LENGTH = 256;

let estimator: ZxcvbnFactory | undefined;
function strengthEstimator(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });
  return estimator;
}

export interface PasswordContext {
  email: string;
  /** Names of the organizations the account belongs to or is joining. */
  organizationNames?: string[];
  hasSecondFactor?: boolean;
}

/** A refusal's words: `text` (a catalog key) for the person's language, `message` its English. */
export type PasswordVerdict = { ok: true } | { ok: false; message: string; text: LocalizedText };

function refused(text: LocalizedText): PasswordVerdict {
  return { ok: false, message: textIn(text), text };
}

export function minimumPasswordLength(hasSecondFactor = false): number {
  return hasSecondFactor ? MIN_PASSWORD_LENGTH_WITH_SECOND_FACTOR : MIN_PASSWORD_LENGTH_SINGLE_FACTOR;
}

/** Length in characters as a person counts them (code points), not UTF-16 units. */
function characters(value: string): number {
  return [...value].length;
}

export function checkNewPassword(password: string, context: PasswordContext): PasswordVerdict {
  const minimum = minimumPasswordLength(context.hasSecondFactor);
  const length = characters(password);
  if (length < minimum) return refused(localized('selfService.passwordRules.tooShort', { minimum, length }));
  if (length > MAX_PASSWORD_LENGTH) return refused(localized('selfService.passwordRules.tooLong', { maximum: MAX_PASSWORD_LENGTH }));
  const folded = password.trim().toLowerCase();
  const email = context.email.trim().toLowerCase();
  if (folded === email || folded === email.split('@')[0]) return refused(localized('selfService.passwordRules.isEmail'));
  for (const name of context.organizationNames ?? []) {
    if (folded === name.trim().toLowerCase()) return refused(localized('selfService.passwordRules.isOrganizationName'));
  }
  // Alone, score 3 of 4 ("safely unguessable": 10^8 guesses do not find it); beside a second factor, which stops
  // online guessing by itself, score 2 (not in the first 10^6 guesses: no common password, no trivial pattern).
  const result = strengthEstimator().check(password, [email, email.split('@')[0] ?? '', ...(context.organizationNames ?? [])]);
  if (result.score < (context.hasSecondFactor ? 2 : 3)) {
    return refused(localized('selfService.passwordRules.tooGuessable'));
  }
  return { ok: true };
}
