// GET /auth/federation/oidc/callback – the redirect_uri Portico registers at a company's OpenID provider (one for
// every connection): lib/identity/federation.ts checks the state against this browser's cookie and does the rest.
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { completeOidcCallback, federationTokenFromCookies } from '@/lib/identity/federation';
import { db } from '@/lib/runtime';
import { federationDeps } from '../../_lib/deps';
import { respondToFederation } from '../../_lib/respond';

export const dynamic = 'force-dynamic';

export async function GET(request: Request): Promise<Response> {
  const outcome = await completeOidcCallback(db(), federationDeps(), {
    cookieToken: federationTokenFromCookies(request.headers.get('cookie')),
    url: new URL(request.url),
    ip: clientIpFromHeaders(request.headers),
  });
  return respondToFederation(request, outcome);
}
