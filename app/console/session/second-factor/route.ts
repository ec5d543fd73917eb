// POST /console/session/second-factor – the console sign-in's second step: a code from the person's authenticator
// (or a recovery code) for this browser's pending console sign-in; then the console session, as after a password.
import { continueSignIn } from '@/app/auth/_lib/continue-sign-in';
import { cookies } from 'next/headers';
import { relyingPartyOf } from '@/lib/accounts/factors/passkeys';
import { clearedSecondStepCookie, completeSecondStep, SECOND_STEP_COOKIE, secondFactorFormInput } from '@/lib/accounts/sign-in-second-step';
import { readCappedForm } from '@/lib/http/body';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

function seeOther(location: string, ...cookieLines: string[]): Response {
  const headers = new Headers({ Location: location, 'Cache-Control': 'no-store' });
  for (const line of cookieLines) headers.append('Set-Cookie', line);
  return new Response(null, { status: 303, headers });
}

export async function POST(request: Request) {
  const { env } = runtime();
  // Login CSRF, as for the password step.
  if (request.headers.get('origin') !== env.PORTICO_ISSUER) return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  const form = await readCappedForm(request, 32 * 1024).catch(() => undefined);
  const { code, method, retry } = secondFactorFormInput(form);
  if (!code) return seeOther(`/console/login?second_factor=wrong${retry}`);
  const ip = clientIpFromHeaders(request.headers);
  const outcome = await completeSecondStep(db(), runtime().atRestKey, { token: (await cookies()).get(SECOND_STEP_COOKIE)?.value, code, method, ip, rp: relyingPartyOf(runtime().env.PORTICO_ISSUER) });
  if (outcome.kind === 'wrong') return seeOther(`/console/login?second_factor=wrong${retry}`);
  const cleared = clearedSecondStepCookie(env.issuerIsHttps);
  if (outcome.kind === 'throttled') return seeOther('/console/login?second_factor=throttled', cleared);
  if (outcome.kind === 'expired' || outcome.continuation.surface !== 'console') return seeOther('/console/login?second_factor=expired', cleared);
  return continueSignIn(request, outcome);
}
