// The console's signed-in person, from the session cookie. Every console page and action goes through here.
import 'server-only';
import { cookies, headers } from 'next/headers';
import { consoleReturnPath } from '@/lib/accounts/console-sign-in';
import { REQUESTED_PATH_HEADER } from '@/lib/security/headers';
import { redirect } from 'next/navigation';
import { CONSOLE_SESSION_COOKIE, CONSOLE_SESSION_HOURS, createConsoleSession, type ConsoleSession } from '@/lib/accounts/console-sessions';
import { consoleSessionOfRequest } from '@/app/_lib/request-reads';
import type { User } from '@/lib/accounts/users';
import { db, runtime } from '@/lib/runtime';

/** The signed-in person's console session, read once per render (app/_lib/request-reads.ts). */
export async function currentConsoleSession(): Promise<ConsoleSession | undefined> {
  return consoleSessionOfRequest();
}

export async function requireConsoleSession(): Promise<ConsoleSession> {
  const session = await currentConsoleSession();
  if (!session) {
    // Back to the page asked for after the sign-in (consoleReturnPath decides what counts).
    const asked = consoleReturnPath((await headers()).get(REQUESTED_PATH_HEADER));
    redirect(asked === '/console' ? '/console/login' : `/console/login?next=${encodeURIComponent(asked)}`);
  }
  return session;
}

/** Opens a console session for a person who just proved who they are (a sign-in, an accepted invitation). */
export async function startConsoleSession(user: User, client: { ip: string; userAgent?: string }): Promise<void> {
  const token = await createConsoleSession(db(), user, client);
  // HttpOnly; SameSite=Lax (top-level navigations only); Secure off loopback http.
  (await cookies()).set(CONSOLE_SESSION_COOKIE, token, {
    path: '/console',
    httpOnly: true,
    sameSite: 'lax',
    secure: runtime().env.issuerIsHttps,
    maxAge: CONSOLE_SESSION_HOURS * 3600,
  });
}
