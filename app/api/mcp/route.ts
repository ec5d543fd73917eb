// Portico's own MCP server (Streamable HTTP, MCP 2025-11-25), behind Portico's own API tokens. This first version
// is stateless and serves one safe tool; the risk levels, sessions stored in PostgreSQL and the real operations
// come with the risk-gate issue.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { listMembershipsOf } from '@/lib/accounts/memberships';
import { authenticateApiRequest, type ApiCaller } from '@/lib/api/authenticate';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

function porticoMcpServer(caller: ApiCaller): McpServer {
  const server = new McpServer({ name: 'portico', version: '0.1.0' });
  server.registerTool(
    'whoami',
    { description: 'The person this connection acts for, the agent acting for them (if any), and their organizations.', annotations: { readOnlyHint: true } },
    async () => {
      const organizations = await listMembershipsOf(db(), caller.user.id);
      const result = {
        sub: caller.user.id,
        email: caller.user.email,
        name: caller.user.name,
        act: caller.agentId ?? null,
        client_id: caller.token.clientId,
        organizations: organizations.map((org) => ({ slug: org.slug, name: org.name, role: org.role })),
      };
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    },
  );
  return server;
}

async function handle(request: Request): Promise<Response> {
  const { env, publicJwks } = runtime();
  const authentication = await authenticateApiRequest(request, { db: db(), issuer: env.PORTICO_ISSUER, publicJwks });
  if (!authentication.ok) return authentication.response;
  const issuerHost = new URL(env.PORTICO_ISSUER).host;
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    // JSON-RPC requests to this server are small; a larger body is refused before it is parsed.
    maxRequestBodySize: 256 * 1024,
    // DNS rebinding protection: only Portico's own host, and browsers only from Portico's own origin.
    enableDnsRebindingProtection: true,
    allowedHosts: [issuerHost, ...env.listenHosts.map((host) => `${host.includes(':') ? `[${host}]` : host}:${env.listenPort}`)],
    allowedOrigins: [new URL(env.PORTICO_ISSUER).origin],
  });
  const server = porticoMcpServer(authentication.caller);
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    void server.close();
  }
}

export const GET = handle;
export const POST = handle;
export const DELETE = handle;
