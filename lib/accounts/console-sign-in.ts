// Password sign-in to the console, under the same per-account and per-IP throttle as app sign-in. Recorded in the
// installation's audit chain; an account whose password someone else once knew goes to a forced change instead.
import type { Database } from '../db/client';
import type { SignInErrorCode } from '../oidc/sign-in-errors';
import { createConsoleSession } from './console-sessions';
import { requiredPasswordChangePath } from './self-service';
import { recordSignInRefusal, recordSignInSuccess } from './sign-in-events';
import { throttledPasswordCheck } from './factors/throttled-password-check';
import { beginSecondStep, stepAfterPassword } from './sign-in-second-step';
import { passwordlessSignIn } from './factors/passkeys';
import { type RelyingParty } from './factors/factor';

export type ConsoleSignInResult =
  | { kind: 'signed_in'; token: string }
  | { kind: 'refused'; error: SignInErrorCode }
  | { kind: 'change_password'; path: string }
  /** The password was right and the account has a second factor: the login page asks for it (cookie: `token`). */
  | { kind: 'second_factor'; token: string }
  /** The password was right, a policy requires a second factor and there is none: it is set up first (cookie: `token`). */
  | { kind: 'enroll'; token: string };

/** Console pages a sign-in never continues to (the sign-in itself, the session endpoints). */
const NOT_A_RETURN = /^\/console\/(login|session)(\/|$)/;

/**
 * Where the console sign-in continues: the console page the person asked for (a deep link, a confirmation page) —
 * only a path of this origin under /console/, resolved and re-serialized so nothing else survives (no scheme, host,
 * `//`, backslash or dot segments: no open redirect). Anything else is the console.
 */
export function consoleReturnPath(value: unknown): string {
  if (typeof value !== 'string' || value.length > 512 || !value.startsWith('/console/') || value.includes('\\') || value.startsWith('//')) return '/console';
  let url: URL;
  try {
    url = new URL(value, 'http://portico.invalid');
  } catch {
    return '/console';
  }
  if (url.origin !== 'http://portico.invalid' || !url.pathname.startsWith('/console/') || NOT_A_RETURN.test(url.pathname) || url.pathname.includes('//')) return '/console';
  return `${url.pathname}${url.search}`;
}

export async function signInToConsole(db: Database, input: { email: string; password: string; ip: string; userAgent?: string; next?: string }): Promise<ConsoleSignInResult> {
  const context = { surface: 'console' as const, ip: input.ip };
  const result = await throttledPasswordCheck(db, input.email, input.password, input.ip, { signIn: true });
  if (!result.ok) {
    await recordSignInRefusal(db, context, input.email, result);
    return { kind: 'refused', error: result.reason };
  }
  if (result.user.passwordChangeRequired) return { kind: 'change_password', path: await requiredPasswordChangePath(db, result.user, '/console/login') };
  const next = await stepAfterPassword(db, result.user.id, {});
  if (next !== 'none') {
    const token = await beginSecondStep(db, { userId: result.user.id, continuation: { surface: 'console', next: consoleReturnPath(input.next), events: context, ...(next === 'enroll' ? { enroll: true } : {}) } });
    return { kind: next, token };
  }
  await recordSignInSuccess(db, context, result.user);
  return { kind: 'signed_in', token: await createConsoleSession(db, result.user, { ip: input.ip, userAgent: input.userAgent }) };
}

/**
 * "Sign in with a passkey" to the console: no email, no password; the passkey (with user verification) says who and
 * counts as two factors. A refusal never says why beyond "did not sign you in".
 */
export async function signInToConsoleWithPasskey(db: Database, rp: RelyingParty, input: { answer: string; ip: string; userAgent?: string }): Promise<ConsoleSignInResult> {
  const context = { surface: 'console' as const, ip: input.ip };
  const assertion = await passwordlessSignIn(db, rp, input.answer);
  if (!assertion) return { kind: 'refused', error: 'passkey' };
  const { user } = assertion;
  if (user.passwordChangeRequired) return { kind: 'change_password', path: await requiredPasswordChangePath(db, user, '/console/login') };
  await recordSignInSuccess(db, context, user);
  return { kind: 'signed_in', token: await createConsoleSession(db, user, { ip: input.ip, userAgent: input.userAgent }) };
}
