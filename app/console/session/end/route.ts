// POST /console/session/end – signs out of the console on this browser.
import { cookies } from 'next/headers';
import { CONSOLE_SESSION_COOKIE, endConsoleSession } from '@/lib/accounts/console-sessions';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export async function POST(request: Request) {
  if (request.headers.get('origin') !== runtime().env.PORTICO_ISSUER) {
    return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  }
  await endConsoleSession(db(), (await cookies()).get(CONSOLE_SESSION_COOKIE)?.value);
  return new Response(null, {
    status: 303,
    headers: { Location: '/console/login', 'Set-Cookie': `${CONSOLE_SESSION_COOKIE}=; Path=/console; HttpOnly; SameSite=Lax; Max-Age=0` },
  });
}
