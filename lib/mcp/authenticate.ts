// Authentication for Portico's own API (its /api/mcp and the REST API under /api/v1): a bearer access token whose
// audience is Portico's API resource, verified locally with Portico's own public keys, then the person (and the
// agent acting for them, if any) checked against the database on every request: a disabled or deleted account,
// or a disabled or deleted agent, is refused at once, whatever the token's remaining lifetime.
import { AGENT_ID } from '../util/agent-id';
import { oauthError } from '../http/errors';
import { createLocalJWKSet, type JWK, type JWTVerifyGetKey } from 'jose';
import { eq, sql } from 'drizzle-orm';
import { preparedQuery, type Database } from '../db/client';
import { agents, mcpSessions, users } from '../db/schema';
import { isSessionId, liveSessionCondition, mcpSessionColumns, sessionOpenerOf, type McpSession } from './sessions';
import { actingPerson, actingPersonColumns, type ActingPerson } from '../accounts/users';
import { isUuid } from '../util/uuid';
import { authorizeBearer, type ProtectedResourceConfig, type VerifiedAccessToken } from '../../app-kit/protected-resource';
import { PORTICO_API_ADVERTISED_SCOPES, porticoApiResource } from '../resource/portico-api';

/**
 * The caller's statement, built once per database handle: the person, the agent named by `actor` ('' names none:
 * agent ids are never empty) and the live MCP session named by `sessionId` ('' names none). Only the columns a
 * request uses (ActingPerson, McpSession): every API request and MCP call maps this row, and the whole account
 * (its password's hash among them) has no business in a request's context.
 */
function callerStatement(db: Database) {
  const value = (name: string) => sql.placeholder(name);
  return preparedQuery(db, 'api.caller', () =>
    db
      .select({ user: actingPersonColumns, userDisabledAt: users.disabledAt, agentId: agents.id, agentDisabledAt: agents.disabledAt, session: mcpSessionColumns })
      .from(users)
      .leftJoin(agents, eq(agents.id, value('actor')))
      .leftJoin(mcpSessions, liveSessionCondition(value('sessionId'), { subject: value('subject'), clientId: value('clientId'), actor: value('actor') }))
      .where(eq(users.id, value('subject')))
      .limit(1)
      .prepare('api_caller'),
  );
}


export function porticoApiConfig(issuer: string): ProtectedResourceConfig {
  const resource = porticoApiResource(issuer);
  return { resource, issuer, audience: resource, scopesSupported: PORTICO_API_ADVERTISED_SCOPES, resourceName: 'Portico' };
}

const keySets = new WeakMap<JWK[], JWTVerifyGetKey>();
/** Portico's public keys as a key set (one per key list, so a rotation gets a new one). */
export function localKeys(jwks: JWK[]): JWTVerifyGetKey {
  let keys = keySets.get(jwks);
  if (!keys) keySets.set(jwks, (keys = createLocalJWKSet({ keys: jwks })));
  return keys;
}

export interface ApiCaller {
  /** The person; for an agent acting as itself (ownAgent), its owner, who answers for it (their language, their notices). */
  user: ActingPerson;
  /** The agent acting for the person (RFC 8693 `act`), when the consent named one; or the agent acting as itself. */
  agentId?: string;
  /**
   * An agent acting as itself (own mode: the token's `sub` is the agent; lib/oidc/workload-grants.ts): only at a
   * gateway server, never at Portico's own API. Its permissions are the token's; nothing is the owner's.
   */
  ownAgent?: { id: string; name: string };
  token: VerifiedAccessToken;
  /** The MCP session the request names, when asked for (`mcpSessionId`) and live for this token. */
  mcpSession?: McpSession;
}

export type ApiAuthentication = { ok: true; caller: ApiCaller } | { ok: false; response: Response };

export async function authenticateApiRequest(
  request: Request,
  deps: { db: Database; issuer: string; publicJwks: JWK[] },
  requiredScopes: readonly string[] = ['mcp'],
  options: {
    mcpSessionId?: string;
    /** Another resource of Portico's (a gateway server, lib/gateway): its audience, and the scopes a 401 names. */
    resource?: { config: ProtectedResourceConfig; challengeScopes: readonly string[] };
  } = {},
): Promise<ApiAuthentication> {
  const config = options.resource?.config ?? porticoApiConfig(deps.issuer);
  const gate = await authorizeBearer(request, config, localKeys(deps.publicJwks), requiredScopes, options.resource?.challengeScopes ?? requiredScopes);
  if (!gate.ok) return gate;
  const refuse = (description: string): ApiAuthentication => ({
    ok: false,
    // RFC 6750 §3.1: the challenge repeats the error.
    response: oauthError(401, 'invalid_token', description, { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description}"` }),
  });
  // The person, the agent acting for them (if any) and the MCP session the request names (if any) in one statement:
  // every API request and MCP call pays it.
  const actor = gate.token.actor;
  const sessionId = options.mcpSessionId !== undefined && isSessionId(options.mcpSessionId) ? options.mcpSessionId : '';
  // An agent acting as itself reaches a gateway server, never Portico's own API (whose doors act for a person).
  if (options.resource && AGENT_ID.test(gate.token.subject) && !actor) {
    const [agent] = await deps.db
      .select({ agent: { id: agents.id, name: agents.name, disabledAt: agents.disabledAt }, owner: actingPersonColumns })
      .from(agents)
      .innerJoin(users, eq(users.id, agents.ownerUserId))
      .where(eq(agents.id, gate.token.subject))
      .limit(1);
    if (!agent || agent.agent.disabledAt) return refuse('the agent of this token is disabled or gone');
    const [session] = sessionId
      ? await deps.db
          .select(mcpSessionColumns)
          .from(mcpSessions)
          .where(liveSessionCondition(sessionId, { subject: agent.owner.id, clientId: gate.token.clientId, actor: sessionOpenerOf(gate.token, { ownerUserId: agent.owner.id }).actor }))
          .limit(1)
      : [];
    return { ok: true, caller: { user: actingPerson(agent.owner), agentId: agent.agent.id, ownAgent: { id: agent.agent.id, name: agent.agent.name }, token: gate.token, ...(session ? { mcpSession: session } : {}) } };
  }
  const [row] = isUuid(gate.token.subject)
    ? await callerStatement(deps.db).execute({ subject: gate.token.subject, actor: actor ?? '', sessionId, clientId: gate.token.clientId })
    : [];
  if (!row || row.userDisabledAt) return refuse('the account of this token is disabled or gone');
  if (actor && (!row.agentId || row.agentDisabledAt)) return refuse('the agent of this token is disabled or gone');
  return { ok: true, caller: { user: actingPerson(row.user), agentId: actor, token: gate.token, ...(row.session ? { mcpSession: row.session } : {}) } };
}
