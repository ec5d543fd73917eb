// POST /api/tools/<name>: Portico's MCP tools over REST, with the same bearer tokens, the same risk levels and the
// same confirmation gate (lib/mcp/server.ts). A challenge comes back in the body; the retry carries
// `_confirmation_token` among the arguments.
import { porticoMcpDeps } from '@/lib/mcp/route-deps';
import { handleToolOverRest } from '@/lib/mcp/rest-tools';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, route: { params: Promise<{ name: string }> }): Promise<Response> {
  const { name } = await route.params;
  return handleToolOverRest(request, name, porticoMcpDeps(request));
}
