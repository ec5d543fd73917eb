// Per-person OAuth to an upstream MCP server (credential 'oauth'): Portico is the upstream's MCP client, as the MCP
// authorization specification describes one. When the upstream answers with an RFC 9728 challenge, the MCP SDK's own
// `auth` discovers its authorization server, registers Portico there (its client ID metadata document when Portico's
// issuer is https and the server supports them, else RFC 7591), and runs the authorization code flow with PKCE in
// the person's browser. Portico keeps the person's tokens sealed at rest (gateway_connections), the SDK refreshes
// them when a call meets a 401, and they are revoked upstream when the person disconnects or leaves
// (lib/grants/gateway-connections.ts). The agent never sees them.
import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import { auth, type OAuthClientMetadata, type OAuthClientProvider, type OAuthDiscoveryState, type StoredOAuthClientInformation, type StoredOAuthTokens } from '@modelcontextprotocol/client';
import type { Queryable } from '../db/client';
import { gatewayConnections, gatewayServers, memberships, organizations, users } from '../db/schema';
import { endGatewayConnections } from '../grants/gateway-connections';
import { outboundFetch, type OutboundPolicy } from '../http/outbound';
import { decryptAtRest, encryptAtRest } from '../security/at-rest';
import { gatewayRefusal } from './refusal-codes';

/** Where the upstream's authorization server sends the person back (Portico's one redirect URI there). */
export const GATEWAY_CALLBACK_PATH = '/gateway/callback';
/** Portico's client ID metadata document as an upstream's MCP client. */
export const GATEWAY_CLIENT_METADATA_PATH = '/gateway/client-metadata.json';
/** Starts a person's connection to one server: `/console/gateway/connect/<server id>` (a console page: sign-in returns to it). */
export const GATEWAY_CONNECT_PATH = '/console/gateway/connect';

/** How long an authorization under way may take the person (RFC 6749 §10.12: the state lives no longer). */
const PENDING_SECONDS = 600;

/** What the gateway's doors and flows work with: Portico's issuer, the at-rest key (what is sealed), the outbound policy. */
export interface GatewayDoorDeps {
  issuer: string;
  atRestKey: Uint8Array;
  outboundPolicy: OutboundPolicy;
}

const hashState = (state: string) => createHash('sha256').update(state).digest('base64url');

/** Portico's metadata as an upstream's OAuth client: a public client (PKCE), one redirect URI. */
export function gatewayClientMetadata(issuer: string): OAuthClientMetadata {
  return {
    client_name: 'Portico MCP gateway',
    client_uri: issuer,
    redirect_uris: [`${issuer}${GATEWAY_CALLBACK_PATH}`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/** The client ID metadata document (draft-ietf-oauth-client-id-metadata-document): its `client_id` is its own URL. */
export function gatewayClientMetadataDocument(issuer: string): Record<string, unknown> {
  return { client_id: `${issuer}${GATEWAY_CLIENT_METADATA_PATH}`, ...gatewayClientMetadata(issuer) };
}

/** Requests to the upstream's authorization server go through the outbound guard, as every request Portico makes. */
export function oauthFetch(policy: OutboundPolicy): typeof fetch {
  return outboundFetch(policy, { timeoutMs: 10_000, maxBytes: 256 * 1024 });
}

/**
 * What the SDK's OAuth client keeps, in PostgreSQL: Portico's registration at the server (shared by every person),
 * this person's tokens, what was discovered of the authorization server, and the state and PKCE verifier of an
 * authorization under way, sealed where secret.
 *
 * `interactive`: the person's own connection flow (begin, callback), which may start an authorization. A call's client
 * is not: it refreshes the person's tokens at most, never starts an authorization nor touches one under way in their
 * browser, and never brings back a connection that ended meanwhile (it only updates a row that still exists).
 */
export class UpstreamOAuthClient implements OAuthClientProvider {
  /** Where the SDK sent the person (an authorization that needs the browser). */
  authorizationUrl?: URL;
  private registration?: StoredOAuthClientInformation;

  constructor(
    private readonly db: Queryable,
    private readonly server: { id: string; oauthClientSealed: string | null },
    private readonly userId: string,
    private readonly deps: Pick<GatewayDoorDeps, 'issuer' | 'atRestKey'>,
    private readonly interactive = false,
  ) {}

  get redirectUrl(): string {
    return `${this.deps.issuer}${GATEWAY_CALLBACK_PATH}`;
  }

  /** Only an https issuer can be fetched by an authorization server as a client ID (the document's URL must be https). */
  get clientMetadataUrl(): string | undefined {
    return this.deps.issuer.startsWith('https://') ? `${this.deps.issuer}${GATEWAY_CLIENT_METADATA_PATH}` : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return gatewayClientMetadata(this.deps.issuer);
  }

  async state(): Promise<string> {
    const state = randomBytes(32).toString('base64url');
    if (this.interactive) await this.upsert({ pendingStateHash: hashState(state), pendingExpiresAt: sql`now() + make_interval(secs => ${PENDING_SECONDS})` as never });
    return state;
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    if (this.registration) return this.registration;
    const [row] = await this.db.select({ sealed: gatewayServers.oauthClientSealed }).from(gatewayServers).where(eq(gatewayServers.id, this.server.id));
    return row?.sealed ? (this.registration = JSON.parse(await decryptAtRest(row.sealed, this.deps.atRestKey)) as StoredOAuthClientInformation) : undefined;
  }

  async saveClientInformation(information: StoredOAuthClientInformation): Promise<void> {
    this.registration = information;
    await this.db.update(gatewayServers).set({ oauthClientSealed: await encryptAtRest(JSON.stringify(information), this.deps.atRestKey) }).where(eq(gatewayServers.id, this.server.id));
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    const [row] = await this.db
      .select({ sealed: gatewayConnections.tokensSealed })
      .from(gatewayConnections)
      .where(and(eq(gatewayConnections.serverId, this.server.id), eq(gatewayConnections.userId, this.userId)));
    return row?.sealed ? (JSON.parse(await decryptAtRest(row.sealed, this.deps.atRestKey)) as StoredOAuthTokens) : undefined;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    // A refresh may answer without a new refresh token (RFC 6749 §6): the one held stays.
    const previous = tokens.refresh_token ? undefined : await this.tokens();
    const kept = previous?.refresh_token ? { ...tokens, refresh_token: previous.refresh_token } : tokens;
    const tokensSealed = await encryptAtRest(JSON.stringify(kept), this.deps.atRestKey);
    // Only a connection that exists (the callback's, whose row holds the pending state; a call's refresh): a person who
    // disconnected or left while a refresh was in flight stays disconnected.
    await this.db
      .update(gatewayConnections)
      .set({ tokensSealed, connectedAt: sql`coalesce(${gatewayConnections.connectedAt}, now())`, updatedAt: sql`now()` })
      .where(this.mine());
  }

  redirectToAuthorization(url: URL): void {
    if (this.interactive) this.authorizationUrl = url;
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    if (this.interactive) await this.upsert({ pendingVerifierSealed: await encryptAtRest(verifier, this.deps.atRestKey) });
  }

  /** RFC 9207 and the callback's authorization server: what discovery found is kept with the authorization. */
  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    if (this.interactive) await this.upsert({ discovery: state });
    else await this.db.update(gatewayConnections).set({ discovery: state }).where(this.mine());
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    const [row] = await this.db.select({ discovery: gatewayConnections.discovery }).from(gatewayConnections).where(this.mine());
    return (row?.discovery ?? undefined) as OAuthDiscoveryState | undefined;
  }

  /** The SDK found the tokens, the registration or the discovery dead (invalid_grant, invalid_client): forgotten. */
  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'client') {
      this.registration = undefined;
      await this.db.update(gatewayServers).set({ oauthClientSealed: null }).where(eq(gatewayServers.id, this.server.id));
    }
    if (scope === 'all' || scope === 'tokens') await this.db.update(gatewayConnections).set({ tokensSealed: null, connectedAt: null }).where(this.mine());
    if (scope === 'all' || scope === 'verifier') await this.db.update(gatewayConnections).set({ pendingVerifierSealed: null }).where(this.mine());
    if (scope === 'all' || scope === 'discovery') await this.db.update(gatewayConnections).set({ discovery: null }).where(this.mine());
  }

  private mine() {
    return and(eq(gatewayConnections.serverId, this.server.id), eq(gatewayConnections.userId, this.userId));
  }

  async codeVerifier(): Promise<string> {
    const [row] = await this.db
      .select({ sealed: gatewayConnections.pendingVerifierSealed })
      .from(gatewayConnections)
      .where(and(eq(gatewayConnections.serverId, this.server.id), eq(gatewayConnections.userId, this.userId)));
    if (!row?.sealed) throw new Error('no authorization is under way for this person and server');
    return decryptAtRest(row.sealed, this.deps.atRestKey);
  }

  private async upsert(values: Partial<typeof gatewayConnections.$inferInsert>, onUpdate = values): Promise<void> {
    await this.db
      .insert(gatewayConnections)
      .values({ serverId: this.server.id, userId: this.userId, ...values })
      .onConflictDoUpdate({ target: [gatewayConnections.serverId, gatewayConnections.userId], set: { ...onUpdate, updatedAt: sql`now()` } });
  }
}

/**
 * Starts the person's connection: the URL of the upstream's authorization server to send their browser to, or
 * undefined when they are connected already (valid tokens, or a refresh that worked).
 */
export async function beginUpstreamConnection(db: Queryable, server: { id: string; url: string; oauthClientSealed: string | null }, userId: string, deps: GatewayDoorDeps): Promise<URL | undefined> {
  const client = new UpstreamOAuthClient(db, server, userId, deps, true);
  try {
    const result = await auth(client, { serverUrl: server.url, fetchFn: oauthFetch(deps.outboundPolicy) });
    return result === 'REDIRECT' ? client.authorizationUrl : undefined;
  } catch {
    // The server's discovery, registration or refusal, in the gateway's words only.
    throw gatewayRefusal('upstream_refused', 'oauthUnavailable');
  }
}

/**
 * The person came back from the upstream's authorization server: `state` names their authorization under way (this
 * person's, unexpired, used once); the code is exchanged for their tokens, kept sealed. Answers the server's id.
 */
export async function completeUpstreamConnection(db: Queryable, userId: string, input: { state: string; code: string; iss?: string }, deps: GatewayDoorDeps): Promise<string> {
  const [pending] = await db
    .select({ serverId: gatewayConnections.serverId, url: gatewayServers.url, oauthClientSealed: gatewayServers.oauthClientSealed })
    .from(gatewayConnections)
    .innerJoin(gatewayServers, eq(gatewayServers.id, gatewayConnections.serverId))
    .where(and(eq(gatewayConnections.pendingStateHash, hashState(input.state)), eq(gatewayConnections.userId, userId), gt(gatewayConnections.pendingExpiresAt, sql`now()`)));
  if (!pending) throw gatewayRefusal('invalid', 'oauthState');
  const server = { id: pending.serverId, url: pending.url, oauthClientSealed: pending.oauthClientSealed };
  const client = new UpstreamOAuthClient(db, server, userId, deps, true);
  // Spent before the exchange: a second arrival of the same state finds nothing.
  const spent = await db
    .update(gatewayConnections)
    .set({ pendingStateHash: null, pendingExpiresAt: null })
    .where(and(eq(gatewayConnections.serverId, server.id), eq(gatewayConnections.userId, userId), eq(gatewayConnections.pendingStateHash, hashState(input.state))))
    .returning({ serverId: gatewayConnections.serverId });
  if (spent.length === 0) throw gatewayRefusal('invalid', 'oauthState');
  let result;
  try {
    // `iss` (RFC 9207 §2.4) is checked by the SDK against the authorization server recorded when the flow began.
    result = await auth(client, { serverUrl: server.url, authorizationCode: input.code, ...(input.iss ? { iss: input.iss } : {}), fetchFn: oauthFetch(deps.outboundPolicy) });
  } catch {
    throw gatewayRefusal('upstream_refused', 'oauthExchange');
  }
  if (result !== 'AUTHORIZED') throw gatewayRefusal('upstream_refused', 'oauthExchange');
  // Where the tokens are revoked when the person disconnects (RFC 7009): the revocation endpoint of the very
  // authorization server the code was exchanged at (the discovery kept with the flow), on that server's own origin —
  // never one that a later lookup, or an upstream, could point elsewhere.
  await db
    .update(gatewayConnections)
    .set({ pendingVerifierSealed: null, revocationEndpoint: revocationEndpointOf(await client.discoveryState()) })
    .where(and(eq(gatewayConnections.serverId, server.id), eq(gatewayConnections.userId, userId)));
  return server.id;
}

/** The revocation endpoint the discovered authorization server names, when it is on that server's issuer's origin. */
export function revocationEndpointOf(discovery: OAuthDiscoveryState | undefined): string | null {
  const metadata = discovery?.authorizationServerMetadata as { issuer?: unknown; revocation_endpoint?: unknown } | undefined;
  if (typeof metadata?.revocation_endpoint !== 'string' || typeof metadata.issuer !== 'string') return null;
  try {
    const endpoint = new URL(metadata.revocation_endpoint);
    if ((endpoint.protocol !== 'https:' && endpoint.protocol !== 'http:') || endpoint.origin !== new URL(metadata.issuer).origin) return null;
    return endpoint.href;
  } catch {
    return null;
  }
}

/** Whether the person has finished connecting to the server (tokens held). */
export async function isConnected(db: Queryable, serverId: string, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ sealed: gatewayConnections.tokensSealed })
    .from(gatewayConnections)
    .where(and(eq(gatewayConnections.serverId, serverId), eq(gatewayConnections.userId, userId)));
  return Boolean(row?.sealed);
}

/** Ends the person's connection: the tokens deleted now, their revocation queued (lib/grants). */
export async function disconnectUpstream(db: Queryable, serverId: string, userId: string): Promise<boolean> {
  return (await endGatewayConnections(db, { serverId, userId })) > 0;
}

export interface ConnectableServer {
  id: string;
  name: string;
  organization: string;
  connectedAt: Date | null;
}

/** The OAuth-protected, turned-on servers of the person's organizations, and whether they have connected to each. */
export async function connectableServersOf(db: Queryable, userId: string): Promise<ConnectableServer[]> {
  const rows = await db
    .select({ id: gatewayServers.id, name: gatewayServers.name, organization: organizations.name, connectedAt: gatewayConnections.connectedAt, tokens: gatewayConnections.tokensSealed })
    .from(gatewayServers)
    .innerJoin(organizations, eq(organizations.id, gatewayServers.orgId))
    .innerJoin(memberships, and(eq(memberships.orgId, gatewayServers.orgId), eq(memberships.userId, userId)))
    .leftJoin(gatewayConnections, and(eq(gatewayConnections.serverId, gatewayServers.id), eq(gatewayConnections.userId, userId)))
    .where(and(eq(gatewayServers.credentialKind, 'oauth'), isNull(gatewayServers.disabledAt)))
    .orderBy(asc(organizations.name), asc(gatewayServers.name));
  return rows.map((row) => ({ id: row.id, name: row.name, organization: row.organization, connectedAt: row.tokens ? row.connectedAt : null }));
}

/** Who connected their account at the server, and when (the console's "who connected what"). */
export async function connectionsOfServer(db: Queryable, serverId: string): Promise<{ userId: string; email: string; connectedAt: Date }[]> {
  const rows = await db
    .select({ userId: users.id, email: users.email, connectedAt: gatewayConnections.connectedAt, tokens: gatewayConnections.tokensSealed })
    .from(gatewayConnections)
    .innerJoin(users, eq(users.id, gatewayConnections.userId))
    .where(eq(gatewayConnections.serverId, serverId))
    .orderBy(asc(users.email));
  return rows.filter((row) => row.tokens && row.connectedAt).map((row) => ({ userId: row.userId, email: row.email, connectedAt: row.connectedAt! }));
}
