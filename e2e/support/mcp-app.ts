// A published app's MCP endpoint for the end-to-end tests, standing in for the example app of the app kit issue:
// an MCP SDK server on plain node:http whose /api/mcp is guarded by the app kit (RFC 9728 metadata, RFC 6750
// challenges, local verification of Portico's access tokens against Portico's JWKS).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createAppKit, type VerifiedAccessToken } from '../../app-kit';

export interface McpApp {
  resource: string;
  /** Every token the app accepted, in order: what the tests assert `sub` and `act` on. */
  accepted: VerifiedAccessToken[];
  close(): Promise<void>;
}

function webRequest(req: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  return new Request(new URL(req.url ?? '/', origin), { method: req.method, headers });
}

function mcpServer(token: VerifiedAccessToken): McpServer {
  const server = new McpServer({ name: 'flight-deck', version: '1.0.0' });
  server.registerTool('whoami', { description: 'Who this connection acts for, and as which agent.' }, async () => ({
    content: [{ type: 'text', text: JSON.stringify({ sub: token.subject, act: token.actor ?? null, client_id: token.clientId }) }],
  }));
  return server;
}

export async function startMcpApp(options: { origin: string; issuer: string; audience: string }): Promise<McpApp> {
  const kit = createAppKit({ issuer: options.issuer, appIdentity: options.audience, origin: options.origin, resourceName: 'Flight Deck' });
  const accepted: VerifiedAccessToken[] = [];

  const server: Server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', options.origin).pathname;
    // RFC 9728 §3: the path-suffixed form, and the root form clients fall back to.
    if (req.method === 'GET' && kit.metadataPaths.includes(path)) {
      const metadata = kit.protectedResourceMetadata();
      res.writeHead(metadata.status, Object.fromEntries(metadata.headers));
      res.end(await metadata.text());
      return;
    }
    if (path !== '/api/mcp') {
      res.writeHead(404).end();
      return;
    }
    const gate = await kit.authorize(webRequest(req, options.origin));
    if (!gate.ok) {
      res.writeHead(gate.response.status, Object.fromEntries(gate.response.headers));
      res.end(await gate.response.text());
      return;
    }
    accepted.push(gate.token);
    // Stateless: a fresh server and transport per request.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const mcp = mcpServer(gate.token);
    res.on('close', () => void transport.close().then(() => mcp.close()));
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  const url = new URL(options.origin);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(url.port), url.hostname, resolve);
  });
  return { resource: kit.resource, accepted, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
