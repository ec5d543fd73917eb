// POST /api/tools/<name>: Portico's MCP tools over REST, with the same bearer tokens, the same risk levels and the
// same confirmation gate (lib/mcp/server.ts). A challenge comes back in the body; the retry carries
// `_confirmation_token` among the arguments.
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { handleToolOverRest } from '@/lib/mcp/server';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, route: { params: Promise<{ name: string }> }): Promise<Response> {
  const { env, publicJwks, riskLevels } = runtime();
  const { name } = await route.params;
  return handleToolOverRest(request, name, {
    db: db(),
    issuer: env.PORTICO_ISSUER,
    publicJwks,
    levels: riskLevels,
    allowedHosts: [],
    allowedOrigins: [],
    clientIp: clientIpFromHeaders(request.headers),
  });
}
