// GET /auth/federation/saml/finish – after the ACS accepted a Response: only this browser's own sign-in continues.
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { federationTokenFromCookies } from '@/lib/identity/federation/core';
import { finishSamlSignIn } from '@/lib/identity/federation/saml';
import { db } from '@/lib/runtime';
import { respondToFederation } from '../../_lib/respond';

export const dynamic = 'force-dynamic';

export async function GET(request: Request): Promise<Response> {
  const outcome = await finishSamlSignIn(db(), federationTokenFromCookies(request.headers.get('cookie')), clientIpFromHeaders(request.headers));
  return respondToFederation(request, outcome);
}
