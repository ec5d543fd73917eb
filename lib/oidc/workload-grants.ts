// Agents that run as workloads get tokens for themselves at the token endpoint, two ways, with no shared secret:
//
// - Key credentials (MCP's OAuth client-credentials extension, SEP-1046): the agent's own client (client_id = the
//   agent's id, lib/clients/agent-clients.ts) authenticates with private_key_jwt (RFC 7523 §2.2; oidc-provider
//   verifies the assertion with the agent's public keys and uses each `jti` once) and asks with the
//   client-credentials grant (RFC 6749 §4.4) and a `resource` (RFC 8707).
// - Workload identity federation (MCP SEP-1933's profile of the RFC 7523 §2.1 jwt-bearer grant): the public client
//   `portico-workload` presents the workload's own short-lived JWT (a Kubernetes service-account token, a SPIFFE
//   JWT-SVID, a CI provider's OIDC token) as the `assertion`, with a `resource`; the organization's trust rules
//   (lib/organizations/workload-trust.ts) say which agent it is.
//
// Either way the token is the agent's own (own mode, as the internal exchange's, lib/oidc/agent-token-exchange.ts):
// `sub` is the agent, the scope its direct grants on the app and nothing from any role or team, an access token only
// (no refresh token, no ID token), ten minutes, for one app — an app's own MCP server or a gateway server — the agent
// has an own-mode connection to. A disabled
// agent, a turned-off app or a missing connection gets nothing, with words that say which. Every issuance is
// audited (agent.token_issued, with `via`).
import type Provider from 'oidc-provider';
import { errors, type ClientMetadata, type KoaContextWithOIDC } from 'oidc-provider';
import { and, eq, sql } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client';
import { agentConnections, agentKeys, agents, gatewayServers, workloadTrustRules } from '../db/schema';
import { appResource, findAppByResource, type App } from '../clients/apps';
import { AGENT_CLIENT_ID, kidOfAssertion } from '../clients/agent-clients';
import { CLIENT_CREDENTIALS_GRANT_TYPE, JWT_BEARER_GRANT_TYPE } from '../clients/client-metadata';
import { effectivePermissionsOfAgent } from '../organizations/effective-permissions';
import { noteAgentUse } from '../organizations/agents';
import { evaluateWorkloadToken, recordWorkloadTokenUse, WORKLOAD_REFUSAL_TEXT } from '../organizations/workload-trust';
import { recordAuditEvent } from '../audit/events';
import type { OutboundPolicy } from '../http/outbound';
import { hitRateLimit, type RateLimitRule } from '../rate-limit/fixed-window';
import { clientKindOf } from './client-policy';
import { noteExchangedClaims } from './agent-token-exchange';
import { appTokenResourceServer } from './resource-servers';
import { appResourceScopes, resourceTokenScope } from './resource-scope';

/** Workload tokens presented from one client network (IPv6: a /64) in a minute. */
export const WORKLOAD_PRESENTATIONS_PER_NETWORK: RateLimitRule = { name: 'workload:presentation:network', limit: 600, windowSeconds: 60, perClientNetwork: true };

/** The public client a workload presents its own JWT through (SEP-1933: no client authentication, the assertion is the credential). */
export const WORKLOAD_CLIENT_ID = 'portico-workload';

export function workloadFederationClient(): ClientMetadata {
  return {
    client_id: WORKLOAD_CLIENT_ID,
    client_name: 'Workloads (identity federation)',
    token_endpoint_auth_method: 'none',
    grant_types: [JWT_BEARER_GRANT_TYPE],
    response_types: [],
    redirect_uris: [],
  };
}

export interface WorkloadGrantDeps {
  issuer: string;
  db: () => Database;
  outbound: OutboundPolicy;
  now?: () => Date;
}

/** RFC 6749 §5.2 with its reason in the answer (oidc-provider's own InvalidGrant keeps the reason out). */
class WorkloadRefused extends errors.OIDCProviderError {
  constructor(error: 'invalid_grant' | 'invalid_target' | 'unauthorized_client', description: string) {
    super(error === 'unauthorized_client' ? 400 : 400, error);
    Object.assign(this, { error_description: description });
  }
}

/**
 * The app a `resource` names, for an agent of `orgId`: an app's own MCP server (`<origin>/api/mcp`) or a gateway
 * server (`<issuer>/mcp/<org>/<server>`) that is on and does not connect each person's own upstream account (an
 * agent acting as itself has none there).
 */
async function appOfResource(db: Queryable, resource: unknown, orgId?: string): Promise<{ app: App; resource: string }> {
  if (typeof resource !== 'string' || resource.length === 0) throw new WorkloadRefused('invalid_target', 'name the resource: the app’s MCP server (<origin>/api/mcp) or a gateway server’s address');
  const app = await findAppByResource(db, resource);
  if (!app || (orgId !== undefined && app.orgId !== orgId)) throw new WorkloadRefused('invalid_target', 'the resource is not an app of the agent’s organization');
  if (app.disabledAt) throw new WorkloadRefused('invalid_target', 'the app is turned off');
  const [server] = await db.select({ resource: gatewayServers.resource, credentialKind: gatewayServers.credentialKind, disabledAt: gatewayServers.disabledAt }).from(gatewayServers).where(eq(gatewayServers.appId, app.id)).limit(1);
  if ((server?.resource ?? appResource(app.publishOrigin)) !== resource) throw new WorkloadRefused('invalid_target', 'the resource is not an app of the agent’s organization');
  if (server?.disabledAt) throw new WorkloadRefused('invalid_target', 'the gateway server is turned off');
  if (server?.credentialKind === 'oauth') throw new WorkloadRefused('invalid_target', 'this gateway server connects each person’s own account there; an agent acting as itself has none');
  return { app, resource };
}

/**
 * The agent's own-mode token for the app: the checks every way shares (the agent enabled and of the app's
 * organization, an own-mode connection to the app), the scope, the token, the audit, the agent's last use.
 */
async function issueAgentOwnToken(
  provider: Provider,
  ctx: KoaContextWithOIDC,
  db: Queryable,
  input: { agentId: string; app: App; resource: string; via: 'client_credentials' | 'workload_federation'; details: Record<string, unknown>; refusal: 'invalid_grant' | 'unauthorized_client' },
): Promise<void> {
  const [agent] = await db.select().from(agents).where(eq(agents.id, input.agentId)).limit(1);
  if (!agent || agent.orgId !== input.app.orgId) throw new WorkloadRefused('invalid_target', 'the resource is not an app of the agent’s organization');
  if (agent.disabledAt) throw new WorkloadRefused(input.refusal, 'the agent is disabled: it gets no token');
  const [connection] = await db
    .select({ id: agentConnections.id, mode: agentConnections.mode })
    .from(agentConnections)
    .where(and(eq(agentConnections.agentId, agent.id), eq(agentConnections.appId, input.app.id)))
    .limit(1);
  if (!connection || connection.mode !== 'own') throw new WorkloadRefused('invalid_target', 'the agent has no connection of its own (own mode) to this app');

  const catalog = await appResourceScopes(db, input.app.id);
  const held = await effectivePermissionsOfAgent(db, { orgId: input.app.orgId, appId: input.app.id, agentId: agent.id });
  const params = (ctx.oidc.params ?? {}) as Record<string, unknown>;
  // RFC 6749 §4.4.2 / RFC 7523 §2.1: `scope` narrows what the agent holds; nothing beyond it is ever added.
  // A scope naming only what the catalog lacks (a typo) narrows to nothing; it never reads as "none named".
  const named = typeof params.scope === 'string' ? params.scope.split(' ').filter(Boolean) : [];
  const scope = resourceTokenScope({ named, allowedByGrant: catalog, effective: new Set(held.map((permission) => permission.scope)) }).join(' ');
  const token = new provider.AccessToken({ accountId: agent.id, client: ctx.oidc.client, gty: input.via, scope: scope || undefined } as unknown as ConstructorParameters<Provider['AccessToken']>[0]);
  noteExchangedClaims(token, { org: input.app.orgId });
  token.resourceServer = appTokenResourceServer(provider, input.resource, { identity: input.app.identity, catalog });
  ctx.oidc.entity('AccessToken', token);
  const accessToken = await token.save();
  // Kept to the minute: the console shows when the agent last got a token, without a write per token.
  await noteAgentUse(db, agent.id);
  await recordAuditEvent(db, {
    orgId: input.app.orgId,
    actor: { type: 'agent', id: agent.id, label: agent.name },
    action: 'agent.token_issued',
    subject: { type: 'agent', id: agent.id, label: agent.name },
    appId: input.app.id,
    clientId: ctx.oidc.client?.clientId ?? null,
    details: { sub: agent.id, act: null, mode: 'own', via: input.via, connectionId: connection.id, scope, expiresIn: token.expiration, ...input.details },
  });
  ctx.body = { access_token: accessToken, token_type: 'Bearer', expires_in: token.expiration, ...(scope ? { scope } : {}) };
}

/** The client-credentials grant: an agent's own client only. */
export function registerClientCredentialsGrant(provider: Provider, deps: WorkloadGrantDeps): void {
  provider.registerGrantType(
    CLIENT_CREDENTIALS_GRANT_TYPE,
    async (ctx) => {
      const client = ctx.oidc.client;
      // The client's registered grant types already restrict this grant to agents' own clients; say it once more.
      if (!client || clientKindOf(client) !== 'agent' || !AGENT_CLIENT_ID.test(client.clientId)) throw new errors.UnauthorizedClient('only an agent’s own client may use the client-credentials grant');
      const db = deps.db();
      const [agent] = await db.select({ orgId: agents.orgId }).from(agents).where(eq(agents.id, client.clientId)).limit(1);
      if (!agent) throw new errors.InvalidClient('client authentication failed');
      const params = (ctx.oidc.params ?? {}) as Record<string, unknown>;
      const { app, resource } = await appOfResource(db, params.resource, agent.orgId);
      const kid = kidOfAssertion(params.client_assertion);
      await issueAgentOwnToken(provider, ctx, db, { agentId: client.clientId, app, resource, via: 'client_credentials', details: { kid: kid ?? null }, refusal: 'unauthorized_client' });
      if (kid) {
        await db
          .update(agentKeys)
          .set({ lastUsedAt: sql`now()` })
          .where(and(eq(agentKeys.agentId, client.clientId), eq(agentKeys.kid, kid), sql`(${agentKeys.lastUsedAt} is null or ${agentKeys.lastUsedAt} < now() - interval '1 minute')`));
      }
    },
    new Set(['resource', 'scope']),
  );
}


/** The jwt-bearer grant as SEP-1933 profiles it, for the `portico-workload` client (the caller dispatched on the client). */
export async function exchangeWorkloadToken(provider: Provider, ctx: KoaContextWithOIDC, deps: WorkloadGrantDeps): Promise<void> {
  const db = deps.db();
  const params = (ctx.oidc.params ?? {}) as Record<string, unknown>;
  // Anyone may present a token here (the assertion is the credential): counted per client network before any work,
  // generous for a cluster behind one address (each workload asks about every ten minutes), a wall for a flood.
  const limit = await hitRateLimit(db, WORKLOAD_PRESENTATIONS_PER_NETWORK, ctx.ip);
  if (limit.limited) {
    ctx.set('Retry-After', String(limit.retryAfterSeconds));
    throw Object.assign(new errors.SlowDown('too many workload tokens presented from this network: try again later'), { status: 429, statusCode: 429 });
  }
  const assertion = params.assertion;
  if (typeof assertion !== 'string' || assertion.length === 0) throw new errors.InvalidRequest('assertion is required: the workload’s own JWT');
  const { app, resource } = await appOfResource(db, params.resource);
  const evaluation = await evaluateWorkloadToken(db, app.orgId, assertion, {
    issuer: deps.issuer,
    tokenEndpoint: `${deps.issuer}/oidc/token`,
    outbound: deps.outbound,
    now: deps.now,
  });
  if (!evaluation.ok) throw new WorkloadRefused('invalid_grant', WORKLOAD_REFUSAL_TEXT[evaluation.refusal]);
  // Once only, across instances: the first presentation wins; a replay, here or on another instance, is refused.
  if (!(await recordWorkloadTokenUse(db, app.orgId, assertion, evaluation.payload))) throw new WorkloadRefused('invalid_grant', 'the assertion was already used');
  await issueAgentOwnToken(provider, ctx, db, {
    agentId: evaluation.agentId,
    app,
    resource,
    via: 'workload_federation',
    details: { ruleId: evaluation.rule.id, rule: evaluation.rule.name, issuer: evaluation.rule.issuer, workloadSubject: String(evaluation.payload.sub), jti: typeof evaluation.payload.jti === 'string' ? evaluation.payload.jti : null },
    refusal: 'invalid_grant',
  });
  await db
    .update(workloadTrustRules)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(workloadTrustRules.id, evaluation.rule.id), sql`(${workloadTrustRules.lastUsedAt} is null or ${workloadTrustRules.lastUsedAt} < now() - interval '1 minute')`));
}
