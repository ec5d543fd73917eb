// The email a person typed into a sign-in form the server refused (wrong password, throttled, not a member): kept
// for the form they are sent back to, so they retype only the password. A plain form POST answered with a redirect
// cannot carry it otherwise, and the URL is the wrong place for it (logs, history, Referer).
// The cookie is HttpOnly, SameSite=Lax, scoped to the one form's path, and lives two minutes: enough to retry, short
// enough that the next person at a shared computer is not greeted with it later.
import { cookies } from 'next/headers';

const TYPED_EMAIL_COOKIE = 'portico_typed_email';
const LIFETIME_SECONDS = 120;

/** The Set-Cookie value that keeps `email` for the form at `path`; undefined for a value not worth keeping. */
export function keepTypedEmail(path: string, email: unknown, secure: boolean): string | undefined {
  if (typeof email !== 'string' || email.length === 0 || email.length > 320 || /[\u0000-\u001F\u007F]/u.test(email)) return undefined;
  return `${TYPED_EMAIL_COOKIE}=${encodeURIComponent(email)}; Path=${path}; HttpOnly; SameSite=Lax; Max-Age=${LIFETIME_SECONDS}${secure ? '; Secure' : ''}`;
}

/**
 * The Set-Cookie value that forgets a kept email, for a successful sign-in, so nobody after sees it; undefined when
 * the request carried none (a sign-in sets only the cookies it needs).
 */
export function forgetTypedEmail(path: string, secure: boolean, cookieHeader: string | null): string | undefined {
  if (!cookieHeader || !new RegExp(`(?:^|;\\s*)${TYPED_EMAIL_COOKIE}=`).test(cookieHeader)) return undefined;
  return `${TYPED_EMAIL_COOKIE}=; Path=${path}; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`;
}

/** For the sign-in pages: the email kept by the refusal that sent the person back, if any. */
export async function typedEmail(): Promise<string | undefined> {
  const value = (await cookies()).get(TYPED_EMAIL_COOKIE)?.value;
  if (!value) return undefined;
  try {
    const email = decodeURIComponent(value);
    return email.length <= 320 && !/[\u0000-\u001F\u007F]/u.test(email) ? email : undefined;
  } catch {
    return undefined;
  }
}
