// GET /auth/federation/oidc/callback – the redirect URI every OpenID Connect connection shared before each had its
// own (migration 0050). It takes only responses whose `iss` (RFC 9207) names the issuer of a connection still on it
// (legacyCallbackUntil), and whose state is this browser's sign-in through that connection: docs/accounts.md.
import { answerOidcCallback } from '../../_lib/oidc-callback';

export const dynamic = 'force-dynamic';

export function GET(request: Request): Promise<Response> {
  return answerOidcCallback(request, undefined);
}
