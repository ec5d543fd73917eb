// What the gateway's connection routes share: the server a person may connect to, and the OAuth dependencies.
import { and, eq } from 'drizzle-orm';
import { gatewayServers } from '@/lib/db/schema';
import { isActiveMember } from '@/lib/organizations/memberships';
import { isUuid } from '@/lib/util/uuid';
import { db } from '@/lib/runtime';

export { gatewayDoorDeps as gatewayOAuthDeps } from '@/lib/gateway/doors';

export function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, 'Cache-Control': 'no-store' } });
}

/** An OAuth-protected, turned-on server of one of the person's organizations, or undefined. */
export async function connectionTarget(serverId: string, userId: string) {
  if (!isUuid(serverId)) return undefined;
  const [server] = await db().select().from(gatewayServers).where(and(eq(gatewayServers.id, serverId), eq(gatewayServers.credentialKind, 'oauth')));
  if (!server || server.disabledAt || !(await isActiveMember(db(), server.orgId, userId))) return undefined;
  return server;
}
