// Passkeys (WebAuthn Level 3) with @simplewebauthn/server: a person registers several, names them and removes them;
// a passkey signs them in without a password (discoverable credentials, user verification required), serves as the
// second step after a password, and as step-up for decisions.
//
// The relying party is the issuer: RP ID = its host name, the only origin accepted = its origin (WebAuthn §5.1.4.1,
// §7.1 step 9). Every ceremony's challenge lives in PostgreSQL (webauthn_challenges) and is consumed by one DELETE …
// RETURNING matching its purpose, its person and its context, so an assertion made for one sign-in, confirmation or
// decision serves no other, and a response is accepted once. The signature counter only grows (a conditional UPDATE),
// so a cloned authenticator shows itself (WebAuthn §6.1.1).
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database, Queryable } from '../../db/client';
import { localized } from '../../i18n/catalogs';
import { passkeys, recoveryCodes, webauthnChallenges } from '../../db/schema';
import type { AccountMailContext } from '../password-reset';
import { afterFactorChange } from './factor-change';
import { replaceRecoveryCodes } from './recovery-codes';
import { findUserById, type User } from '../users';
import { refusalOf } from '../../refusals/refusal';
import { passkeyRefusal, secondFactorRefusal } from '../refusal-codes';
import type { Factor, RelyingParty } from './factor';

export const WEBAUTHN_CHALLENGE_SECONDS = 5 * 60;
export const MAX_PASSKEYS = 10;

/** The relying party: Portico's issuer. */

export function relyingPartyOf(issuer: string): RelyingParty {
  const url = new URL(issuer);
  return { rpID: url.hostname, origin: url.origin, name: 'Portico' };
}

export type CeremonyPurpose = 'sign_in' | 'second_factor' | 'step_up';

export interface PasskeySummary {
  id: string;
  name: string;
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export async function listPasskeys(db: Queryable, userId: string): Promise<PasskeySummary[]> {
  return db
    .select({ id: passkeys.id, name: passkeys.name, deviceType: passkeys.deviceType, backedUp: passkeys.backedUp, createdAt: passkeys.createdAt, lastUsedAt: passkeys.lastUsedAt })
    .from(passkeys)
    .where(eq(passkeys.userId, userId))
    .orderBy(passkeys.createdAt);
}

async function storeChallenge(db: Queryable, challenge: string, purpose: CeremonyPurpose | 'register', userId: string | null, context: string): Promise<void> {
  await db.insert(webauthnChallenges).values({ challenge, purpose, userId, context, expiresAt: sql`now() + make_interval(secs => ${WEBAUTHN_CHALLENGE_SECONDS})` });
  // A person's open ceremonies are bounded (the newest 20 stay): asking again and again cannot grow the table.
  if (userId) {
    await db.execute(sql`
      delete from ${webauthnChallenges} where ${webauthnChallenges.userId} = ${userId} and ${webauthnChallenges.challenge} in (
        select ${webauthnChallenges.challenge} from ${webauthnChallenges} where ${webauthnChallenges.userId} = ${userId}
        order by ${webauthnChallenges.expiresAt} desc offset 20)`);
  }
}

/** The challenge a response answers (from its clientDataJSON), consumed if it was made for exactly this. */
async function consumeChallenge(db: Queryable, clientDataJSON: unknown, purpose: CeremonyPurpose | 'register', userId: string | null, context: string): Promise<string> {
  let challenge: unknown;
  try {
    challenge = (JSON.parse(Buffer.from(String(clientDataJSON), 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
  } catch {
    challenge = undefined;
  }
  if (typeof challenge !== 'string' || challenge.length > 128) throw passkeyRefusal(localized('account.refusals.passkeyAnswerUnreadable'));
  const [consumed] = await db
    .delete(webauthnChallenges)
    .where(
      and(
        eq(webauthnChallenges.challenge, challenge),
        eq(webauthnChallenges.purpose, purpose),
        userId ? eq(webauthnChallenges.userId, userId) : isNull(webauthnChallenges.userId),
        eq(webauthnChallenges.context, context),
        gt(webauthnChallenges.expiresAt, sql`now()`),
      ),
    )
    .returning({ challenge: webauthnChallenges.challenge });
  if (!consumed) throw passkeyRefusal(localized('account.refusals.passkeyRequestExpired'));
  return consumed.challenge;
}

const userHandle = (userId: string) => new Uint8Array(Buffer.from(userId.replaceAll('-', ''), 'hex'));

/**
 * Options for registering one more passkey of this person (discoverable, user verification required). Only through
 * passkeyRegistrationAfterStepUp (lib/accounts/factors/step-up.ts): a passkey is a whole sign-in and the strongest step-up, so
 * adding one needs the strongest factor the person has now; the challenge then carries that step-up to the
 * registration (five minutes, once).
 */
export async function passkeyRegistrationOptions(db: Queryable, rp: RelyingParty, user: User, context = ''): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await db.select({ credentialId: passkeys.credentialId, transports: passkeys.transports }).from(passkeys).where(eq(passkeys.userId, user.id));
  if (existing.length >= MAX_PASSKEYS) throw secondFactorRefusal(localized('account.refusals.tooManyPasskeys', { max: MAX_PASSKEYS }), 'form');
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.rpID,
    userName: user.email,
    userDisplayName: user.name,
    userID: userHandle(user.id),
    attestationType: 'none',
    excludeCredentials: existing.map((key) => ({ id: key.credentialId, transports: key.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  await storeChallenge(db, options.challenge, 'register', user.id, context);
  return options;
}

/** Parses a registration as a browser sends it (a JSON string); anything else is refused, never thrown as a 500. */
export function parseRegistrationResponse(value: unknown): RegistrationResponseJSON {
  if (typeof value !== 'string' || value.length > 32 * 1024) throw secondFactorRefusal(localized('account.refusals.registrationMissing'), 'form');
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw secondFactorRefusal(localized('account.refusals.registrationUnreadable'), 'form');
  }
  const candidate = parsed as Partial<RegistrationResponseJSON> | null;
  if (!candidate || typeof candidate.id !== 'string' || typeof candidate.response !== 'object' || candidate.response === null || typeof candidate.response.clientDataJSON !== 'string') {
    throw secondFactorRefusal(localized('account.refusals.notARegistration'), 'form');
  }
  return candidate as RegistrationResponseJSON;
}

/**
 * Registers a passkey for the person, answering a registration challenge made for exactly this person and context
 * (passkeyRegistrationOptions: the account page after step-up, or an enrollment sign-in), audited and mailed. When it
 * is their first second factor, recovery codes are made and returned, once. `within` runs in the same transaction
 * (an enrollment sign-in marks itself enrolled there, or the passkey is not kept).
 */
export async function registerOwnPasskey(
  db: Database,
  rp: RelyingParty,
  input: {
    user: User;
    name: string;
    response: RegistrationResponseJSON;
    ip: string;
    mail: AccountMailContext;
    context?: string;
    within?: (tx: Queryable, registered: { amr: string[] }) => Promise<void>;
  },
): Promise<{ recoveryCodes?: string[] }> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 64) throw secondFactorRefusal(localized('account.refusals.passkeyNameLength'), 'name');
  const expectedChallenge = await consumeChallenge(db, input.response?.response?.clientDataJSON, 'register', input.user.id, input.context ?? '');
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({ response: input.response, expectedChallenge, expectedOrigin: rp.origin, expectedRPID: rp.rpID, requireUserVerification: true });
  } catch {
    throw secondFactorRefusal(localized('account.refusals.browserAnswerFailed'), 'form');
  }
  if (!verified.verified) throw secondFactorRefusal(localized('account.refusals.browserAnswerFailed'), 'form');
  const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(passkeys)
      .values({
        userId: input.user.id,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        signCount: credential.counter,
        transports: credential.transports ?? [],
        name,
        deviceType: credentialDeviceType,
        backedUp: credentialBackedUp,
      })
      .onConflictDoNothing()
      .returning({ id: passkeys.id });
    if (inserted.length === 0) throw secondFactorRefusal(localized('account.refusals.passkeyRegisteredAlready'), 'form');
    // Registration required user verification: the new key was made and unlocked by the person just now.
    await input.within?.(tx, { amr: [credentialDeviceType === 'singleDevice' ? 'hwk' : 'swk', 'user', 'mfa'] });
    await afterFactorChange(tx, { user: input.user, ip: input.ip, mail: input.mail, change: 'added', factor: { kind: 'passkey', name, transports: credential.transports ?? [] } });
    const [anyCode] = await tx.select({ id: recoveryCodes.id }).from(recoveryCodes).where(eq(recoveryCodes.userId, input.user.id)).limit(1);
    return anyCode ? {} : { recoveryCodes: await replaceRecoveryCodes(tx, input.user.id) };
  });
}

/**
 * Options for an assertion. Passwordless sign-in names no person (the passkey says who); the second step and
 * step-up name the person and allow only their passkeys. User verification is required, except as a second step
 * after a password (there it only has to prove possession).
 */
export async function passkeyAssertionOptions(db: Queryable, rp: RelyingParty, input: { purpose: CeremonyPurpose; userId?: string; context?: string }): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allowed = input.userId ? await db.select({ id: passkeys.credentialId, transports: passkeys.transports }).from(passkeys).where(eq(passkeys.userId, input.userId)) : [];
  if (input.userId && allowed.length === 0) throw passkeyRefusal(localized('account.refusals.noPasskey'));
  const options = await generateAuthenticationOptions({
    rpID: rp.rpID,
    allowCredentials: allowed,
    userVerification: input.purpose === 'second_factor' ? 'preferred' : 'required',
  });
  await storeChallenge(db, options.challenge, input.purpose, input.userId ?? null, input.context ?? '');
  return options;
}

export interface PasskeyAssertion {
  user: User;
  passkeyId: string;
  /** RFC 8176: `hwk` (bound to one authenticator) or `swk` (synced), `user` (presence), `pin` style verification as `mfa`. */
  amr: string[];
  userVerified: boolean;
}

/** Parses an assertion as a browser sends it (a JSON string); anything else is refused, never thrown as a 500. */
export function parseAuthenticationResponse(value: unknown): AuthenticationResponseJSON {
  if (typeof value !== 'string' || value.length > 16 * 1024) throw passkeyRefusal(localized('account.refusals.assertionMissing'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw passkeyRefusal(localized('account.refusals.assertionNotJson'));
  }
  const candidate = parsed as Partial<AuthenticationResponseJSON> | null;
  if (!candidate || typeof candidate.id !== 'string' || typeof candidate.response !== 'object' || candidate.response === null || typeof candidate.response.clientDataJSON !== 'string') {
    throw passkeyRefusal(localized('account.refusals.notAnAssertion'));
  }
  return candidate as AuthenticationResponseJSON;
}

/**
 * Verifies an assertion made for this purpose (and person and context), consuming its challenge; answers who it
 * proves. Refuses a disabled account, a passkey of someone else, a counter that went backwards.
 */
export async function verifyPasskeyAssertion(
  db: Queryable,
  rp: RelyingParty,
  input: { purpose: CeremonyPurpose; userId?: string; context?: string; response: AuthenticationResponseJSON },
): Promise<PasskeyAssertion> {
  const expectedChallenge = await consumeChallenge(db, input.response.response?.clientDataJSON, input.purpose, input.userId ?? null, input.context ?? '');
  const [key] = await db
    .select()
    .from(passkeys)
    .where(and(eq(passkeys.credentialId, input.response.id), ...(input.userId ? [eq(passkeys.userId, input.userId)] : [])));
  if (!key) throw passkeyRefusal(input.userId ? localized('account.refusals.passkeyNotYours') : localized('account.refusals.passkeyNotRegistered'));
  const requireUserVerification = input.purpose !== 'second_factor';
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await verifyAuthenticationResponse({
      response: input.response,
      expectedChallenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      credential: { id: key.credentialId, publicKey: new Uint8Array(Buffer.from(key.publicKey, 'base64url')), counter: key.signCount, transports: key.transports },
      requireUserVerification,
    });
  } catch {
    throw passkeyRefusal(localized('account.refusals.passkeyAnswerFailed'));
  }
  if (!verified.verified) throw passkeyRefusal(localized('account.refusals.passkeyAnswerFailed'));
  const { newCounter, userVerified } = verified.authenticationInfo;
  // The counter only grows (both zero: the authenticator keeps none). Conditional, so two uses cannot both pass.
  const [used] = await db
    .update(passkeys)
    .set({ signCount: newCounter, lastUsedAt: sql`now()` })
    .where(and(eq(passkeys.id, key.id), or(and(eq(passkeys.signCount, 0), eq(sql`${newCounter}::bigint`, 0)), lt(passkeys.signCount, newCounter))))
    .returning({ id: passkeys.id });
  if (!used) throw passkeyRefusal(localized('account.refusals.counterBackwards'));
  const user = await findUserById(db, key.userId);
  if (!user || user.disabledAt) throw passkeyRefusal(localized('account.refusals.accountDisabled'));
  return { user, passkeyId: key.id, userVerified, amr: [key.deviceType === 'singleDevice' ? 'hwk' : 'swk', 'user', ...(userVerified ? ['mfa'] : [])] };
}

/** "Sign in with a passkey": the person the passkey proves, or undefined (any refusal: the form says "did not sign you in"). */
export async function passwordlessSignIn(db: Queryable, rp: RelyingParty, answer: string): Promise<PasskeyAssertion | undefined> {
  return passkeyAssertionOrNone(db, rp, { purpose: 'sign_in', response: parseAuthenticationResponse(answer) });
}

/** The assertion, or undefined when the passkey's answer is refused (where a page only says it did not work). */
export async function passkeyAssertionOrNone(...args: Parameters<typeof verifyPasskeyAssertion>): Promise<PasskeyAssertion | undefined> {
  try {
    return await verifyPasskeyAssertion(...args);
  } catch (error) {
    if (refusalOf(error, 'passkey')) return undefined;
    throw error;
  }
}

/** Step-up with a passkey: an assertion with user verification, made for this very decision (phishing-resistant). */
export const passkeyFactor: Factor = {
  kind: 'passkey',
  async proveStepUp(attempt) {
    if (!attempt.proof.passkey) throw attempt.refuse(localized('account.refusals.confirmWithPasskey'), 'passkey');
    try {
      await verifyPasskeyAssertion(attempt.db, attempt.rp, { purpose: 'step_up', userId: attempt.user.id, context: attempt.context, response: parseAuthenticationResponse(attempt.proof.passkey) });
    } catch (error) {
      // The passkey's own refusal, as the step-up's: next to the passkey.
      const passkey = refusalOf(error, 'passkey');
      if (passkey) throw attempt.refuse(passkey.text ?? passkey.message, 'passkey');
      throw error;
    }
  },
};
