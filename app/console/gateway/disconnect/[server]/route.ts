// POST /console/gateway/disconnect/<server id>: the person ends their own account's connection at an OAuth-protected
// upstream MCP server. The tokens are deleted at once and their revocation at the upstream is queued in the same
// transaction (lib/grants/gateway-connections.ts), with its audit event.
import { eq } from 'drizzle-orm';
import { currentConsoleSession } from '@/app/console/_lib/session';
import { recordAuditEvent } from '@/lib/audit/events';
import { gatewayServers } from '@/lib/db/schema';
import { disconnectUpstream } from '@/lib/gateway/upstream-oauth';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { isUuid } from '@/lib/util/uuid';
import { db, runtime } from '@/lib/runtime';
import { seeOther } from '@/app/gateway/_lib/connections';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, props: { params: Promise<{ server: string }> }) {
  // A form of Portico's own pages only (CSRF: another site cannot end the person's connection).
  if (request.headers.get('origin') !== runtime().env.PORTICO_ISSUER) return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  const session = await currentConsoleSession();
  if (!session) return seeOther('/console/login');
  const { server: serverId } = await props.params;
  if (!isUuid(serverId)) return seeOther('/console/account?done=gateway-unknown#mcp-servers');
  const ended = await db().transaction(async (tx) => {
    const [server] = await tx.select().from(gatewayServers).where(eq(gatewayServers.id, serverId));
    if (!server || !(await disconnectUpstream(tx, server.id, session.user.id))) return false;
    await recordAuditEvent(tx, {
      orgId: server.orgId,
      actor: { type: 'person', id: session.user.id, label: session.user.email, ip: clientIpFromHeaders(request.headers) },
      action: 'gateway.account_disconnected',
      appId: server.appId,
      subject: { type: 'gateway_server', id: server.id, label: server.name },
    });
    return true;
  });
  return seeOther(`/console/account?done=${ended ? 'gateway-disconnected' : 'gateway-unknown'}#mcp-servers`);
}
