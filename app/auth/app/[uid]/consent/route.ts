// POST /auth/app/<uid>/consent – the consent screen's form for MCP clients (lib/oidc/consent.ts does the work).
// Like the sign-in form, a plain form POST under the interaction cookie's path (SameSite=Lax: no cross-site POST).
import { readCappedForm } from '@/lib/http/body';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { completeConsent, type ConsentDecision } from '@/lib/oidc/consent';
import { db, runtime } from '@/lib/runtime';
import { afterOutcome, interactionRoute, seeOther } from '../../_lib/responses';

export const dynamic = 'force-dynamic';

export const POST = interactionRoute(async (request, { uid, card: cardPath, cookieHeader }) => {
  const card = cardPath;

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
    cookieHeader,
    uid,
    decision,
    clientIp: clientIpFromHeaders(request.headers),
    issuer: runtime().env.PORTICO_ISSUER,
  });
  return afterOutcome(card, outcome);
});
