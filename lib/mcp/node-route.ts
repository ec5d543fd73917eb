// /api/mcp served by server.ts on node:http, beside oidc-provider, instead of through Next.js routing: the same
// handler and dependencies as app/api/mcp/route.ts, which Next.js would serve only if it ran without server.ts. The
// response carries the same security headers as the rest of the JSON API.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonRpcError } from '../http/errors';
import { toWebRequestWithBody } from '../../app-kit/node-http';
import { sendApiResponse } from '../http/api-response';
import { runtime } from '../runtime';
import { porticoMcpDeps } from './route-deps';
import { handlePorticoMcp, MAX_MCP_BODY_BYTES } from './server';

export const MCP_PATH = '/api/mcp';


export function serveMcp(req: IncomingMessage, res: ServerResponse): void {
  const { env } = runtime();
  void toWebRequestWithBody(req, env.PORTICO_ISSUER, MAX_MCP_BODY_BYTES)
    .then(({ request, body }) => handlePorticoMcp(request, porticoMcpDeps(request), body?.toString('utf8')))
    .catch((error: unknown) => {
      if (error instanceof RangeError) return jsonRpcError(413, -32600, `Request body larger than ${MAX_MCP_BODY_BYTES} bytes`);
      console.error(`/api/mcp failed: ${error instanceof Error ? error.message : String(error)}`);
      return jsonRpcError(500, -32603, 'Internal error');
    })
    .then((response) => sendApiResponse(res, response))
    .catch(() => res.destroy());
}
