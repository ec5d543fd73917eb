// FALLBACK ONLY. server.ts answers /api/mcp itself (lib/mcp/node-route.ts) before Next.js sees the request; this
// route serves Portico's MCP server (lib/mcp/server.ts) only when Next.js runs without server.ts (`next dev` or
// `next start`, which Portico does not support otherwise), so the endpoint still answers the same way there.
import { porticoMcpDeps } from '@/lib/mcp/route-deps';
import { handlePorticoMcp } from '@/lib/mcp/server';

export const dynamic = 'force-dynamic';

async function handle(request: Request): Promise<Response> {
  return handlePorticoMcp(request, porticoMcpDeps(request));
}

export const GET = handle;
export const POST = handle;
export const DELETE = handle;
