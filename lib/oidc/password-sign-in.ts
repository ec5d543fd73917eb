// Finishing a login interaction with a password: throttling, the password check, membership of the app's
// organization, then the interaction result. The sign-in card's route handler is a thin caller of this.
import type Provider from 'oidc-provider';
import type { Database } from '../db/client';
import { isActiveMember } from '../accounts/memberships';
import { authenticateWithPassword, normalizeEmail } from '../accounts/users';
import { findAppSignInContext } from '../clients/app-context';
import { hitRateLimit, peekRateLimit, purgeExpiredRateLimits, type RateLimitRule } from '../rate-limit/fixed-window';
import { findInteraction, finishInteraction } from './interactions';
import type { SignInErrorCode } from './sign-in-errors';

/** Failed attempts allowed per 15 minutes. Per account (any email string, existing or not) and per client IP. */
export const LOGIN_THROTTLE: { account: RateLimitRule; ip: RateLimitRule } = {
  account: { name: 'login:account', limit: 10, windowSeconds: 15 * 60 },
  ip: { name: 'login:ip', limit: 50, windowSeconds: 15 * 60 },
};

export type PasswordSignInOutcome =
  | { kind: 'continue'; location: string }
  | { kind: 'refused'; error: SignInErrorCode }
  | { kind: 'expired' };

export interface PasswordSignInInput {
  provider: Provider;
  db: Database;
  cookieHeader: string | null;
  uid: string;
  email: string;
  password: string;
  clientIp: string;
}

export async function completePasswordSignIn(input: PasswordSignInInput): Promise<PasswordSignInOutcome> {
  const { provider, db, cookieHeader, uid } = input;
  const lookup = await findInteraction(provider, cookieHeader, uid);
  if (!lookup.ok || lookup.interaction.prompt.name !== 'login') return { kind: 'expired' };

  const account = normalizeEmail(input.email);
  const [accountState, ipState] = await Promise.all([
    peekRateLimit(db, LOGIN_THROTTLE.account, account),
    peekRateLimit(db, LOGIN_THROTTLE.ip, input.clientIp),
  ]);
  // Checked before the password: a throttled attempt costs no KDF run and reveals nothing.
  if (accountState.limited || ipState.limited) return { kind: 'refused', error: 'throttled' };

  const result = await authenticateWithPassword(db, input.email, input.password);
  if (!result.ok) {
    await Promise.all([hitRateLimit(db, LOGIN_THROTTLE.account, account), hitRateLimit(db, LOGIN_THROTTLE.ip, input.clientIp)]);
    if (Math.random() < 0.01) await purgeExpiredRateLimits(db);
    return { kind: 'refused', error: result.reason };
  }

  const context = await findAppSignInContext(db, String(lookup.interaction.params.client_id ?? ''));
  if (context?.org.id && !(await isActiveMember(db, context.org.id, result.user.id))) {
    return { kind: 'refused', error: 'not_a_member' };
  }

  // An app's own client is first-party: signing in is the consent (also when the app asked for prompt=consent).
  const login = { accountId: result.user.id };
  const location = await finishInteraction(provider, cookieHeader, uid, context?.clientKind === 'app' ? { login, consent: {} } : { login });
  return { kind: 'continue', location };
}
