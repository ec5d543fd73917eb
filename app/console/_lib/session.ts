// The console's signed-in person, from the session cookie. Every console page and action goes through here.
import 'server-only';
import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import { CONSOLE_SESSION_COOKIE, findConsoleSession, type ConsoleSession } from '@/lib/accounts/console-sessions';
import { db } from '@/lib/runtime';

export async function currentConsoleSession(): Promise<ConsoleSession | undefined> {
  return findConsoleSession(db(), (await cookies()).get(CONSOLE_SESSION_COOKIE)?.value);
}

export async function requireConsoleSession(): Promise<ConsoleSession> {
  const session = await currentConsoleSession();
  if (!session) redirect('/console/login');
  return session;
}
