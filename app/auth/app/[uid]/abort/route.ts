// POST /auth/app/<uid>/abort – from a refused authorization request back to the client, with the OAuth error
// that says why (RFC 8707 §2: invalid_target for a resource Portico cannot grant; access_denied when revoked).
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { recordAuditEvent } from '@/lib/audit/events';
import { resourceRefusalMessage } from '@/lib/clients/binding';
import { findInteraction, finishInteraction } from '@/lib/oidc/interactions';
import { findSignInTarget } from '@/lib/oidc/sign-in-target';
import { db, runtime } from '@/lib/runtime';
import { interactionRoute, seeOther } from '../../_lib/responses';

export const dynamic = 'force-dynamic';

export const POST = interactionRoute(async (request, { uid, card: cardPath, cookieHeader }) => {
  const { provider } = runtime();
  const card = seeOther(cardPath);
  const lookup = await findInteraction(provider, cookieHeader, uid);
  if (!lookup.ok) return card;
  const target = await findSignInTarget(db(), provider, runtime().env.PORTICO_ISSUER, lookup.interaction.params);
  // Only a request that is in fact refused can be ended here: anything else goes back to its screen.
  if (target.kind !== 'refused') return card;
  await recordAuditEvent(db(), {
    orgId: target.context?.org.id ?? null,
    actor: { type: 'client', id: target.client.id, label: target.client.name, ip: clientIpFromHeaders(request.headers) },
    action: 'client.authorization_refused',
    subject: { type: 'client', id: target.client.id, label: target.client.name },
    clientId: target.client.id,
    appId: target.context?.app.id ?? null,
    details: { reason: target.reason, resource: String(lookup.interaction.params.resource ?? '').slice(0, 300) },
  });
  // RFC 6749 §4.1.2.1: a revoked or turned-off app is the authorization server's refusal (access_denied), not the request's fault.
  const error = target.reason === 'revoked_for_app' || target.reason === 'app_disabled' ? 'access_denied' : target.reason === 'no_scope' ? 'invalid_scope' : 'invalid_target';
  const location = await finishInteraction(provider, cookieHeader, uid, { error, error_description: resourceRefusalMessage(target.reason) });
  return seeOther(location);
});
