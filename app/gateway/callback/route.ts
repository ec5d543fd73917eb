// GET /gateway/callback: the upstream's authorization server sends the person back here (Portico's one redirect URI
// as an upstream's MCP client). The state names an authorization under way of this person's, used once; the code is
// exchanged for their tokens, which Portico keeps sealed (lib/gateway/upstream-oauth.ts).
import { currentConsoleSession } from '@/app/console/_lib/session';
import { completeUpstreamConnection } from '@/lib/gateway/upstream-oauth';
import { recordAuditEvent } from '@/lib/audit/events';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { gatewayServers } from '@/lib/db/schema';
import { eq } from 'drizzle-orm';
import { db } from '@/lib/runtime';
import { gatewayOAuthDeps, seeOther } from '../_lib/connections';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  const session = await currentConsoleSession();
  const url = new URL(request.url);
  const state = url.searchParams.get('state');
  const code = url.searchParams.get('code');
  // The person refused at the upstream, or the answer is not one: said on their account page, nothing kept.
  if (!session || !state || !code) return seeOther('/console/account?done=gateway-refused#mcp-servers');
  try {
    const serverId = await completeUpstreamConnection(db(), session.user.id, { state, code, iss: url.searchParams.get('iss') ?? undefined }, gatewayOAuthDeps());
    const [server] = await db().select().from(gatewayServers).where(eq(gatewayServers.id, serverId));
    if (server) {
      await recordAuditEvent(db(), {
        orgId: server.orgId,
        actor: { type: 'person', id: session.user.id, label: session.user.email, ip: clientIpFromHeaders(request.headers) },
        action: 'gateway.account_connected',
        appId: server.appId,
        subject: { type: 'gateway_server', id: server.id, label: server.name },
      });
    }
    return seeOther('/console/account?done=gateway-connected#mcp-servers');
  } catch {
    return seeOther('/console/account?done=gateway-refused#mcp-servers');
  }
}
