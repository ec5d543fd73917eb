// POST /auth/app/<uid>/continue – a signed-in person confirms going on to an app's own (first-party) client,
// when that app asked to be confirmed again (prompt=consent). Other clients get the consent screen instead.
import { findAppSignInContext } from '@/lib/clients/app-context';
import { findInteraction, finishInteraction } from '@/lib/oidc/interactions';
import { db, runtime } from '@/lib/runtime';
import { seeOther } from '../../_lib/responses';
import { interactionPath, isInteractionUid } from '@/lib/oidc/interactions';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, { params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  if (!isInteractionUid(uid)) return new Response('Not found', { status: 404 });
  const { provider } = runtime();
  const cookieHeader = request.headers.get('cookie');
  const lookup = await findInteraction(provider, cookieHeader, uid);
  const card = seeOther(`${interactionPath(uid)}`);
  if (!lookup.ok || lookup.interaction.prompt.name !== 'consent' || !lookup.interaction.session?.accountId) return card;
  const context = await findAppSignInContext(db(), String(lookup.interaction.params.client_id ?? ''));
  if (context?.clientKind !== 'app') return card;
  const resumeUrl = await finishInteraction(provider, cookieHeader, uid, { consent: {} });
  return seeOther(resumeUrl);
}
