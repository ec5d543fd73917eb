// Portico's own MCP server (lib/mcp/server.ts): Streamable HTTP, sessions in PostgreSQL, Portico operations as
// tools behind the risk levels and the confirmation gate.
import { porticoMcpDeps } from '@/lib/mcp/route-deps';
import { handlePorticoMcp } from '@/lib/mcp/server';

export const dynamic = 'force-dynamic';

async function handle(request: Request): Promise<Response> {
  return handlePorticoMcp(request, porticoMcpDeps(request));
}

export const GET = handle;
export const POST = handle;
export const DELETE = handle;
