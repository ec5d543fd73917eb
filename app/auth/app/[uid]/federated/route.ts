// GET /auth/app/<uid>/federated – the end of a sign-in through a company's identity provider on an app's card: the
// interaction's cookie is scoped to this path, so the interaction is finished here, from this browser's finished
// federated sign-in for this very interaction (used once).
import { recordSignInSuccess } from '@/lib/accounts/sign-in-events';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { clearedFederationCookie, federationTokenFromCookies, takeFinishedAppSignIn } from '@/lib/identity/federation/core';
import { interactionPath, isInteractionUid } from '@/lib/oidc/interactions';
import { finishAppSignIn } from '@/lib/oidc/password-sign-in';
import { db, runtime } from '@/lib/runtime';
import { seeOther } from '../../../_lib/redirects';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, { params }: { params: Promise<{ uid: string }> }): Promise<Response> {
  const { uid } = await params;
  if (!isInteractionUid(uid)) return new Response('Not found', { status: 404 });
  const cookieHeader = request.headers.get('cookie');
  const cleared = clearedFederationCookie(runtime().env.issuerIsHttps);
  const finished = await takeFinishedAppSignIn(db(), federationTokenFromCookies(cookieHeader), uid);
  if (!finished) return seeOther(`${interactionPath(uid)}`, cleared);
  await recordSignInSuccess(db(), { ...finished.continuation.events, ip: clientIpFromHeaders(request.headers) }, finished.user);
  const location = await finishAppSignIn(runtime().provider, cookieHeader, uid, {
    accountId: finished.user.id,
    amr: finished.amr,
    acr: finished.acr,
    firstParty: finished.continuation.firstParty,
  }).catch(() => undefined);
  return seeOther(location ?? interactionPath(uid), cleared);
}
