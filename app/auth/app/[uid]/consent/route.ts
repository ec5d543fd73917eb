// POST /auth/app/<uid>/consent – the consent screen's form for MCP clients (lib/oidc/consent.ts does the work).
// Like the sign-in form, a plain form POST under the interaction cookie's path (SameSite=Lax: no cross-site POST).
import { readCappedForm } from '@/lib/http/body';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { completeConsent, type ConsentDecision } from '@/lib/oidc/consent';
import { interactionPath, isInteractionUid } from '@/lib/oidc/interactions';
import { db, runtime } from '@/lib/runtime';
import { afterOutcome, seeOther } from '../../_lib/responses';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, { params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  if (!isInteractionUid(uid)) return new Response('Not found', { status: 404 });
  const card = `${interactionPath(uid)}`;

  // The consent form is small: a larger body, or anything but a plain form, is answered like an empty form.
  const form = await readCappedForm(request, 8 * 1024).catch(() => undefined);
  const choice = form?.get('decision');
  const actor = form?.get('actor');
  let decision: ConsentDecision | undefined;
  if (choice === 'deny') decision = { decision: 'deny' };
  else if (choice === 'allow' && typeof actor === 'string' && actor.length > 0 && actor.length <= 100) decision = { decision: 'allow', actor };
  if (!decision) return seeOther(`${card}?error=invalid_request`);

  const outcome = await completeConsent({
    provider: runtime().provider,
    db: db(),
    cookieHeader: request.headers.get('cookie'),
    uid,
    decision,
    clientIp: clientIpFromHeaders(request.headers),
    issuer: runtime().env.PORTICO_ISSUER,
  });
  return afterOutcome(card, outcome);
}
