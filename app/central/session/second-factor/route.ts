// POST /central/session/second-factor – the central sign-in's second step: a code from the operator's authenticator
// (or a recovery code) for this browser's pending central sign-in; then the 15-minute central session.
import { continueSignIn } from '@/app/auth/_lib/continue-sign-in';
import { cookies } from 'next/headers';
import { relyingPartyOf } from '@/lib/accounts/factors/passkeys';
import { clearedSecondStepCookie, completeSecondStep, SECOND_STEP_COOKIE, secondFactorFormInput } from '@/lib/accounts/sign-in-second-step';
import { readCappedForm } from '@/lib/http/body';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db, runtime } from '@/lib/runtime';
import { sameOrigin } from '../../_lib/central';

export const dynamic = 'force-dynamic';

function seeOther(location: string, ...cookieLines: string[]): Response {
  const headers = new Headers({ Location: location, 'Cache-Control': 'no-store' });
  for (const line of cookieLines) headers.append('Set-Cookie', line);
  return new Response(null, { status: 303, headers });
}

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  const form = await readCappedForm(request, 32 * 1024);
  const { code, method, retry } = secondFactorFormInput(form);
  if (!code) return seeOther(`/central?second_factor=wrong${retry}`);
  const ip = clientIpFromHeaders(request.headers);
  const outcome = await completeSecondStep(db(), runtime().atRestKey, { token: (await cookies()).get(SECOND_STEP_COOKIE)?.value, code, method, ip, rp: relyingPartyOf(runtime().env.PORTICO_ISSUER) });
  if (outcome.kind === 'wrong') return seeOther(`/central?second_factor=wrong${retry}`);
  const cleared = clearedSecondStepCookie(runtime().env.issuerIsHttps);
  if (outcome.kind === 'throttled') return seeOther('/central?second_factor=throttled', cleared);
  if (outcome.kind === 'expired' || outcome.continuation.surface !== 'central') return seeOther('/central?second_factor=expired', cleared);
  return continueSignIn(request, outcome);
}
