// POST /auth/federation/saml/<connection>/acs – the assertion consumer service (HTTP-POST binding). A cross-site POST
// carries no SameSite=Lax cookie: the Response is checked and kept with the sign-in its RelayState names, and the
// browser goes on to the finish step, where its own cookie must match (lib/identity/federation/saml.ts).
import { readCappedForm } from '@/lib/http/body';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { acceptSamlResponse } from '@/lib/identity/federation/saml';
import { db } from '@/lib/runtime';
import { federationDeps } from '../../../_lib/deps';
import { seeOther } from '../../../../_lib/redirects';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, { params }: { params: Promise<{ connection: string }> }): Promise<Response> {
  const { connection } = await params;
  const form = await readCappedForm(request, 600 * 1024).catch(() => undefined);
  const samlResponse = form?.get('SAMLResponse');
  const relayState = form?.get('RelayState');
  if (typeof samlResponse !== 'string' || typeof relayState !== 'string') return seeOther('/auth/federation/refused?reason=invalid_response');
  const accepted = await acceptSamlResponse(db(), federationDeps(), { connectionId: connection, samlResponse, relayState, ip: clientIpFromHeaders(request.headers) });
  return accepted === 'accepted' ? seeOther('/auth/federation/saml/finish') : seeOther(`/auth/federation/refused?reason=${accepted}`);
}
