// Both OpenID Connect callbacks (a connection's own, and the legacy shared one): lib/identity/federation/oidc.ts checks the
// state against this browser's cookie and the connection, and does the rest.
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { federationTokenFromCookies } from '@/lib/identity/federation/core';
import { completeOidcCallback } from '@/lib/identity/federation/oidc';
import { db } from '@/lib/runtime';
import { federationDeps } from './deps';
import { respondToFederation } from './respond';

/** `connectionId`: the connection the callback's path names; undefined at the legacy shared callback. */
export async function answerOidcCallback(request: Request, connectionId: string | undefined): Promise<Response> {
  const outcome = await completeOidcCallback(db(), federationDeps(), {
    cookieToken: federationTokenFromCookies(request.headers.get('cookie')),
    url: new URL(request.url),
    ip: clientIpFromHeaders(request.headers),
    connectionId,
  });
  return respondToFederation(request, outcome);
}
