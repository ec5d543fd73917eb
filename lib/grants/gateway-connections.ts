// Ending people's connections to OAuth-protected upstream MCP servers (the gateway): the sealed tokens are deleted
// in the caller's transaction, so Portico can never use them again, and their revocation at the upstream's
// authorization server is queued in the same transaction (the outbox's upstream_revocation channel). Called when a
// person disconnects, leaves the organization, or the server is removed.
import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { gatewayConnections, gatewayServers } from '../db/schema';
import { enqueueUpstreamRevocations } from '../deliveries/channels/upstream-revocation';

export type ConnectionScope = { serverId: string; userId?: string } | { appId: string } | { orgId: string; userId?: string } | { userId: string };

/** Deletes the connections in scope and queues the revocation of their tokens; answers how many were connected. */
export async function endGatewayConnections(db: Queryable, scope: ConnectionScope): Promise<number> {
  const conditions: SQL[] = [];
  if ('serverId' in scope) conditions.push(eq(gatewayServers.id, scope.serverId));
  else if ('appId' in scope) conditions.push(eq(gatewayServers.appId, scope.appId));
  else if ('orgId' in scope) conditions.push(eq(gatewayServers.orgId, scope.orgId));
  if ('userId' in scope && scope.userId) conditions.push(eq(gatewayConnections.userId, scope.userId));
  const rows = await db
    .select({ serverId: gatewayConnections.serverId, userId: gatewayConnections.userId, orgId: gatewayServers.orgId, tokens: gatewayConnections.tokensSealed, endpoint: gatewayConnections.revocationEndpoint, client: gatewayServers.oauthClientSealed })
    .from(gatewayConnections)
    .innerJoin(gatewayServers, eq(gatewayServers.id, gatewayConnections.serverId))
    .where(and(...conditions));
  if (rows.length === 0) return 0;
  for (const serverId of new Set(rows.map((row) => row.serverId))) {
    const people = rows.filter((row) => row.serverId === serverId).map((row) => row.userId);
    await db.delete(gatewayConnections).where(and(eq(gatewayConnections.serverId, serverId), inArray(gatewayConnections.userId, people)));
  }
  const revocable = rows.filter((row) => row.tokens && row.endpoint && row.client);
  for (const orgId of new Set(revocable.map((row) => row.orgId))) {
    await enqueueUpstreamRevocations(
      db,
      orgId,
      revocable.filter((row) => row.orgId === orgId).map((row) => ({ endpoint: row.endpoint!, clientSealed: row.client!, tokensSealed: row.tokens! })),
    );
  }
  return rows.filter((row) => row.tokens).length;
}
