// Where each outcome of a federated sign-in sends the browser (the OIDC callback, the SAML finish step, the link
// form): on to the surface it started from, to its second step, to the link page, or to a page that says why not.
// The federation cookie is cleared whenever the sign-in ended here.
import 'server-only';
import { ENROLLMENT_SECONDS, secondStepCookie, type SecondStepContinuation, TWO_STEP_SETUP_PATH } from '@/lib/accounts/sign-in-second-step';
import { clearedFederationCookie, type FederationContinuation, type FederationOutcome } from '@/lib/identity/federation/core';
import { interactionPath } from '@/lib/oidc/interactions';
import { runtime } from '@/lib/runtime';
import { continueSignIn } from '../../_lib/continue-sign-in';
import { seeOther, startedAt } from '../../_lib/redirects';

export async function respondToFederation(request: Request, outcome: FederationOutcome): Promise<Response> {
  const secure = runtime().env.issuerIsHttps;
  const cleared = clearedFederationCookie(secure);
  switch (outcome.kind) {
    case 'signed_in': {
      const response = await continueSignIn(request, { user: outcome.user, continuation: outcome.continuation, amr: outcome.amr });
      response.headers.append('Set-Cookie', cleared);
      return response;
    }
    case 'finish_app':
      // The interaction's cookie is scoped to its own path: the card's route finishes it there.
      return seeOther(`${interactionPath(outcome.uid)}/federated`);
    case 'second_factor':
      return seeOther(startedAt(outcome.continuation).replace(/\?step=password$/, ''), secondStepCookie(outcome.token, secure), cleared);
    case 'enroll':
      return seeOther(TWO_STEP_SETUP_PATH, secondStepCookie(outcome.token, secure, ENROLLMENT_SECONDS), cleared);
    case 'link':
      return seeOther('/auth/federation/link');
    case 'test':
      return seeOther(`/console/${outcome.orgSlug}/settings/identity/test?connection=${outcome.connectionId}`);
    case 'refused': {
      const back = startedAt(outcome.continuation);
      return seeOther(`/auth/federation/refused?reason=${outcome.reason}&back=${encodeURIComponent(back)}`, cleared);
    }
  }
}
