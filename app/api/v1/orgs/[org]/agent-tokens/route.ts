// POST /api/v1/orgs/<org>/agent-tokens {"connection_id"} (scope agents:tokens) – an access token for an agent connection, issued by
// Portico's own token exchange (lib/oidc/agent-token-exchange.ts): own mode for people who may use the agent,
// delegated mode for the person it acts for only. An access token only, at most 10 minutes; ask again when it
// expires. Refused once the agent is deleted, disabled or moved.
import { requestAgentToken } from '@/lib/oidc/agent-token-exchange';
import { runtime } from '@/lib/runtime';
import { ApiError, orgRoute } from '../../../_lib/rest';

export const dynamic = 'force-dynamic';

export const POST = orgRoute(
  'org.read',
  async ({ tx, org, caller, body, audit }) => {
    // An agent acting for a person does not hand itself (or another agent) further tokens: people ask, in person.
    if (caller.agentId) throw new ApiError(403, 'forbidden', 'agent tokens are issued to people, not to an agent acting for one');
    const input = await body();
    if (typeof input.connection_id !== 'string') throw new ApiError(400, 'invalid_request', 'connection_id is required');
    const { env, signingKeys } = runtime();
    const result = await requestAgentToken(tx, { issuer: env.PORTICO_ISSUER, signingKeys, orgId: org.id, personId: caller.user.id, connectionId: input.connection_id });
    if (!result.ok) throw new ApiError(result.status, result.error, result.description);
    // Which client asked for it on the person's behalf (the issued token names portico-internal, its issuer).
    await audit({ action: 'agent.token_requested', subject: { type: 'agent_connection', id: input.connection_id }, clientId: caller.token.clientId });
    return Response.json(result.body, { headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' } });
  },
  // The exchange is an HTTP call to Portico's own token endpoint: no transaction may be held across it. Only a
  // token the person granted `agents:tokens` to may ask (MCP clients get `mcp` alone unless they ask by name).
  { transaction: false, scopes: ['agents:tokens'] },
);
