// The two hot AuthZEN paths (`/access/v1/evaluation`, `/access/v1/evaluations`) served by server.ts on node:http,
// beside /api/mcp, instead of through Next.js routing: the same handlers as app/access/v1/*/route.ts (which Next
// serves when it runs without server.ts). Next's routing of a request cost more server time than the decision itself
// (bench/authzen.ts). The answers carry the same security headers as the rest of the JSON API.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toWebRequestWithBody } from '../../app-kit/node-http';
import { runtime } from '../runtime';
import { sendApiResponse } from '../http/api-response';
import { AUTHZEN_PATHS, authzenError } from './pdp';
import { AUTHZEN_BODY_LIMIT, evaluationRoute, evaluationsRoute } from './routes';
import { terminalText } from '../util/visible-text';

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
  const url = new URL(req.url ?? '/', env.PORTICO_ISSUER);
  const bare = () => new Request(url, { method: req.method ?? 'POST', headers: { 'x-request-id': String(req.headers['x-request-id'] ?? '') } });
  // A caller without client credentials is refused before its body is read (as Next's route refuses it): nobody
  // unauthenticated makes Portico hold half a megabyte.
  const answered = !/^\s*Basic\s/i.test(req.headers.authorization ?? '')
    ? handler(bare(), '')
    : toWebRequestWithBody(req, env.PORTICO_ISSUER, AUTHZEN_BODY_LIMIT).then(
        ({ request, body }) =>
          handler(request, body?.toString('utf8') ?? '').catch((error: unknown) => {
            console.error(`${pathname} failed: ${terminalText(error instanceof Error ? error.message : String(error)).slice(0, 500)}`);
            return authzenError(bare(), 500, 'server_error', 'the decision point failed; try again');
          }),
        // Only reading the body can say it is too large.
        (error: unknown) => authzenError(bare(), error instanceof RangeError ? 413 : 400, 'invalid_request', error instanceof RangeError ? `the body is larger than ${AUTHZEN_BODY_LIMIT} bytes` : 'the body could not be read'),
      );
  void answered
    .then((response) => sendApiResponse(res, response))
    .catch(() => res.destroy());
}
