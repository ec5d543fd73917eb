// Portico's client ID metadata document as an upstream MCP server's OAuth client (draft-ietf-oauth-client-id-
// metadata-document): an authorization server that supports them fetches it to learn Portico's redirect URI.
import { gatewayClientMetadataDocument } from '@/lib/gateway/upstream-oauth';
import { runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json(gatewayClientMetadataDocument(runtime().env.PORTICO_ISSUER), { headers: { 'Cache-Control': 'max-age=3600' } });
}
