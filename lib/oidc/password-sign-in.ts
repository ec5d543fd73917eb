// Finishing a login interaction with a password (or a passkey, without one): throttling, the password check, membership of the app's
// organization, then the interaction result. The sign-in card's route handler is a thin caller of this.
import type Provider from 'oidc-provider';
import type { Database } from '../db/client';
import { isActiveMember } from '../organizations/memberships';
import { requiredPasswordChangePath } from '../accounts/self-service';
import { recordSignInRefusal, recordSignInSuccess, type SignInContext } from '../accounts/sign-in-events';
import { throttledPasswordCheck } from '../accounts/factors/throttled-password-check';
import { ACR_MFA, ACR_PASSWORD, AMR_PASSWORD, beginSecondStep, requestsMfa, stepAfterPassword } from '../accounts/sign-in-second-step';
import { passwordlessSignIn, type PasskeyAssertion } from '../accounts/factors/passkeys';
import { type RelyingParty } from '../accounts/factors/factor';
import type { User } from '../accounts/users';
import { isUuid } from '../util/uuid';
import { findInteraction, finishInteraction, interactionPath } from './interactions';
import { findSignInTarget } from './sign-in-target';
import type { SignInErrorCode } from './sign-in-errors';

export { LOGIN_THROTTLE } from '../accounts/factors/throttled-password-check';

export type PasswordSignInOutcome =
  | { kind: 'continue'; location: string }
  /** Someone else once knew this password: Portico's page to choose a new one (no code is issued before). */
  | { kind: 'change_password'; location: string }
  | { kind: 'refused'; error: SignInErrorCode }
  /** The password was right and the account has a second factor: the card asks for it (the cookie carries `token`). */
  | { kind: 'second_factor'; token: string }
  /** The password was right, a second factor is required (policy, `acr_values`) and there is none: set up first. */
  | { kind: 'enroll'; token: string }
  | { kind: 'expired' };

export interface PasswordSignInInput {
  provider: Provider;
  db: Database;
  cookieHeader: string | null;
  uid: string;
  /** The password form's fields, or "Sign in with a passkey"'s answer (then no second step: the passkey verified the person). */
  credential: { kind: 'password'; email: string; password: string } | { kind: 'passkey'; answer: string; rp: RelyingParty };
  clientIp: string;
  issuer: string;
}

export async function completePasswordSignIn(input: PasswordSignInInput): Promise<PasswordSignInOutcome> {
  const { provider, db, cookieHeader, uid } = input;
  const lookup = await findInteraction(provider, cookieHeader, uid);
  if (!lookup.ok || lookup.interaction.prompt.name !== 'login') return { kind: 'expired' };

  // Nobody is asked for a password for a request that would be refused anyway (the card shows why instead).
  const target = await findSignInTarget(db, provider, input.issuer, lookup.interaction.params);
  if (target.kind !== 'app_client' && target.kind !== 'mcp_client') return { kind: 'expired' };

  const org = target.context.org;
  const events: SignInContext = {
    surface: 'app',
    ip: input.clientIp,
    orgId: org?.id ?? null,
    // Portico's own API stands in the context as an app named 'portico': not an app row.
    appId: isUuid(target.context.app.id) ? target.context.app.id : null,
    clientId: String(lookup.interaction.params.client_id ?? '').slice(0, 200) || null,
    target: target.context.app.name,
  };
  const { credential } = input;
  let result: { user: User };
  let passkey: PasskeyAssertion | undefined;
  if (credential.kind === 'passkey') {
    passkey = await passwordlessSignIn(db, credential.rp, credential.answer);
    if (!passkey) return { kind: 'refused', error: 'passkey' };
    result = passkey;
  } else {
    const checked = await throttledPasswordCheck(db, credential.email, credential.password, input.clientIp, { signIn: true });
    if (!checked.ok) {
      await recordSignInRefusal(db, events, credential.email, checked);
      return { kind: 'refused', error: checked.reason };
    }
    result = checked;
  }

  // An app is for its organization's members; Portico's own API for anyone with an account (it checks roles).
  if (org && !(await isActiveMember(db, org.id, result.user.id))) {
    await recordSignInRefusal(db, events, result.user.email, { ok: false, reason: 'not_a_member' });
    return { kind: 'refused', error: 'not_a_member' };
  }
  // Someone else once knew this password: a new one first, then this same sign-in card again.
  if (result.user.passwordChangeRequired) return { kind: 'change_password', location: await requiredPasswordChangePath(db, result.user, interactionPath(uid)) };
  if (passkey) {
    await recordSignInSuccess(db, events, result.user);
    const location = await finishAppSignIn(provider, cookieHeader, uid, { accountId: result.user.id, amr: passkey.amr, acr: ACR_MFA, firstParty: target.kind === 'app_client' });
    return { kind: 'continue', location };
  }
  // The organization's policy (for Portico's own API: any of the person's organizations), or the app asking for a
  // second factor (acr_values), decides whether one must be used — or set up first.
  const step = await stepAfterPassword(db, result.user.id, { orgId: org?.id ?? null, mfaRequested: requestsMfa(lookup.interaction.params) });
  if (step !== 'none') {
    const token = await beginSecondStep(db, { userId: result.user.id, continuation: { surface: 'app', uid, firstParty: target.kind === 'app_client', events, ...(step === 'enroll' ? { enroll: true } : {}) } });
    return { kind: step, token };
  }
  await recordSignInSuccess(db, events, result.user);
  const location = await finishAppSignIn(provider, cookieHeader, uid, { accountId: result.user.id, amr: AMR_PASSWORD, acr: ACR_PASSWORD, firstParty: target.kind === 'app_client' });
  return { kind: 'continue', location };
}

/**
 * Ends the login step of an interaction with who signed in and how (RFC 8176 `amr`, Portico's `acr`, both in the ID
 * token). An app's own client is first-party: signing in is the consent (also when the app asked for
 * prompt=consent). Any other client goes on to the consent screen, where the person also says who acts.
 */
export function finishAppSignIn(provider: Provider, cookieHeader: string | null, uid: string, input: { accountId: string; amr: string[]; acr: string; firstParty: boolean }): Promise<string> {
  const login = { accountId: input.accountId, amr: input.amr, acr: input.acr };
  return finishInteraction(provider, cookieHeader, uid, input.firstParty ? { login, consent: {} } : { login });
}
