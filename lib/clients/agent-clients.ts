// An agent's own OAuth client, as oidc-provider sees it (the adapter's Client model for an `agt_…` client_id).
//
// It exists while the agent has a key credential (a registered public key or a JWKS URL): confidential, private_key_jwt
// (RFC 7523 §2.2) with those keys, the client-credentials grant only, no redirect URI, no response type. The grant
// itself (lib/oidc/workload-grants.ts) decides what the token carries and refuses a disabled agent with words that
// say so; here a disabled agent's client still loads, so that the refusal is not a bare invalid_client.
//
// Read through the read cache: the agent's row and keys send their notifications (migration 0060), so a key removed
// or an agent disabled on one instance is heard on every other at once.
import { AGENT_ID } from '../util/agent-id';
import { asc, eq } from 'drizzle-orm';
import { decodeProtectedHeader } from 'jose';
import { readCacheOf, type Queryable } from '../db/client';
import { agentKeys, agents } from '../db/schema';
import type { OutboundPolicy } from '../http/outbound';
import { remoteKeySet, signingKeysOf } from '../security/remote-keys';
import { CLIENT_CREDENTIALS_GRANT_TYPE } from './client-metadata';

/** An agent's own client has the agent's id as its client id. */
export const AGENT_CLIENT_ID = AGENT_ID;

interface AgentClientRows {
  agent: typeof agents.$inferSelect;
  keys: (typeof agentKeys.$inferSelect)[];
}

async function readAgentClientRows(db: Queryable, agentId: string): Promise<AgentClientRows | undefined> {
  const [agent] = await db.select().from(agents).where(eq(agents.id, agentId)).limit(1);
  if (!agent) return undefined;
  const keys = await db.select().from(agentKeys).where(eq(agentKeys.agentId, agentId)).orderBy(asc(agentKeys.createdAt));
  return { agent, keys };
}

/** The `kid` the request's client assertion names (to fetch a JWKS URL again when it lacks it), if any. */
export function kidOfAssertion(assertion: unknown): string | undefined {
  if (typeof assertion !== 'string') return undefined;
  try {
    return decodeProtectedHeader(assertion).kid;
  } catch {
    return undefined;
  }
}

/**
 * The agent's client metadata, or undefined when it has no key credential (no client exists). `assertion`: the
 * request's client_assertion, whose `kid` a published key set is checked for.
 */
export async function loadAgentClient(db: Queryable, clientId: string, outbound: OutboundPolicy, assertion?: unknown): Promise<Record<string, unknown> | undefined> {
  if (!AGENT_CLIENT_ID.test(clientId)) return undefined;
  const cache = readCacheOf(db);
  const rows = cache ? await cache.read(`agent-client:${clientId}`, () => readAgentClientRows(db, clientId), () => [`agents:${clientId}`]) : await readAgentClientRows(db, clientId);
  if (!rows) return undefined;
  const keys: Record<string, unknown>[] = rows.keys.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: key.alg }));
  if (rows.agent.jwksUri) {
    try {
      const published = await remoteKeySet(rows.agent.jwksUri, outbound, kidOfAssertion(assertion));
      keys.push(...(signingKeysOf(published).keys as Record<string, unknown>[]).filter((key) => ['EC', 'RSA', 'OKP'].includes(String(key.kty))));
    } catch {
      // The published set cannot be read now: the registered keys still serve; with none, the assertion fails to verify.
    }
  }
  if (keys.length === 0 && !rows.agent.jwksUri) return undefined;
  return {
    client_id: rows.agent.id,
    client_name: rows.agent.name,
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys },
    grant_types: [CLIENT_CREDENTIALS_GRANT_TYPE],
    response_types: [],
    redirect_uris: [],
    portico_kind: 'agent',
    portico_org_id: rows.agent.orgId,
  };
}
