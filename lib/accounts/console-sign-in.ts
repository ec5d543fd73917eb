// Password sign-in to the console, under the same per-account and per-IP throttle as app sign-in.
import type { Database } from '../db/client';
import type { SignInErrorCode } from '../oidc/sign-in-errors';
import { createConsoleSession } from './console-sessions';
import { throttledPasswordCheck } from './throttled-password-check';

export async function signInToConsole(
  db: Database,
  input: { email: string; password: string; ip: string; userAgent?: string },
): Promise<{ ok: true; token: string } | { ok: false; error: SignInErrorCode }> {
  const result = await throttledPasswordCheck(db, input.email, input.password, input.ip);
  if (!result.ok) return { ok: false, error: result.reason };
  return { ok: true, token: await createConsoleSession(db, result.user, { ip: input.ip, userAgent: input.userAgent }) };
}
