// The authorization screens' form routes: each is a POST under its interaction's path, answered with a 303 to the
// next screen (never cached). interactionRoute checks the uid once for all of them.
import { interactionPath, isInteractionUid } from '@/lib/oidc/interactions';
import { ENROLLMENT_SECONDS, secondStepCookie, TWO_STEP_SETUP_PATH } from '@/lib/accounts/sign-in-second-step';
import { runtime } from '@/lib/runtime';

export interface InteractionRequest {
  uid: string;
  /** The sign-in card of this interaction. */
  card: string;
  cookieHeader: string | null;
}

/** A POST handler for `/auth/app/<uid>/…`: an id that cannot be an interaction's is not found. */
export function interactionRoute(handler: (request: Request, interaction: InteractionRequest) => Promise<Response>) {
  return async (request: Request, { params }: { params: Promise<{ uid: string }> }): Promise<Response> => {
    const { uid } = await params;
    if (!isInteractionUid(uid)) return new Response('Not found', { status: 404 });
    return handler(request, { uid, card: interactionPath(uid), cookieHeader: request.headers.get('cookie') });
  };
}

export function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, 'Cache-Control': 'no-store' } });
}

/**
 * Where a form's outcome sends the browser: on to the provider, back to the card (with an error code), or to the
 * card's second step (the cookie carries the pending sign-in).
 */
export function afterOutcome(
  card: string,
  outcome: { kind: 'continue' | 'change_password'; location: string } | { kind: 'refused'; error: string } | { kind: 'second_factor' | 'enroll'; token: string } | { kind: 'expired' },
): Response {
  if (outcome.kind === 'continue' || outcome.kind === 'change_password') return seeOther(outcome.location);
  if (outcome.kind === 'enroll') {
    const response = seeOther(TWO_STEP_SETUP_PATH);
    response.headers.append('Set-Cookie', secondStepCookie(outcome.token, runtime().env.issuerIsHttps, ENROLLMENT_SECONDS));
    return response;
  }
  if (outcome.kind === 'second_factor') {
    const response = seeOther(card);
    response.headers.append('Set-Cookie', secondStepCookie(outcome.token, runtime().env.issuerIsHttps));
    return response;
  }
  return seeOther(outcome.kind === 'refused' ? `${card}?error=${outcome.error}` : card);
}
