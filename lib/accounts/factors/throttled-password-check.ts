// A password check under the login throttle, shared by app sign-in and console sign-in.
// The attempt is counted first, atomically, and only then is the password checked: parallel guesses cannot all slip
// in before any of them is counted. A successful attempt is taken back, so only failures add up.
import type { Queryable } from '../../db/client';
import { recordSignInFailure } from '../../observability/metrics';
import { hitRateLimit, peekRateLimit, undoRateLimitHit, type RateLimitRule } from '../../rate-limit/fixed-window';
import { ssoRequiredFor } from '../../identity/sso-required';
import { authenticateWithPassword, normalizeEmail, type PasswordLoginResult } from '../users';
import { localized } from '../../i18n/catalogs';
import type { Factor } from './factor';

/** Failed attempts allowed per 15 minutes (with a look-back of up to 30), per account (any email string, existing or not) and per client IP. */
export const LOGIN_THROTTLE: { account: RateLimitRule; ip: RateLimitRule } = {
  account: { name: 'login:account', limit: 10, windowSeconds: 15 * 60 },
  ip: { name: 'login:ip', limit: 50, windowSeconds: 15 * 60, perClientNetwork: true },
};

export type ThrottledPasswordResult = PasswordLoginResult | { ok: false; reason: 'throttled'; firstInWindow: boolean } | { ok: false; reason: 'sso_required' };

/**
 * `signIn`: the password is to sign in (an app's card, the console, the central), where a connection that requires
 * single sign-on refuses it for its domains (lib/identity/sso-required.ts) — after a right password only. A step-up
 * or a change of the password itself checks it without that rule.
 */
export async function throttledPasswordCheck(db: Queryable, email: string, password: string, clientIp: string, options: { signIn?: boolean } = {}): Promise<ThrottledPasswordResult> {
  const account = normalizeEmail(email);
  await Promise.all([hitRateLimit(db, LOGIN_THROTTLE.account, account), hitRateLimit(db, LOGIN_THROTTLE.ip, clientIp)]);
  const [accountState, ipState] = await Promise.all([
    peekRateLimit(db, LOGIN_THROTTLE.account, account),
    peekRateLimit(db, LOGIN_THROTTLE.ip, clientIp),
  ]);
  // Over the limit, the password is not even checked: a throttled attempt costs no KDF run and reveals nothing.
  if (accountState.count > LOGIN_THROTTLE.account.limit || ipState.count > LOGIN_THROTTLE.ip.limit) {
    // The audit log records a throttle once per window, not every refused guess (a flood would flood it too).
    const firstInWindow = accountState.count === LOGIN_THROTTLE.account.limit + 1 || ipState.count === LOGIN_THROTTLE.ip.limit + 1;
    recordSignInFailure('throttled');
    return { ok: false, reason: 'throttled', firstInWindow };
  }

  const result = await authenticateWithPassword(db, email, password);
  if (result.ok) {
    await Promise.all([undoRateLimitHit(db, LOGIN_THROTTLE.account, account), undoRateLimitHit(db, LOGIN_THROTTLE.ip, clientIp)]);
    if (options.signIn && (await ssoRequiredFor(db, result.user))) return { ok: false, reason: 'sso_required' };
  } else {
    recordSignInFailure('wrong_credentials');
  }
  return result;
}

/** Step-up with the password, when the person has nothing stronger: throttled like a sign-in. */
export const passwordFactor: Factor = {
  kind: 'password',
  async proveStepUp(attempt) {
    const password = attempt.proof.password;
    if (!password) throw attempt.refuse(localized('account.refusals.typePasswordAgain'), 'password');
    const check = await throttledPasswordCheck(attempt.db, attempt.user.email, password, attempt.ip);
    if (!check.ok || check.user.id !== attempt.user.id) throw attempt.refuse(localized('account.refusals.wrongPassword'), 'password');
  },
};
