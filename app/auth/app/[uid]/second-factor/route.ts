// POST /auth/app/<uid>/second-factor – the sign-in card's second step: a code from the person's authenticator (or a
// recovery code) for the pending sign-in of this very interaction; then the interaction continues as after a
// password alone, with `amr` and `acr` saying two factors were used.
import { cookies } from 'next/headers';
import { relyingPartyOf } from '@/lib/accounts/passkeys';
import { ACR_MFA, clearedSecondStepCookie, completeSecondStep, SECOND_STEP_COOKIE, secondFactorFormInput } from '@/lib/accounts/sign-in-second-step';
import { recordSignInSuccess } from '@/lib/accounts/sign-in-events';
import { readCappedForm } from '@/lib/http/body';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { finishAppSignIn } from '@/lib/oidc/password-sign-in';
import { db, runtime } from '@/lib/runtime';
import { interactionRoute, seeOther } from '../../_lib/responses';

export const dynamic = 'force-dynamic';

export const POST = interactionRoute(async (request, { uid, card, cookieHeader }) => {
  const form = await readCappedForm(request, 32 * 1024).catch(() => undefined);
  const { code, method, retry } = secondFactorFormInput(form);
  if (!code) return seeOther(`${card}?second_factor=wrong${retry}`);
  const { env, provider } = runtime();
  const outcome = await completeSecondStep(db(), runtime().atRestKey, { token: (await cookies()).get(SECOND_STEP_COOKIE)?.value, code, method, ip: clientIpFromHeaders(request.headers), rp: relyingPartyOf(env.PORTICO_ISSUER) });
  if (outcome.kind === 'wrong') return seeOther(`${card}?second_factor=wrong${retry}`);
  const cleared = (response: Response) => {
    response.headers.append('Set-Cookie', clearedSecondStepCookie(env.issuerIsHttps));
    return response;
  };
  // Only this interaction's own pending sign-in continues it.
  if (outcome.kind === 'throttled') return cleared(seeOther(`${card}?second_factor=throttled`));
  if (outcome.kind === 'expired' || outcome.continuation.surface !== 'app' || outcome.continuation.uid !== uid) return cleared(seeOther(`${card}?second_factor=expired`));
  const { user, continuation } = outcome;
  await recordSignInSuccess(db(), { ...continuation.events, ip: clientIpFromHeaders(request.headers) }, user);
  const location = await finishAppSignIn(provider, cookieHeader, uid, { accountId: user.id, amr: outcome.amr, acr: ACR_MFA, firstParty: continuation.firstParty }).catch(() => undefined);
  return cleared(seeOther(location ?? card));
});
