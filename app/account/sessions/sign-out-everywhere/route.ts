// POST /account/sessions/sign-out-everywhere – ends every Portico session of the signed-in person.
// CSRF: the session cookie is SameSite=Lax (not sent on cross-site POSTs) and the Origin must be Portico's own.
import { signOutEverywhere } from '@/lib/accounts/sessions';
import { findBrowserSession } from '@/lib/oidc/interactions';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export async function POST(request: Request) {
  const { provider, env } = runtime();
  if (request.headers.get('origin') !== env.PORTICO_ISSUER) {
    return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  }
  const browser = await findBrowserSession(provider, request.headers.get('cookie'));
  if (browser) await signOutEverywhere(db(), browser.accountId);
  return new Response(null, { status: 303, headers: { Location: '/account/sessions?done=signed-out-everywhere', 'Cache-Control': 'no-store' } });
}
