// POST /auth/app/<uid>/continue – a signed-in person confirms going on to an app's own (first-party) client,
// when that app asked to be confirmed again (prompt=consent). Other clients get the consent screen instead.
import { findAppSignInContext } from '@/lib/clients/app-context';
import { findInteraction, finishInteraction } from '@/lib/oidc/interactions';
import { db, runtime } from '@/lib/runtime';
import { interactionRoute, seeOther } from '../../_lib/responses';

export const dynamic = 'force-dynamic';

export const POST = interactionRoute(async (request, { uid, card: cardPath, cookieHeader }) => {
  const { provider } = runtime();
  const lookup = await findInteraction(provider, cookieHeader, uid);
  const card = seeOther(cardPath);
  if (!lookup.ok || lookup.interaction.prompt.name !== 'consent' || !lookup.interaction.session?.accountId) return card;
  const context = await findAppSignInContext(db(), String(lookup.interaction.params.client_id ?? ''));
  if (context?.clientKind !== 'app') return card;
  const resumeUrl = await finishInteraction(provider, cookieHeader, uid, { consent: {} });
  return seeOther(resumeUrl);
});
