// The second step of a sign-in, for every surface (an app's sign-in card, the console, the central): after the
// password, a person with an authenticator types a code from it (or a recovery code) before anything is issued.
//
// The state between the two steps lives in PostgreSQL (pending_sign_ins), found by the SHA-256 of a random token the
// browser holds in an HttpOnly cookie: any instance continues the sign-in. Five minutes, five tries (counted in one
// conditional UPDATE, so parallel guesses cannot exceed them), used once (a conditional DELETE). Where the sign-in
// continues is stored with it and never taken from the request.
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client';
import { localized } from '../i18n/catalogs';
import { passkeys, pendingSignIns, totpFactors, users } from '../db/schema';
import { afterFactorChange } from './factors/factor-change';
import { confirmSignInTotp, newSignInTotpSecret, verifyTotpCode } from './factors/totp';
import { useRecoveryCode } from './factors/recovery-codes';
import type { AccountMailContext } from './password-reset';
import { secondFactorRequired } from './factors/second-factor-policy';
import { parseAuthenticationResponse, passkeyAssertionOrNone, passkeyRegistrationOptions, registerOwnPasskey, type PasskeyAssertion } from './factors/passkeys';
import { type RelyingParty } from './factors/factor';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { hitRateLimit, peekRateLimit, undoRateLimitHit } from '../rate-limit/fixed-window';
import { recordSignInRefusal, type SignInContext } from './sign-in-events';
import { findUserById, type User } from './users';
import { secondFactorRefusal } from './refusal-codes';
import { SECOND_FACTOR_THROTTLE } from './factors/factor';

export const SECOND_STEP_COOKIE = 'portico_second_step';
export const SECOND_STEP_SECONDS = 5 * 60;
export const SECOND_STEP_ATTEMPTS = 5;

/** RFC 8176 authentication method references, and the two levels Portico tells apps about (`acr`). */
export const ACR_PASSWORD = 'urn:portico:acr:pwd';
export const ACR_MFA = 'urn:portico:acr:mfa';
export const AMR_PASSWORD = ['pwd'];

/** True when an authorization request asks for a second factor (`acr_values` naming Portico's MFA level, OIDC Core §3.1.2.1). */
export function requestsMfa(params: Record<string, unknown>): boolean {
  return typeof params.acr_values === 'string' && params.acr_values.split(' ').includes(ACR_MFA);
}
export const AMR_PASSWORD_AND_OTP = ['pwd', 'otp', 'mfa'];

/** The methods of a sign-in's first step (a password, or `fed` and what a company's identity provider asserted). */
function firstFactorOf(continuation: Pick<SecondStepContinuation, 'firstFactor'> | undefined): string[] {
  return Array.isArray(continuation?.firstFactor) && continuation.firstFactor.every((method) => typeof method === 'string') ? continuation.firstFactor : AMR_PASSWORD;
}

/** RFC 8176 `amr` after a second step: the first step's methods, the factor's, and `mfa`. */
function withSecondFactor(continuation: Pick<SecondStepContinuation, 'firstFactor'> | undefined, method: string): string[] {
  return [...new Set([...firstFactorOf(continuation), method, 'mfa'])];
}

/** Where a sign-in continues once both steps are done. */
export type SecondStepContinuation = (
  /** `next`: where the console sign-in continues (consoleReturnPath); the console when absent. */
  | { surface: 'console'; next?: string; events: SignInContext }
  | { surface: 'central'; next: string; events: SignInContext }
  /** An app's sign-in card: the interaction, and whether its client is first-party (signing in is the consent). */
  | { surface: 'app'; uid: string; firstParty: boolean; events: SignInContext }
) & {
  /**
   * The person must have a second factor (an organization's policy, or an app asking for `acr_values=…:mfa`) and has
   * none: they set one up (/account/two-step-setup) before the sign-in continues.
   */
  enroll?: boolean;
  /** The methods of the first step when it was not a password (`fed`, … after a company's identity provider). */
  firstFactor?: string[];
  /**
   * An existing account proved its password to be linked to a company identity provider's subject: the link is made
   * only once the whole sign-in is done, the second factor included (lib/identity/federation/core.ts completeFederatedLink).
   */
  federatedLink?: { connectionId: string; issuer: string; subject: string; groups?: string[] };
};

/** Where a person who must set up a second factor does it, between their password and the rest of the sign-in. */
export const TWO_STEP_SETUP_PATH = '/account/two-step-setup';

/** How long a person who must set up a second factor has for it (scanning a code takes longer than typing one). */
export const ENROLLMENT_SECONDS = 15 * 60;

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/** The second factors a person has: a confirmed authenticator app, passkeys. */
export async function secondFactorsOf(db: Queryable, userId: string): Promise<{ totp: boolean; passkey: boolean }> {
  const [row] = await db
    .select({
      totp: sql<boolean>`exists (select 1 from ${totpFactors} where ${totpFactors.userId} = ${userId} and ${totpFactors.confirmedAt} is not null)`,
      passkey: sql<boolean>`exists (select 1 from ${passkeys} where ${passkeys.userId} = ${userId})`,
    })
    .from(users)
    .where(eq(users.id, userId));
  return { totp: row?.totp === true, passkey: row?.passkey === true };
}

/** True when the person has a second factor (an authenticator app or a passkey): their sign-ins take two steps. */
export async function hasSecondFactor(db: Queryable, userId: string): Promise<boolean> {
  const factors = await secondFactorsOf(db, userId);
  return factors.totp || factors.passkey;
}

/**
 * What follows a right password: the second step (the person has a factor), setting one up first (a policy of the
 * organization — or of any of their organizations for the console and the central — or the app's `acr_values`
 * requires one, and they have none), or nothing.
 */
export async function stepAfterPassword(db: Queryable, userId: string, requirement: { orgId?: string | null; mfaRequested?: boolean }): Promise<'none' | 'second_factor' | 'enroll'> {
  if (await hasSecondFactor(db, userId)) return 'second_factor';
  if (requirement.mfaRequested || (await secondFactorRequired(db, userId, requirement.orgId ?? undefined))) return 'enroll';
  return 'none';
}

/** Records that the password was right and the second step is due; returns the browser's token. */
export async function beginSecondStep(db: Queryable, input: { userId: string; continuation: SecondStepContinuation }): Promise<string> {
  const seconds = input.continuation.enroll ? ENROLLMENT_SECONDS : SECOND_STEP_SECONDS;
  const token = randomBytes(32).toString('base64url');
  await db.insert(pendingSignIns).values({
    tokenHash: sha256(token),
    userId: input.userId,
    continuation: input.continuation as unknown as Record<string, unknown>,
    expiresAt: sql`now() + make_interval(secs => ${seconds})`,
  });
  return token;
}

/**
 * Ends an enrollment sign-in: once the person has set up a second factor (with its first code), the pending sign-in
 * is used (once) and continues as after both steps.
 */
/** The authenticator secret (encrypted) of this enrollment sign-in: made on first view, kept with the pending row. */
export async function enrollmentSecret(db: Queryable, atRestKey: Uint8Array, token: string): Promise<string | undefined> {
  const tokenHash = sha256(token);
  const candidate = await newSignInTotpSecret(atRestKey);
  // Set once (the first view); later views read the same secret. Conditional, so two tabs agree on one.
  await db
    .update(pendingSignIns)
    .set({ continuation: sql`${pendingSignIns.continuation} || jsonb_build_object('totpSecret', ${candidate}::text)` })
    .where(and(eq(pendingSignIns.tokenHash, tokenHash), gt(pendingSignIns.expiresAt, sql`now()`), sql`${pendingSignIns.continuation}->>'enroll' = 'true'`, sql`${pendingSignIns.continuation}->>'totpSecret' is null`));
  const [row] = await db.select({ continuation: pendingSignIns.continuation }).from(pendingSignIns).where(and(eq(pendingSignIns.tokenHash, tokenHash), gt(pendingSignIns.expiresAt, sql`now()`)));
  const secret = row?.continuation.totpSecret;
  return typeof secret === 'string' ? secret : undefined;
}

/**
 * Turns on the authenticator of this enrollment sign-in with its first code, and marks the sign-in as enrolled (only
 * then may it continue), in one transaction; answers the recovery codes, once.
 */
export async function enrollAtSignIn(db: Database, atRestKey: Uint8Array, input: { token: string | undefined; code: string; ip: string; mail: AccountMailContext; now?: number }): Promise<string[]> {
  if (!input.token || input.token.length > 128) throw secondFactorRefusal(SIGN_IN_ENDED, 'form');
  const tokenHash = sha256(input.token);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(pendingSignIns)
      .where(and(eq(pendingSignIns.tokenHash, tokenHash), gt(pendingSignIns.expiresAt, sql`now()`)))
      .for('update');
    const continuation = row?.continuation as (SecondStepContinuation & { totpSecret?: string; enrolled?: boolean }) | undefined;
    const user = row ? await findUserById(tx, row.userId) : undefined;
    if (!row || !continuation?.enroll || continuation.enrolled || typeof continuation.totpSecret !== 'string' || !user || user.disabledAt) {
      throw secondFactorRefusal(SIGN_IN_ENDED, 'form');
    }
    await refuseUnlessFirstFactor(tx, user.id, undefined);
    const codes = await confirmSignInTotp(tx, atRestKey, { user, secretEncrypted: continuation.totpSecret, code: input.code, now: input.now });
    await afterFactorChange(tx, { user, ip: input.ip, mail: input.mail, change: 'added', factor: { kind: 'totp' }, during: 'sign_in' });
    await markEnrolled(tx, row.id, 'totp', withSecondFactor(continuation, 'otp'));
    return codes;
  });
}

const SIGN_IN_ENDED = localized('account.refusals.signInEnded');
const FACTOR_EXISTS = localized('account.refusals.factorExists');

type EnrolledFactor = 'totp' | 'passkey';

/**
 * The one rule of enrollment at sign-in: it sets up the account's first factor, never one beside another. A sign-in
 * that proved only the password may not add a factor next to one the account has (that takes step-up with the
 * factor it has, on the account page): otherwise a stolen password would turn into a second factor of the thief's.
 * `enrolled` is the factor this very sign-in has added, which does not count against it. Called in the transaction
 * that locks the pending sign-in, for both kinds of factor, and again when the sign-in finishes.
 */
async function firstFactorOnly(db: Queryable, userId: string, enrolled: EnrolledFactor | undefined): Promise<boolean> {
  const [factors] = await db
    .select({
      passkeys: sql<number>`(select count(*)::int from ${passkeys} where ${passkeys.userId} = ${userId})`,
      totp: sql<boolean>`exists (select 1 from ${totpFactors} where ${totpFactors.userId} = ${userId} and ${totpFactors.confirmedAt} is not null)`,
    })
    .from(sql`(select 1) as one`);
  if (!factors) return false;
  const others = Number(factors.passkeys) - (enrolled === 'passkey' ? 1 : 0) + (factors.totp && enrolled !== 'totp' ? 1 : 0);
  return others === 0 && (enrolled !== 'passkey' || Number(factors.passkeys) === 1) && (enrolled !== 'totp' || factors.totp);
}

async function refuseUnlessFirstFactor(db: Queryable, userId: string, enrolled: EnrolledFactor | undefined): Promise<void> {
  if (!(await firstFactorOnly(db, userId, enrolled))) throw secondFactorRefusal(FACTOR_EXISTS, 'form');
}

/** Only this sign-in's own factor continues it; the methods it proved are what the sign-in then says (`amr`). */
async function markEnrolled(db: Queryable, pendingId: string, factor: EnrolledFactor, amr: string[]): Promise<void> {
  await db
    .update(pendingSignIns)
    .set({ continuation: sql`${pendingSignIns.continuation} || jsonb_build_object('enrolled', true, 'enrolledFactor', ${factor}::text, 'enrolledAmr', ${JSON.stringify(amr)}::jsonb)` })
    .where(eq(pendingSignIns.id, pendingId));
}

/** A passkey ceremony made for this enrollment sign-in only (the account page's ceremonies do not fit here, nor these there). */
const enrollmentContext = (token: string) => `enrollment:${sha256(token)}`;

/** The person of an enrollment sign-in that is still open and not yet enrolled. */
async function openEnrollment(db: Queryable, token: string | undefined): Promise<{ user: User; token: string }> {
  const pending = await pendingSecondStep(db, token);
  if (!pending || !token || !pending.continuation.enroll || (pending.continuation as { enrolled?: boolean }).enrolled) throw secondFactorRefusal(SIGN_IN_ENDED, 'form');
  return { user: pending.user, token };
}

/** Options to create a passkey as the second factor this sign-in requires (instead of an authenticator app). */
export async function enrollmentPasskeyOptions(db: Queryable, rp: RelyingParty, token: string | undefined): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { user, token: open } = await openEnrollment(db, token);
  return passkeyRegistrationOptions(db, rp, user, enrollmentContext(open));
}

/**
 * Registers the passkey of this enrollment sign-in and marks the sign-in enrolled, in one transaction (the pending row
 * locked, so a second registration or a TOTP confirmation racing it finds it enrolled and fails); answers the recovery
 * codes, once.
 */
export async function enrollPasskeyAtSignIn(
  db: Database,
  rp: RelyingParty,
  input: { token: string | undefined; name: string; response: RegistrationResponseJSON; ip: string; mail: AccountMailContext },
): Promise<string[]> {
  const { user, token } = await openEnrollment(db, input.token);
  const { recoveryCodes } = await registerOwnPasskey(db, rp, {
    user,
    name: input.name,
    response: input.response,
    ip: input.ip,
    mail: input.mail,
    context: enrollmentContext(token),
    within: async (tx, registered) => {
      const [row] = await tx
        .select()
        .from(pendingSignIns)
        .where(and(eq(pendingSignIns.tokenHash, sha256(token)), gt(pendingSignIns.expiresAt, sql`now()`)))
        .for('update');
      const continuation = row?.continuation as { enroll?: boolean; enrolled?: boolean } | undefined;
      if (!row || row.userId !== user.id || !continuation?.enroll || continuation.enrolled) throw secondFactorRefusal(SIGN_IN_ENDED, 'form');
      // Only as the account's first factor (the passkey just registered in this transaction being the one).
      await refuseUnlessFirstFactor(tx, user.id, 'passkey');
      await markEnrolled(tx, row.id, 'passkey', [...firstFactorOf(row.continuation as SecondStepContinuation), ...registered.amr]);
    },
  });
  // The first factor of the account: recovery codes were made with it (none only if codes existed already).
  return recoveryCodes ?? [];
}

export async function finishEnrollment(
  db: Queryable,
  token: string | undefined,
  /** Where it is being continued: an app's interaction only under its own path (the console and central elsewhere). */
  at: { surface: 'app'; uid: string } | { surface: 'console_or_central' },
): Promise<{ user: User; continuation: SecondStepContinuation; amr: string[] } | undefined> {
  const pending = await pendingSecondStep(db, token);
  // Only a factor set up through this very sign-in finishes it (not one added elsewhere meanwhile), and only while it
  // is the account's one factor (firstFactorOnly): a factor added beside it meanwhile ends this sign-in.
  const enrolled = pending?.continuation as { enroll?: boolean; enrolled?: boolean; enrolledFactor?: unknown } | undefined;
  const factor = enrolled?.enrolledFactor === 'passkey' || enrolled?.enrolledFactor === 'totp' ? enrolled.enrolledFactor : undefined;
  if (!pending || !token || !enrolled?.enroll || !enrolled.enrolled || !factor || !(await firstFactorOnly(db, pending.user.id, factor))) return undefined;
  const { continuation } = pending;
  if (at.surface === 'app' ? continuation.surface !== 'app' || continuation.uid !== at.uid : continuation.surface === 'app') return undefined;
  const [used] = await db.delete(pendingSignIns).where(eq(pendingSignIns.tokenHash, sha256(token))).returning({ id: pendingSignIns.id });
  if (!used) return undefined;
  const enrolledAmr = (continuation as { enrolledAmr?: unknown }).enrolledAmr;
  return { user: pending.user, continuation: pending.continuation, amr: Array.isArray(enrolledAmr) && enrolledAmr.every((method) => typeof method === 'string') ? enrolledAmr : AMR_PASSWORD_AND_OTP };
}

/** The sign-in waiting for this browser's second step, if it is still open. */
export async function pendingSecondStep(db: Queryable, token: string | undefined): Promise<{ user: User; continuation: SecondStepContinuation; attemptsLeft: number } | undefined> {
  if (!token || token.length > 128) return undefined;
  const [row] = await db
    .select()
    .from(pendingSignIns)
    .where(and(eq(pendingSignIns.tokenHash, sha256(token)), gt(pendingSignIns.expiresAt, sql`now()`), lt(pendingSignIns.attempts, SECOND_STEP_ATTEMPTS)));
  const user = row ? await findUserById(db, row.userId) : undefined;
  if (!row || !user || user.disabledAt) return undefined;
  return { user, continuation: row.continuation as unknown as SecondStepContinuation, attemptsLeft: SECOND_STEP_ATTEMPTS - row.attempts };
}

export type SecondFactorMethod = 'totp' | 'recovery_code' | 'passkey';

/** What a passkey made for this pending sign-in is bound to (its token's hash): it serves no other sign-in. */
export const secondStepPasskeyContext = (token: string) => `second_step:${sha256(token)}`;

/**
 * The second step's form, as every surface posts it: `method` (totp, recovery_code or passkey) and `code` (the
 * code, or the passkey's answer as JSON). Undefined when it is not one (the page then says the code was wrong).
 */
export function secondFactorFormInput(form: { get(name: string): unknown } | undefined): { code: string | undefined; method: SecondFactorMethod; retry: string } {
  const raw = form?.get('method');
  const method: SecondFactorMethod = raw === 'recovery_code' ? 'recovery_code' : raw === 'passkey' ? 'passkey' : 'totp';
  const retry = method === 'recovery_code' ? '&method=recovery_code' : '';
  const code = form?.get('code');
  const limit = method === 'passkey' ? 16 * 1024 : 64;
  return { code: typeof code === 'string' && code !== '' && code.length <= limit ? code : undefined, method, retry };
}

export type SecondStepOutcome =
  | { kind: 'verified'; user: User; continuation: SecondStepContinuation; amr: string[]; method: SecondFactorMethod }
  | { kind: 'wrong'; attemptsLeft: number }
  /** Too many wrong codes for this account lately: the sign-in ends, and the next waits for the window to pass. */
  | { kind: 'throttled' }
  /** Expired, used, unknown, or out of tries: the person signs in again from the password. */
  | { kind: 'expired' };

export async function completeSecondStep(
  db: Queryable,
  atRestKey: Uint8Array,
  input: { token: string | undefined; code: string; method: SecondFactorMethod; ip: string; now?: number; rp?: RelyingParty },
): Promise<SecondStepOutcome> {
  if (!input.token || input.token.length > 128) return { kind: 'expired' };
  const tokenHash = sha256(input.token);
  // One try counted before the code is checked, in one statement: parallel guesses cannot pass the limit.
  const [row] = await db
    .update(pendingSignIns)
    .set({ attempts: sql`${pendingSignIns.attempts} + 1` })
    .where(and(eq(pendingSignIns.tokenHash, tokenHash), gt(pendingSignIns.expiresAt, sql`now()`), lt(pendingSignIns.attempts, SECOND_STEP_ATTEMPTS)))
    .returning();
  if (!row) return { kind: 'expired' };
  const user = await findUserById(db, row.userId);
  const continuation = row.continuation as unknown as SecondStepContinuation;
  if (!user || user.disabledAt) {
    await db.delete(pendingSignIns).where(eq(pendingSignIns.id, row.id));
    return { kind: 'expired' };
  }
  await hitRateLimit(db, SECOND_FACTOR_THROTTLE, user.id);
  if ((await peekRateLimit(db, SECOND_FACTOR_THROTTLE, user.id)).count > SECOND_FACTOR_THROTTLE.limit) {
    await db.delete(pendingSignIns).where(eq(pendingSignIns.id, row.id));
    return { kind: 'throttled' };
  }
  let amr = withSecondFactor(continuation, 'otp');
  let accepted: boolean;
  if (input.method === 'passkey') {
    const assertion = input.rp ? await passkeyOfSecondStep(db, input.rp, user, input.token, input.code) : undefined;
    accepted = assertion !== undefined;
    if (assertion) amr = withSecondFactor(continuation, assertion.amr[0]!);
  } else {
    accepted = input.method === 'totp' ? await verifyTotpCode(db, atRestKey, user, input.code, input.now) : await useRecoveryCode(db, user.id, input.code);
  }
  if (accepted) await undoRateLimitHit(db, SECOND_FACTOR_THROTTLE, user.id);
  if (!accepted) {
    await recordSignInRefusal(db, { ...continuation.events, ip: input.ip }, user.email, { ok: false, reason: 'second_factor' });
    if (row.attempts >= SECOND_STEP_ATTEMPTS) await db.delete(pendingSignIns).where(eq(pendingSignIns.id, row.id));
    return { kind: 'wrong', attemptsLeft: SECOND_STEP_ATTEMPTS - row.attempts };
  }
  // Used once: of two requests with right codes, one continues the sign-in.
  const [used] = await db.delete(pendingSignIns).where(eq(pendingSignIns.id, row.id)).returning({ id: pendingSignIns.id });
  if (!used) return { kind: 'expired' };
  return { kind: 'verified', user, continuation, amr, method: input.method };
}

/** A passkey assertion made for this pending sign-in (its options came from the second-step cookie), or undefined. */
async function passkeyOfSecondStep(db: Queryable, rp: RelyingParty, user: User, token: string, answer: string): Promise<PasskeyAssertion | undefined> {
  return passkeyAssertionOrNone(db, rp, { purpose: 'second_factor', userId: user.id, context: secondStepPasskeyContext(token), response: parseAuthenticationResponse(answer) });
}

/** The cookie that carries the token between the two steps: HttpOnly, SameSite=Lax, five minutes (fifteen to set one up). */
export function secondStepCookie(token: string, secure: boolean, seconds = SECOND_STEP_SECONDS): string {
  return `${SECOND_STEP_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${seconds}${secure ? '; Secure' : ''}`;
}

export function clearedSecondStepCookie(secure: boolean): string {
  return `${SECOND_STEP_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`;
}
