// RFC 9728 §3.1: the metadata of Portico's own API resource (`<issuer>/api/mcp`), at its path-suffixed address.
import { porticoApiConfig } from '@/lib/mcp/authenticate';
import { protectedResourceMetadata } from '@/app-kit/protected-resource';
import { runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json(protectedResourceMetadata(porticoApiConfig(runtime().env.PORTICO_ISSUER)), { headers: { 'Cache-Control': 'max-age=300' } });
}
