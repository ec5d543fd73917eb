// An authenticator app (TOTP, RFC 6238, with otpauth): one of a person's second factors (the others: passkeys.ts;
// recovery codes stand in for them: recovery-codes.ts).
//
// - Enrollment is two steps: a secret is created (unconfirmed, encrypted at rest) and shown once as a QR code and as
//   text; it protects the account only after the person proves their authenticator has it with a first code.
//   Confirming creates the recovery codes, shown once.
// - A code is accepted at most once (RFC 6238 §5.2): its time step must be later than the last accepted one, checked
//   and recorded in one conditional UPDATE, so two concurrent uses of one code have one winner. One step of clock
//   drift either way is accepted (§6).
import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { Queryable } from '../../db/client';
import { localized } from '../../i18n/catalogs';
import type { User } from '../users';
import { passkeys, recoveryCodes, totpFactors } from '../../db/schema';
import { decryptAtRest, encryptAtRest } from '../../security/at-rest';
import { secondFactorRefusal } from '../refusal-codes';
import { replaceRecoveryCodes } from './recovery-codes';
import { hitRateLimit, peekRateLimit, undoRateLimitHit } from '../../rate-limit/fixed-window';
import { SECOND_FACTOR_THROTTLE, type Factor } from './factor';

export const TOTP_PERIOD_SECONDS = 30;

export const TOTP_DIGITS = 6;

/** RFC 6238 §6: accept the previous and the next time step too (clock drift). */
const TOTP_WINDOW = 1;

function totpOf(secretBase32: string, label: string): TOTP {
  return new TOTP({ issuer: 'Portico', label, algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

/** What a person types: digits, maybe with spaces. */
function normalizeCode(code: string): string | undefined {
  const digits = code.replace(/\s+/g, '');
  return /^\d{6}$/.test(digits) ? digits : undefined;
}

/** The time step a code matches now, if any. */
function matchingStep(totp: TOTP, code: string, now: number): number | undefined {
  const delta = totp.validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  return delta === null ? undefined : Math.floor(now / 1000 / TOTP_PERIOD_SECONDS) + delta;
}

export interface TotpEnrollment {
  /** The otpauth:// URI an authenticator app reads from the QR code. */
  uri: string;
  /** The same secret as text, for typing it in. */
  secret: string;
  /** A PNG QR code of the URI, as a data URL for an <img>. */
  qrCode: string;
}

/**
 * Starts (or restarts) a TOTP enrollment. Refused while a confirmed authenticator exists: it must be removed first,
 * with step-up, so that a stolen session cannot quietly replace a person's second factor.
 */
export async function startTotpEnrollment(db: Queryable, atRestKey: Uint8Array, user: { id: string; email: string }): Promise<TotpEnrollment> {
  const [current] = await db.select({ confirmedAt: totpFactors.confirmedAt }).from(totpFactors).where(eq(totpFactors.userId, user.id));
  if (current?.confirmedAt) throw secondFactorRefusal(localized('account.refusals.authenticatorExists'));
  const secret = new Secret({ size: 20 }).base32;
  const secretEncrypted = await encryptAtRest(secret, atRestKey);
  await db
    .insert(totpFactors)
    .values({ userId: user.id, secretEncrypted })
    .onConflictDoUpdate({ target: totpFactors.userId, set: { secretEncrypted, createdAt: sql`now()`, lastUsedStep: null }, where: isNull(totpFactors.confirmedAt) });
  const uri = totpOf(secret, user.email).toString();
  return { uri, secret, qrCode: await QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 1, scale: 5 }) };
}

/**
 * Confirms the enrollment with a first code from the authenticator and creates the recovery codes, returned once.
 * The step of that code counts as used.
 */
export async function confirmTotpEnrollment(
  db: Queryable,
  atRestKey: Uint8Array,
  user: { id: string; email: string },
  code: string,
  now = Date.now(),
): Promise<{ recoveryCodes: string[] }> {
  const typed = normalizeCode(code);
  if (!typed) throw secondFactorRefusal(localized('account.refusals.typeSixDigits'));
  const [pending] = await db.select().from(totpFactors).where(and(eq(totpFactors.userId, user.id), isNull(totpFactors.confirmedAt)));
  if (!pending) throw secondFactorRefusal(localized('account.refusals.noPendingAuthenticator'));
  const step = matchingStep(totpOf(await decryptAtRest(pending.secretEncrypted, atRestKey), user.email), typed, now);
  if (step === undefined) throw secondFactorRefusal(localized('account.refusals.wrongEnrollmentCode'));
  const confirmed = await db
    .update(totpFactors)
    .set({ confirmedAt: sql`now()`, lastUsedStep: step })
    .where(and(eq(totpFactors.userId, user.id), isNull(totpFactors.confirmedAt), eq(totpFactors.secretEncrypted, pending.secretEncrypted)))
    .returning({ userId: totpFactors.userId });
  if (confirmed.length === 0) throw secondFactorRefusal(localized('account.refusals.authenticatorReplaced'));
  return { recoveryCodes: await replaceRecoveryCodes(db, user.id) };
}

/** Checks a TOTP code of the person's confirmed authenticator; a code is accepted once. */
export async function verifyTotpCode(db: Queryable, atRestKey: Uint8Array, user: { id: string; email: string }, code: string, now = Date.now()): Promise<boolean> {
  const typed = normalizeCode(code);
  if (!typed) return false;
  const [factor] = await db.select().from(totpFactors).where(and(eq(totpFactors.userId, user.id), isNotNull(totpFactors.confirmedAt)));
  if (!factor) return false;
  const step = matchingStep(totpOf(await decryptAtRest(factor.secretEncrypted, atRestKey), user.email), typed, now);
  if (step === undefined) return false;
  const accepted = await db
    .update(totpFactors)
    .set({ lastUsedStep: step })
    .where(and(eq(totpFactors.userId, user.id), isNotNull(totpFactors.confirmedAt), or(isNull(totpFactors.lastUsedStep), lt(totpFactors.lastUsedStep, step))))
    .returning({ userId: totpFactors.userId });
  return accepted.length === 1;
}

/**
 * Removes the authenticator (the caller has asked for step-up), and the recovery codes with it when no passkey is
 * left that they stand in for.
 */
export async function removeTotp(db: Queryable, userId: string): Promise<boolean> {
  const removed = await db.delete(totpFactors).where(eq(totpFactors.userId, userId)).returning({ userId: totpFactors.userId });
  await db.delete(recoveryCodes).where(and(eq(recoveryCodes.userId, userId), sql`not exists (select 1 from ${passkeys} where ${passkeys.userId} = ${userId})`));
  return removed.length === 1;
}

/** The secret of an enrollment still waiting for its first code, to show again to its owner (it protects nothing yet). */
export async function pendingTotpEnrollment(db: Queryable, atRestKey: Uint8Array, user: { id: string; email: string }): Promise<TotpEnrollment | undefined> {
  const [pending] = await db.select().from(totpFactors).where(and(eq(totpFactors.userId, user.id), isNull(totpFactors.confirmedAt)));
  if (!pending) return undefined;
  const secret = await decryptAtRest(pending.secretEncrypted, atRestKey);
  const uri = totpOf(secret, user.email).toString();
  return { uri, secret, qrCode: await QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 1, scale: 5 }) };
}

/**
 * An authenticator secret for a sign-in that requires one (an organization's policy, an app's `acr_values`): kept
 * encrypted with that pending sign-in only (never in totp_factors until its first code), so a secret shown during
 * someone's sign-in can never reappear on the account page, and only that sign-in can finish with it.
 */
export async function newSignInTotpSecret(atRestKey: Uint8Array): Promise<string> {
  return encryptAtRest(new Secret({ size: 20 }).base32, atRestKey);
}

/** How a sign-in's secret is shown: QR code and text. */
export async function totpEnrollmentOf(secretEncrypted: string, atRestKey: Uint8Array, user: { email: string }): Promise<TotpEnrollment> {
  const secret = await decryptAtRest(secretEncrypted, atRestKey);
  const uri = totpOf(secret, user.email).toString();
  return { uri, secret, qrCode: await QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 1, scale: 5 }) };
}

/**
 * Turns on the authenticator of a sign-in's secret with its first code (refused when the account has a confirmed one
 * meanwhile): the factor, ten recovery codes (returned once), the audit event and the owner's notice, in the caller's
 * transaction.
 */
export async function confirmSignInTotp(
  tx: Queryable,
  atRestKey: Uint8Array,
  input: { user: User; secretEncrypted: string; code: string; now?: number },
): Promise<string[]> {
  const typed = normalizeCode(input.code);
  if (!typed) throw secondFactorRefusal(localized('account.refusals.typeSixDigits'));
  const step = matchingStep(totpOf(await decryptAtRest(input.secretEncrypted, atRestKey), input.user.email), typed, input.now ?? Date.now());
  if (step === undefined) throw secondFactorRefusal(localized('account.refusals.wrongEnrollmentCode'));
  const confirmed = await tx
    .insert(totpFactors)
    .values({ userId: input.user.id, secretEncrypted: input.secretEncrypted, confirmedAt: sql`now()`, lastUsedStep: step })
    .onConflictDoUpdate({ target: totpFactors.userId, set: { secretEncrypted: input.secretEncrypted, confirmedAt: sql`now()`, lastUsedStep: step, createdAt: sql`now()` }, where: isNull(totpFactors.confirmedAt) })
    .returning({ userId: totpFactors.userId });
  if (confirmed.length === 0) throw secondFactorRefusal(localized('account.refusals.authenticatorExistsSignIn'), 'form');
  // What follows (audit, notice, Shared Signals) is the caller's: afterFactorChange, beside the sign-in it continues.
  return replaceRecoveryCodes(tx, input.user.id);
}

/** Step-up with the authenticator's current code: throttled per account, and a code is accepted once. */
export const totpFactor: Factor = {
  kind: 'totp',
  async proveStepUp(attempt) {
    const code = attempt.proof.code?.trim();
    if (!code) throw attempt.refuse(localized('account.refusals.typeCurrentCode'), 'code');
    await hitRateLimit(attempt.db, SECOND_FACTOR_THROTTLE, attempt.user.id);
    if ((await peekRateLimit(attempt.db, SECOND_FACTOR_THROTTLE, attempt.user.id)).count > SECOND_FACTOR_THROTTLE.limit) {
      throw attempt.refuse(localized('account.refusals.tooManyWrongCodes'), 'code');
    }
    if (!(await verifyTotpCode(attempt.db, attempt.atRestKey, attempt.user, code))) throw attempt.refuse(localized('account.refusals.wrongCode'), 'code');
    await undoRateLimitHit(attempt.db, SECOND_FACTOR_THROTTLE, attempt.user.id);
  },
};
