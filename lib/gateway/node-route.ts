// The gateway's paths, served by server.ts on node:http beside /api/mcp: `/mcp/<org>/<server>` (the MCP endpoint)
// and `/.well-known/oauth-protected-resource/mcp/<org>/<server>` (RFC 9728 §3.1, the metadata at its path-suffixed
// address). The same security headers as the rest of the JSON API.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toWebRequestWithBody } from '../../app-kit/node-http';
import { jsonRpcError } from '../http/errors';
import { porticoMcpDeps } from '../mcp/route-deps';
import { MAX_MCP_BODY_BYTES } from '../mcp/server';
import { runtime } from '../runtime';
import { sendApiResponse } from '../http/api-response';
import { gatewayDoorDeps } from './doors';
import { gatewayResourceMetadata, handleGatewayMcp, type GatewayDeps } from './resource';
import { GATEWAY_PATH } from './servers';
import { terminalText } from '../util/visible-text';

const METADATA_PREFIX = '/.well-known/oauth-protected-resource';

/** Whether server.ts hands this path to the gateway. */
export function isGatewayPath(pathname: string): boolean {
  return GATEWAY_PATH.test(pathname) || (pathname.startsWith(`${METADATA_PREFIX}/mcp/`) && GATEWAY_PATH.test(pathname.slice(METADATA_PREFIX.length)));
}

function gatewayDeps(request: Request): GatewayDeps {
  const { levels: _levels, ...deps } = porticoMcpDeps(request);
  return { ...deps, ...gatewayDoorDeps() };
}

export function serveGateway(req: IncomingMessage, res: ServerResponse, pathname: string): void {
  const { env } = runtime();
  const issuer = env.PORTICO_ISSUER;
  const metadata = pathname.startsWith(METADATA_PREFIX);
  void toWebRequestWithBody(req, issuer, MAX_MCP_BODY_BYTES)
    .then(async ({ request, body }) => {
      if (metadata) {
        if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers: { Allow: 'GET, HEAD' } });
        const document = await gatewayResourceMetadata(gatewayDeps(request).db, issuer, `${issuer}${pathname.slice(METADATA_PREFIX.length)}`);
        return document
          ? Response.json(document, { headers: { 'Cache-Control': 'max-age=60', 'Access-Control-Allow-Origin': '*' } })
          : Response.json({ error: 'not_found', error_description: 'No MCP server is served at this address' }, { status: 404 });
      }
      return handleGatewayMcp(request, `${issuer}${pathname}`, gatewayDeps(request), body?.toString('utf8'));
    })
    .catch((error: unknown) => {
      if (error instanceof RangeError) return jsonRpcError(413, -32600, `Request body larger than ${MAX_MCP_BODY_BYTES} bytes`);
      console.error(`${metadata ? 'gateway metadata' : 'gateway'} failed: ${terminalText(error instanceof Error ? error.message : String(error)).slice(0, 500)}`);
      return jsonRpcError(500, -32603, 'Internal error');
    })
    .then((response) => sendApiResponse(res, response))
    .catch(() => res.destroy());
}
