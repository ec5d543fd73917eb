// POST /account/two-step-setup/continue – the console or central sign-in that required a second factor continues,
// once the person has set one up (an app's continues under its interaction's path: /auth/app/<uid>/enrolled): the pending sign-in is used (once) and its surface's session or interaction follows.
import { cookies } from 'next/headers';
import { finishEnrollment, SECOND_STEP_COOKIE, TWO_STEP_SETUP_PATH } from '@/lib/accounts/sign-in-second-step';
import { db, runtime } from '@/lib/runtime';
import { continueSignIn } from '../../../auth/_lib/continue-sign-in';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  if (request.headers.get('origin') !== runtime().env.PORTICO_ISSUER) return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  const done = await finishEnrollment(db(), (await cookies()).get(SECOND_STEP_COOKIE)?.value, { surface: 'console_or_central' });
  if (!done) return new Response(null, { status: 303, headers: { Location: TWO_STEP_SETUP_PATH, 'Cache-Control': 'no-store' } });
  return continueSignIn(request, done);
}
