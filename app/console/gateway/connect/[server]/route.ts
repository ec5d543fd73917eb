// GET /console/gateway/connect/<server id>: a person of the server's organization connects their own account at an
// OAuth-protected upstream MCP server (docs/gateway.md). Portico starts the authorization code flow with PKCE as
// the upstream's MCP client and sends the browser to the upstream's authorization server; /gateway/callback finishes.
// The link is what an agent is given when a call needs the person's account, and what the account page offers.
import { GATEWAY_CONNECT_PATH } from '@/lib/gateway/upstream-oauth';
import { connectionTarget, gatewayOAuthDeps, seeOther } from '@/app/gateway/_lib/connections';
import { currentConsoleSession } from '@/app/console/_lib/session';
import { beginUpstreamConnection } from '@/lib/gateway/upstream-oauth';
import { db } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export async function GET(_request: Request, props: { params: Promise<{ server: string }> }) {
  const { server: serverId } = await props.params;
  const session = await currentConsoleSession();
  if (!session) return seeOther(`/console/login?next=${encodeURIComponent(`${GATEWAY_CONNECT_PATH}/${serverId}`)}`);
  const server = await connectionTarget(serverId, session.user.id);
  // Not a server of one of the person's organizations (or not one people connect to): nothing is revealed.
  if (!server) return seeOther('/console/account?done=gateway-unknown#mcp-servers');
  try {
    const url = await beginUpstreamConnection(db(), server, session.user.id, gatewayOAuthDeps());
    return seeOther(url ? url.href : '/console/account?done=gateway-connected#mcp-servers');
  } catch {
    return seeOther('/console/account?done=gateway-unavailable#mcp-servers');
  }
}
