// Step-up: a person proves again, for one decision, that they are at the keyboard. Only the strongest factor they
// have counts (a password someone phished must not stand in for the authenticator they also have): a passkey
// assertion with user verification, made for this very decision (phishing-resistant: bound to Portico's origin),
// else a TOTP code when they have an authenticator app, else the password. Recovery codes are for signing in, not
// for step-up.
//
// How each factor is proved is the factor's own (factor.ts: passkeys.ts, totp.ts, throttled-password-check.ts), each
// throttled per account in PostgreSQL: the password by the sign-in throttle, codes by the second-factor throttle.
import type { Queryable } from '../../db/client';
import { localized, type LocalizedText } from '../../i18n/catalogs';
import { stepUpRefusal, type StepUpField } from '../refusal-codes';
import { secondFactorsOf } from '../sign-in-second-step';
import type { User } from '../users';
import type { Factor, RelyingParty, StepUpFactor, StepUpProof } from './factor';
import { passkeyAssertionOptions, passkeyFactor, passkeyRegistrationOptions } from './passkeys';
import { secondFactorRequired } from './second-factor-policy';
import { passwordFactor } from './throttled-password-check';
import { totpFactor } from './totp';

/** How each factor proves the person (factor.ts): one per kind, in its own file. */
const FACTORS: Record<StepUpFactor, Factor> = { passkey: passkeyFactor, totp: totpFactor, password: passwordFactor };

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
  const refusal = (text: string | LocalizedText, field: StepUpField) => stepUpRefusal(text, input.fields?.[field] ?? field);
  const factor = await stepUpFactorOf(db, input.user.id);
  if (factor === 'password' && !input.addsFactor && (await secondFactorRequired(db, input.user.id, input.orgId ?? undefined))) {
    throw refusal(localized('account.refusals.secondFactorRequired'), 'password');
  }
  await FACTORS[factor].proveStepUp({ db, atRestKey, user: input.user, proof: input.proof, ip: input.ip, rp: input.rp, context: input.context, refuse: refusal });
  return factor;
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
