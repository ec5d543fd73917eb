// POST /auth/app/<uid>/second-factor – the sign-in card's second step: a code from the person's authenticator (or a
// recovery code) for the pending sign-in of this very interaction; then the interaction continues as after a
// password alone, with `amr` and `acr` saying two factors were used.
import { continueSignIn } from '@/app/auth/_lib/continue-sign-in';
import { cookies } from 'next/headers';
import { relyingPartyOf } from '@/lib/accounts/factors/passkeys';
import { clearedSecondStepCookie, completeSecondStep, SECOND_STEP_COOKIE, secondFactorFormInput } from '@/lib/accounts/sign-in-second-step';
import { readCappedForm } from '@/lib/http/body';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db, runtime } from '@/lib/runtime';
import { interactionRoute, seeOther } from '../../_lib/responses';

export const dynamic = 'force-dynamic';

export const POST = interactionRoute(async (request, { uid, card }) => {
  const form = await readCappedForm(request, 32 * 1024).catch(() => undefined);
  const { code, method, retry } = secondFactorFormInput(form);
  if (!code) return seeOther(`${card}?second_factor=wrong${retry}`);
  const { env } = runtime();
  const outcome = await completeSecondStep(db(), runtime().atRestKey, { token: (await cookies()).get(SECOND_STEP_COOKIE)?.value, code, method, ip: clientIpFromHeaders(request.headers), rp: relyingPartyOf(env.PORTICO_ISSUER) });
  if (outcome.kind === 'wrong') return seeOther(`${card}?second_factor=wrong${retry}`);
  const cleared = (response: Response) => {
    response.headers.append('Set-Cookie', clearedSecondStepCookie(env.issuerIsHttps));
    return response;
  };
  // Only this interaction's own pending sign-in continues it.
  if (outcome.kind === 'throttled') return cleared(seeOther(`${card}?second_factor=throttled`));
  if (outcome.kind === 'expired' || outcome.continuation.surface !== 'app' || outcome.continuation.uid !== uid) return cleared(seeOther(`${card}?second_factor=expired`));
  return continueSignIn(request, outcome);
});
