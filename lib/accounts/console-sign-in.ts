// Password sign-in to the console, throttled with the same per-account and per-IP counters as app sign-in.
import type { Database } from '../db/client';
import { LOGIN_THROTTLE } from '../oidc/password-sign-in';
import type { SignInErrorCode } from '../oidc/sign-in-errors';
import { hitRateLimit, peekRateLimit } from '../rate-limit/fixed-window';
import { createConsoleSession } from './console-sessions';
import { authenticateWithPassword, normalizeEmail } from './users';

export async function signInToConsole(
  db: Database,
  input: { email: string; password: string; ip: string; userAgent?: string },
): Promise<{ ok: true; token: string } | { ok: false; error: SignInErrorCode }> {
  const account = normalizeEmail(input.email);
  const [accountState, ipState] = await Promise.all([
    peekRateLimit(db, LOGIN_THROTTLE.account, account),
    peekRateLimit(db, LOGIN_THROTTLE.ip, input.ip),
  ]);
  if (accountState.limited || ipState.limited) return { ok: false, error: 'throttled' };
  const result = await authenticateWithPassword(db, input.email, input.password);
  if (!result.ok) {
    await Promise.all([hitRateLimit(db, LOGIN_THROTTLE.account, account), hitRateLimit(db, LOGIN_THROTTLE.ip, input.ip)]);
    return { ok: false, error: result.reason };
  }
  return { ok: true, token: await createConsoleSession(db, result.user, { ip: input.ip, userAgent: input.userAgent }) };
}
