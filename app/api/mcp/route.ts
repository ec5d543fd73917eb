// Portico's own MCP server (lib/mcp/server.ts): Streamable HTTP, sessions in PostgreSQL, Portico operations as
// tools behind the risk levels and the confirmation gate.
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { handlePorticoMcp } from '@/lib/mcp/server';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

async function handle(request: Request): Promise<Response> {
  const { env, publicJwks, riskLevels } = runtime();
  return handlePorticoMcp(request, {
    db: db(),
    issuer: env.PORTICO_ISSUER,
    publicJwks,
    levels: riskLevels,
    // DNS rebinding protection: only Portico's own host (and the addresses it listens on).
    allowedHosts: [new URL(env.PORTICO_ISSUER).host, ...env.listenHosts.map((host) => `${host.includes(':') ? `[${host}]` : host}:${env.listenPort}`)],
    // Browsers only from Portico's own origin.
    allowedOrigins: [new URL(env.PORTICO_ISSUER).origin],
    clientIp: clientIpFromHeaders(request.headers),
  });
}

export const GET = handle;
export const POST = handle;
export const DELETE = handle;
