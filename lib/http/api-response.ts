// The last step of every JSON API route that server.ts serves on node:http itself (/api/mcp, the gateway, the AuthZEN
// evaluations): the web Response gets the security headers the rest of the JSON API carries, then goes out.
import type { ServerResponse } from 'node:http';
import { sendWebResponse } from '../../app-kit/node-http';
import { runtime } from '../runtime';
import { API_CONTENT_SECURITY_POLICY, securityHeaders } from '../security/headers';

export function sendApiResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers = securityHeaders({ https: runtime().env.issuerIsHttps, contentSecurityPolicy: API_CONTENT_SECURITY_POLICY });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return sendWebResponse(res, response);
}
