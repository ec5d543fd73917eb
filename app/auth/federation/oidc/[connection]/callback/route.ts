// GET /auth/federation/oidc/<connection>/callback – the redirect URI of one OpenID Connect connection, registered at
// its identity provider (RFC 9700 §4.4.2): a response here is redeemed only at this connection's token endpoint.
import { answerOidcCallback } from '../../../_lib/oidc-callback';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, { params }: { params: Promise<{ connection: string }> }): Promise<Response> {
  return answerOidcCallback(request, (await params).connection);
}
