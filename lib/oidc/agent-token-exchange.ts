// Access tokens for agent connections: an RFC 8693 token exchange that only Portico's own components can call.
//
// Why this design: an agent holds no password, secret or key of its own (a leaked agent credential would be a
// standing backdoor), so its tokens are an internal decision of the platform. The caller is the static client
// `portico-internal`, which authenticates with private_key_jwt (RFC 7523 §2.2) signed by Portico's own signing key
// — only a process holding Portico's key material (and PORTICO_SECRET_KEY to decrypt it) can call it, and no new
// secret exists anywhere. The subject is an own-mode connection (agent → app), checked at every exchange: the agent
// must exist, be enabled and belong to the app's organization, so a deleted, disabled or moved agent gets no new
// token. The answer is an access token only, at most 10 minutes, for the connection's app: never an ID token (no
// `openid` here) and never a refresh token (when it expires, Portico issues another). In own mode its subject is
// the agent and it carries only the agent's direct grants; in delegated mode its subject is the named person, the
// agent is `act`, and the permissions are the person's.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import Provider, { errors, type ClientMetadata } from 'oidc-provider';
import { SignJWT, importJWK, type JWK } from 'jose';
import type { Database, Queryable } from '../db/client';
import { agentConnections, agents, apps } from '../db/schema';
import { findUsableAgent, noteAgentUse } from '../organizations/agents';
import { effectivePermissionsOfAgent, effectivePermissionsOfDelegation } from '../organizations/effective-permissions';
import { findUserById } from '../accounts/users';
import { resourceOfApp } from '../clients/apps';
import { recordAuditEvent } from '../audit/events';
import { appTokenResourceServer } from './resource-servers';
import { appResourceScopes, resourceTokenScope } from './resource-scope';
import { isUuid } from '../util/uuid';
import { TOKEN_EXCHANGE_GRANT_TYPE } from '../clients/client-metadata';

export const TOKEN_EXCHANGE_GRANT = TOKEN_EXCHANGE_GRANT_TYPE;
/** RFC 8693 §3: Portico's own token type for "this own-mode connection", valid only between Portico's components. */
export const AGENT_CONNECTION_TOKEN_TYPE = 'urn:portico:params:oauth:token-type:agent-connection';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** draft-ietf-oauth-identity-assertion-authz-grant §4.3: the token type of an Identity Assertion JWT Authorization Grant. */
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
export const PORTICO_INTERNAL_CLIENT_ID = 'portico-internal';

/** The static client Portico's components authenticate as: its keys are Portico's own public signing keys. */
export function porticoInternalClient(publicJwks: JWK[]): ClientMetadata {
  return {
    client_id: PORTICO_INTERNAL_CLIENT_ID,
    client_name: 'Portico',
    token_endpoint_auth_method: 'private_key_jwt',
    token_endpoint_auth_signing_alg: 'ES256',
    jwks: { keys: publicJwks.filter((key) => key.alg === 'ES256') as NonNullable<ClientMetadata['jwks']>['keys'] },
    grant_types: [TOKEN_EXCHANGE_GRANT],
    response_types: [],
    redirect_uris: [],
  };
}

interface ConnectionSubject {
  connectionId: string;
  mode: 'own' | 'delegated';
  delegateUserId: string | null;
  narrowedTo: string[] | null;
  agentId: string;
  agentName: string;
  agentDisabled: boolean;
  orgId: string;
  app: typeof apps.$inferSelect;
}

async function findConnection(db: Queryable, connectionId: unknown): Promise<ConnectionSubject | undefined> {
  if (!isUuid(connectionId)) return undefined;
  const [row] = await db
    .select({ connection: agentConnections, agent: agents, app: apps })
    .from(agentConnections)
    // The composite keys already tie agent, app and connection to one organization; the joins say it again.
    .innerJoin(agents, and(eq(agents.id, agentConnections.agentId), eq(agents.orgId, agentConnections.orgId)))
    .innerJoin(apps, and(eq(apps.id, agentConnections.appId), eq(apps.orgId, agentConnections.orgId)))
    .where(eq(agentConnections.id, connectionId))
    .limit(1);
  if (!row) return undefined;
  return {
    connectionId: row.connection.id,
    mode: row.connection.mode,
    delegateUserId: row.connection.delegateUserId,
    narrowedTo: row.connection.narrowedTo,
    agentId: row.agent.id,
    agentName: row.agent.name,
    agentDisabled: row.agent.disabledAt !== null,
    orgId: row.connection.orgId,
    app: row.app,
  };
}

/**
 * The claims an exchanged token carries besides oidc-provider's (read by the provider's extraTokenClaims hook):
 * the organization, and for delegated mode the agent as `act` (RFC 8693 §4.1).
 */
const exchangedTokenClaims = new WeakMap<object, { org: string; act?: { sub: string } }>();

export function exchangedClaimsOf(token: object): { org: string; act?: { sub: string } } | undefined {
  return exchangedTokenClaims.get(token);
}

/** For the other grants that build an app's access token themselves (the ID-JAG grant, lib/oidc/id-jag.ts). */
export function noteExchangedClaims(token: object, claims: { org: string; act?: { sub: string } }): void {
  exchangedTokenClaims.set(token, claims);
}

/**
 * RFC 8693 token exchange. Two exchanges share the grant type: an ID token for an ID-JAG (`issueIdJag`, an app's own
 * client, lib/oidc/id-jag.ts), told apart by requested_token_type; and an agent connection for an access token
 * (portico-internal only), below.
 */
export function registerAgentTokenExchange(provider: Provider, db: () => Database, issueIdJag: (ctx: Parameters<Parameters<Provider['registerGrantType']>[1]>[0]) => Promise<void>): void {
  provider.registerGrantType(
    TOKEN_EXCHANGE_GRANT,
    async (ctx) => {
      const { client, params } = ctx.oidc;
      if (params?.requested_token_type === ID_JAG_TOKEN_TYPE) return issueIdJag(ctx);
      // The client's registered grant types already restrict this grant to portico-internal; say it once more.
      if (!client || client.clientId !== PORTICO_INTERNAL_CLIENT_ID) throw new errors.UnauthorizedClient('only Portico itself may exchange agent connections');
      if (params?.subject_token_type !== AGENT_CONNECTION_TOKEN_TYPE) throw new errors.InvalidRequest(`subject_token_type must be ${AGENT_CONNECTION_TOKEN_TYPE}`);
      if (params.requested_token_type !== undefined && params.requested_token_type !== ACCESS_TOKEN_TYPE) {
        throw new errors.InvalidRequest('only access tokens are issued for agents');
      }
      const connection = await findConnection(db(), params.subject_token);
      if (!connection || connection.agentDisabled) throw new errors.InvalidGrant('the subject is not an active agent connection');
      // A turned-off app issues no token of any kind (lib/clients/apps.ts setAppDisabled).
      if (connection.app.disabledAt) throw new errors.InvalidGrant('the app is turned off');
      const resource = await resourceOfApp(db(), connection.app);
      if (params.resource !== undefined && params.resource !== resource) throw new errors.InvalidTarget('the resource is not the connection’s app');

      // Own mode: the agent is the subject and holds its direct grants on this app, nothing from any role or team.
      // Delegated mode: the person is the subject and the agent the actor; the permissions are the person's (narrowed
      // to the connection's subset, if it has one), so the person must still be an active member who may use the agent.
      // A `scope` parameter narrows further (RFC 8693 §2.1); what it names beyond the held set is left out.
      const app = { orgId: connection.orgId, appId: connection.app.id };
      let subject = connection.agentId;
      let held: { scope: string }[];
      if (connection.mode === 'own') {
        held = await effectivePermissionsOfAgent(db(), { ...app, agentId: connection.agentId });
      } else {
        const person = connection.delegateUserId ? await findUserById(db(), connection.delegateUserId) : undefined;
        const usable = person && !person.disabledAt ? await findUsableAgent(db(), connection.orgId, person.id, connection.agentId) : undefined;
        if (!person || !usable) throw new errors.InvalidGrant('the delegating person may no longer use this agent');
        subject = person.id;
        held = await effectivePermissionsOfDelegation(db(), { ...app, userId: person.id, narrowTo: connection.narrowedTo });
      }
      const catalog = await appResourceScopes(db(), connection.app.id);
      // A scope naming only what the catalog lacks (a typo) narrows to nothing; it never reads as "none named".
      const named = typeof params.scope === 'string' ? params.scope.split(' ').filter(Boolean) : [];
      const scope = resourceTokenScope({ named, allowedByGrant: catalog, effective: new Set(held.map((permission) => permission.scope)) }).join(' ');
      // No grant: nobody consented, the platform decided (oidc-provider's types insist on a grantId, its model not).
      const token = new provider.AccessToken({ accountId: subject, client, gty: 'token-exchange', scope: scope || undefined } as unknown as ConstructorParameters<Provider['AccessToken']>[0]);
      exchangedTokenClaims.set(token, { org: connection.orgId, ...(connection.mode === 'delegated' ? { act: { sub: connection.agentId } } : {}) });
      token.resourceServer = appTokenResourceServer(provider, resource, { identity: connection.app.identity, catalog });
      ctx.oidc.entity('AccessToken', token);
      const accessToken = await token.save();
      await noteAgentUse(db(), connection.agentId);
      await recordAuditEvent(db(), {
        orgId: connection.orgId,
        actor: { type: 'system', label: 'Portico' },
        action: 'agent.token_issued',
        subject: { type: 'agent', id: connection.agentId, label: connection.agentName },
        appId: connection.app.id,
        clientId: PORTICO_INTERNAL_CLIENT_ID,
        details: { sub: subject, act: connection.mode === 'delegated' ? connection.agentId : null, mode: connection.mode, connectionId: connection.connectionId, scope, expiresIn: token.expiration },
      });
      ctx.body = {
        access_token: accessToken,
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: 'Bearer',
        expires_in: token.expiration,
        ...(scope ? { scope } : {}),
      };
    },
    new Set(['subject_token', 'subject_token_type', 'requested_token_type', 'resource', 'scope', 'audience', 'actor_token', 'actor_token_type']),
  );
}

/**
 * For Portico's components: the client assertion (RFC 7523 §2.2) that authenticates them as portico-internal,
 * signed with Portico's ES256 key. Short-lived and single-use (oidc-provider refuses a replayed `jti`).
 */
export async function porticoClientAssertion(signingKeys: JWK[], issuer: string): Promise<string> {
  const jwk = signingKeys.find((key) => key.alg === 'ES256');
  if (!jwk) throw new Error('no ES256 signing key');
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: jwk.kid })
    .setIssuer(PORTICO_INTERNAL_CLIENT_ID)
    .setSubject(PORTICO_INTERNAL_CLIENT_ID)
    .setAudience(issuer)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(await importJWK(jwk, 'ES256'));
}

/** The token request a Portico component sends to exchange an own-mode connection for an access token. */
export async function agentTokenRequestBody(signingKeys: JWK[], issuer: string, connectionId: string): Promise<URLSearchParams> {
  return new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    client_id: PORTICO_INTERNAL_CLIENT_ID,
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: await porticoClientAssertion(signingKeys, issuer),
    subject_token: connectionId,
    subject_token_type: AGENT_CONNECTION_TOKEN_TYPE,
    requested_token_type: ACCESS_TOKEN_TYPE,
  });
}

export type AgentTokenRequest =
  | { ok: true; body: Record<string, unknown> }
  | { ok: false; status: 403 | 404 | 409; error: string; description: string };

/**
 * A Portico component asking for a connection's access token on behalf of a person: an own-mode token for someone
 * who may use the agent; a delegated token only for the very person it acts for (nobody else may obtain a token
 * whose subject is that person). Then the exchange itself, at Portico's own token endpoint.
 */
export async function requestAgentToken(
  db: Queryable,
  input: { issuer: string; signingKeys: JWK[]; orgId: string; personId: string; connectionId: string },
): Promise<AgentTokenRequest> {
  const connection = await findConnection(db, input.connectionId);
  if (!connection || connection.orgId !== input.orgId) return { ok: false, status: 404, error: 'not_found', description: 'no such connection in this organization' };
  if (connection.agentDisabled) return { ok: false, status: 409, error: 'invalid_grant', description: 'the agent is disabled: no token is issued for it' };
  if (connection.app.disabledAt) return { ok: false, status: 409, error: 'invalid_grant', description: 'the app is turned off: no token is issued for it' };
  const allowed =
    connection.mode === 'delegated'
      ? connection.delegateUserId === input.personId
      : (await findUsableAgent(db, input.orgId, input.personId, connection.agentId)) !== undefined;
  if (!allowed) {
    return {
      ok: false,
      status: 403,
      error: 'forbidden',
      description: connection.mode === 'delegated' ? 'only the person a delegated connection acts for may obtain its tokens' : 'you may not use this agent',
    };
  }
  const response = await fetch(`${input.issuer}/oidc/token`, { method: 'POST', body: await agentTokenRequestBody(input.signingKeys, input.issuer, connection.connectionId) });
  const body = (await response.json().catch(() => ({ error: 'server_error', error_description: 'the token endpoint did not answer JSON' }))) as Record<string, unknown>;
  if (!response.ok) return { ok: false, status: 409, error: String(body.error ?? 'invalid_grant'), description: String(body.error_description ?? 'no token was issued') };
  return { ok: true, body };
}
