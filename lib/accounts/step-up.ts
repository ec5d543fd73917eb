// Step-up: a person proves again, for one decision, that they are at the keyboard. Only the strongest factor they
// have counts (a password someone phished must not stand in for the authenticator they also have): a passkey
// assertion with user verification, made for this very decision (phishing-resistant: bound to Portico's origin),
// else a TOTP code when they have an authenticator app, else the password. Recovery codes are for signing in, not
// for step-up.
//
// Both are throttled per account in PostgreSQL: the password by the sign-in throttle, codes by the second-factor
// throttle (counted first, taken back on success), so parallel guesses cannot pass either.
import type { Queryable } from '../db/client';
import { localized, textIn, type LocalizedText } from '../i18n/catalogs';
import { hitRateLimit, peekRateLimit, undoRateLimitHit } from '../rate-limit/fixed-window';
import { verifyTotpCode } from './second-factors';
import { parseAuthenticationResponse, passkeyAssertionOptions, PasskeyRefusal, passkeyRegistrationOptions, verifyPasskeyAssertion, type RelyingParty } from './passkeys';
import { secondFactorRequired } from './second-factor-policy';
import { SECOND_FACTOR_THROTTLE, secondFactorsOf } from './sign-in-second-step';
import { throttledPasswordCheck } from './throttled-password-check';
import type { User } from './users';

export type StepUpFactor = 'passkey' | 'totp' | 'password';

/** A step-up proof as a form sends it: the one field its factor asks for. */
export interface StepUpProof {
  password?: string;
  code?: string;
  /** A passkey assertion (JSON, as the browser gives it) made with the options stepUpPasskeyOptions gave. */
  passkey?: string;
}

/**
 * A step-up refused; `field` is the form field the message belongs next to. Its words: a catalog key (`text`, shown
 * in the person's language where the refusal is shown), `message` its English.
 */
export class StepUpRefusal extends Error {
  readonly text?: LocalizedText;
  constructor(
    message: string | LocalizedText,
    readonly field: 'password' | 'code' | 'passkey',
  ) {
    super(typeof message === 'string' ? message : textIn(message));
    if (typeof message !== 'string') this.text = message;
    this.name = 'StepUpRefusal';
  }
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
 * StepUpRefusal naming the field. A TOTP code is accepted once (a code seen by someone else is already spent).
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
  },
): Promise<StepUpFactor> {
  const factor = await stepUpFactorOf(db, input.user.id);
  if (factor === 'password' && !input.addsFactor && (await secondFactorRequired(db, input.user.id, input.orgId ?? undefined))) {
    throw new StepUpRefusal(localized('account.refusals.secondFactorRequired'), 'password');
  }
  if (factor === 'passkey') {
    if (!input.proof.passkey) throw new StepUpRefusal(localized('account.refusals.confirmWithPasskey'), 'passkey');
    try {
      await verifyPasskeyAssertion(db, input.rp, { purpose: 'step_up', userId: input.user.id, context: input.context, response: parseAuthenticationResponse(input.proof.passkey) });
    } catch (error) {
      if (error instanceof PasskeyRefusal) throw new StepUpRefusal(error.text ?? error.message, 'passkey');
      throw error;
    }
    return 'passkey';
  }
  if (factor === 'totp') {
    const code = input.proof.code?.trim();
    if (!code) throw new StepUpRefusal(localized('account.refusals.typeCurrentCode'), 'code');
    await hitRateLimit(db, SECOND_FACTOR_THROTTLE, input.user.id);
    if ((await peekRateLimit(db, SECOND_FACTOR_THROTTLE, input.user.id)).count > SECOND_FACTOR_THROTTLE.limit) {
      throw new StepUpRefusal(localized('account.refusals.tooManyWrongCodes'), 'code');
    }
    if (!(await verifyTotpCode(db, atRestKey, input.user, code))) throw new StepUpRefusal(localized('account.refusals.wrongCode'), 'code');
    await undoRateLimitHit(db, SECOND_FACTOR_THROTTLE, input.user.id);
    return 'totp';
  }
  const password = input.proof.password;
  if (!password) throw new StepUpRefusal(localized('account.refusals.typePasswordAgain'), 'password');
  const check = await throttledPasswordCheck(db, input.user.email, password, input.ip);
  if (!check.ok || check.user.id !== input.user.id) throw new StepUpRefusal(localized('account.refusals.wrongPassword'), 'password');
  return 'password';
}

/** What a step-up for a change of the person's own sign-in factors is bound to. */
export const accountFactorsContext = (userId: string) => `account_factors:${userId}`;

/**
 * Options to add a passkey, after step-up with the strongest factor the person has (a passkey, with user verification,
 * made for this; else their authenticator's code; else their password): a stolen session with a phished password
 * cannot add an authenticator of its own where a stronger factor exists.
 */
export async function passkeyRegistrationAfterStepUp(db: Queryable, atRestKey: Uint8Array, rp: RelyingParty, input: { user: User; proof: StepUpProof; ip: string }) {
  await verifyStepUp(db, atRestKey, { ...input, rp, context: accountFactorsContext(input.user.id), addsFactor: true });
  return passkeyRegistrationOptions(db, rp, input.user);
}
