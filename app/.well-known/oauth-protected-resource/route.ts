// The root form of the protected resource metadata (RFC 9728 §3), where MCP clients look when the path-suffixed
// form is missing: Portico's origin serves one protected resource, its API, so both forms describe it.
import { porticoApiConfig } from '@/lib/mcp/authenticate';
import { protectedResourceMetadata } from '@/app-kit/protected-resource';
import { runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json(protectedResourceMetadata(porticoApiConfig(runtime().env.PORTICO_ISSUER)), { headers: { 'Cache-Control': 'max-age=300' } });
}
