// The two hot AuthZEN paths (`/access/v1/evaluation`, `/access/v1/evaluations`) served by server.ts on node:http,
// beside /api/mcp, instead of through Next.js routing: the same handlers as app/access/v1/*/route.ts (which Next
// serves when it runs without server.ts). Next's routing of a request cost more server time than the decision itself
// (bench/authzen.ts). The answers carry the same security headers as the rest of the JSON API.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendWebResponse, toWebRequestWithBody } from '../../app-kit/node-http';
import { runtime } from '../runtime';
import { API_CONTENT_SECURITY_POLICY, securityHeaders } from '../security/headers';
import { AUTHZEN_PATHS, authzenError } from './pdp';
import { AUTHZEN_BODY_LIMIT, evaluationRoute, evaluationsRoute } from './routes';

const HANDLERS: Record<string, (request: Request, bodyText?: string) => Promise<Response>> = {
  [AUTHZEN_PATHS.evaluation]: evaluationRoute,
  [AUTHZEN_PATHS.evaluations]: evaluationsRoute,
};

/** Whether server.ts hands this path to the decision point (its POSTs; anything else goes on to Next). */
export function isAuthzenHotPath(pathname: string, method: string | undefined): boolean {
  return method === 'POST' && Object.hasOwn(HANDLERS, pathname);
}

export function serveAuthzen(req: IncomingMessage, res: ServerResponse, pathname: string): void {
  const { env } = runtime();
  const handler = HANDLERS[pathname]!;
  void toWebRequestWithBody(req, env.PORTICO_ISSUER, AUTHZEN_BODY_LIMIT)
    .then(({ request, body }) => handler(request, body?.toString('utf8') ?? ''))
    .catch((error: unknown) => {
      const request = new Request(new URL(req.url ?? '/', env.PORTICO_ISSUER), { headers: { 'x-request-id': String(req.headers['x-request-id'] ?? '') } });
      if (error instanceof RangeError) return authzenError(request, 413, 'invalid_request', `the body is larger than ${AUTHZEN_BODY_LIMIT} bytes`);
      console.error(`${pathname} failed: ${error instanceof Error ? error.message : String(error)}`);
      return authzenError(request, 500, 'server_error', 'the decision point failed; try again');
    })
    .then((response) => {
      for (const [name, value] of Object.entries(securityHeaders({ https: env.issuerIsHttps, contentSecurityPolicy: API_CONTENT_SECURITY_POLICY }))) response.headers.set(name, value);
      return sendWebResponse(res, response);
    })
    .catch(() => res.destroy());
}
