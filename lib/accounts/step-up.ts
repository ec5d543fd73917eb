// Step-up: a person proves again, for one decision, that they are at the keyboard. Only the strongest factor they
// have counts (a password someone phished must not stand in for the authenticator they also have): a passkey
// assertion with user verification, made for this very decision (phishing-resistant: bound to Portico's origin),
// else a TOTP code when they have an authenticator app, else the password. Recovery codes are for signing in, not
// for step-up.
//
// Both are throttled per account in PostgreSQL: the password by the sign-in throttle, codes by the second-factor
// throttle (counted first, taken back on success), so parallel guesses cannot pass either.
import type { Queryable } from '../db/client';
import { localized, type LocalizedText } from '../i18n/catalogs';
import { hitRateLimit, peekRateLimit, undoRateLimitHit } from '../rate-limit/fixed-window';
import { verifyTotpCode } from './second-factors';
import { parseAuthenticationResponse, passkeyAssertionOptions, passkeyRegistrationOptions, verifyPasskeyAssertion, type RelyingParty } from './passkeys';
import { secondFactorRequired } from './second-factor-policy';
import { SECOND_FACTOR_THROTTLE, secondFactorsOf } from './sign-in-second-step';
import { throttledPasswordCheck } from './throttled-password-check';
import type { User } from './users';
import { refusalOf } from '../refusals/refusal';
import { stepUpRefusal, type StepUpField } from './refusal-codes';

export type StepUpFactor = 'passkey' | 'totp' | 'password';

/** A step-up proof as a form sends it: the one field its factor asks for. */
export interface StepUpProof {
  password?: string;
  code?: string;
  /** A passkey assertion (JSON, as the browser gives it) made with the options stepUpPasskeyOptions gave. */
  passkey?: string;
}

/** The strongest factor this person has: what a step-up asks them for. */
export async function stepUpFactorOf(db: Queryable, userId: string): Promise<StepUpFactor> {
  const factors = await secondFactorsOf(db, userId);
  return factors.passkey ? 'passkey' : factors.totp ? 'totp' : 'password';
}

/** Options for a passkey step-up bound to one decision (`context`: what is being decided), user verification required. */
export function stepUpPasskeyOptions(db: Queryable, rp: RelyingParty, input: { user: User; context: string }) {
  return passkeyAssertionOptions(db, rp, { purpose: 'step_up', userId: input.user.id, context: input.context });
}

/**
 * Checks a step-up proof with the person's strongest factor; answers the factor used (for the audit) or throws a
 * step-up refusal naming the field (`fields`: the form's name for each, where the page calls them otherwise). A TOTP code is accepted once (a code seen by someone else is already spent).
 */
export async function verifyStepUp(
  db: Queryable,
  atRestKey: Uint8Array,
  input: {
    user: User;
    proof: StepUpProof;
    ip: string;
    rp: RelyingParty;
    context: string;
    /** The organization the decision is about: where its policy requires a second factor, a password alone is refused. */
    orgId?: string | null;
    /**
     * The change adds a second factor: with none yet, the password is all the person has, and a policy requiring a
     * factor asks for exactly this change, so it is not refused for being a password alone.
     */
    addsFactor?: boolean;
    /** The form field each proof's refusal stands next to, where the page names them otherwise (default: the proof's). */
    fields?: Readonly<Record<StepUpField, string>>;
  },
): Promise<StepUpFactor> {
  const refusal = (text: LocalizedText, field: StepUpField) => stepUpRefusal(text, input.fields?.[field] ?? field);
  const factor = await stepUpFactorOf(db, input.user.id);
  if (factor === 'password' && !input.addsFactor && (await secondFactorRequired(db, input.user.id, input.orgId ?? undefined))) {
    throw refusal(localized('account.refusals.secondFactorRequired'), 'password');
  }
  if (factor === 'passkey') {
    if (!input.proof.passkey) throw refusal(localized('account.refusals.confirmWithPasskey'), 'passkey');
    try {
      await verifyPasskeyAssertion(db, input.rp, { purpose: 'step_up', userId: input.user.id, context: input.context, response: parseAuthenticationResponse(input.proof.passkey) });
    } catch (error) {
      // The passkey's own refusal, as the step-up's: next to the passkey.
      const passkey = refusalOf(error, 'passkey');
      if (passkey) throw stepUpRefusal(passkey.text ?? passkey.message, input.fields?.passkey ?? 'passkey');
      throw error;
    }
    return 'passkey';
  }
  if (factor === 'totp') {
    const code = input.proof.code?.trim();
    if (!code) throw refusal(localized('account.refusals.typeCurrentCode'), 'code');
    await hitRateLimit(db, SECOND_FACTOR_THROTTLE, input.user.id);
    if ((await peekRateLimit(db, SECOND_FACTOR_THROTTLE, input.user.id)).count > SECOND_FACTOR_THROTTLE.limit) {
      throw refusal(localized('account.refusals.tooManyWrongCodes'), 'code');
    }
    if (!(await verifyTotpCode(db, atRestKey, input.user, code))) throw refusal(localized('account.refusals.wrongCode'), 'code');
    await undoRateLimitHit(db, SECOND_FACTOR_THROTTLE, input.user.id);
    return 'totp';
  }
  const password = input.proof.password;
  if (!password) throw refusal(localized('account.refusals.typePasswordAgain'), 'password');
  const check = await throttledPasswordCheck(db, input.user.email, password, input.ip);
  if (!check.ok || check.user.id !== input.user.id) throw refusal(localized('account.refusals.wrongPassword'), 'password');
  return 'password';
}

/** What a step-up for a change of the person's own sign-in factors is bound to. */
export const accountFactorsContext = (userId: string) => `account_factors:${userId}`;

/**
 * Options to add a passkey, after step-up with the strongest factor the person has (a passkey, with user verification,
 * made for this; else their authenticator's code; else their password): a stolen session with a phished password
 * cannot add an authenticator of its own where a stronger factor exists.
 */
export async function passkeyRegistrationAfterStepUp(db: Queryable, atRestKey: Uint8Array, rp: RelyingParty, input: { user: User; proof: StepUpProof; ip: string; fields?: Readonly<Record<StepUpField, string>> }) {
  await verifyStepUp(db, atRestKey, { ...input, rp, context: accountFactorsContext(input.user.id), addsFactor: true });
  return passkeyRegistrationOptions(db, rp, input.user);
}
