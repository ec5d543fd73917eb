// The MCP gateway (docs/gateway.md): an organization's upstream MCP servers, each served by Portico as a protected
// resource of its own at `<issuer>/mcp/<org>/<server>`, and the tools Portico read from each, pinned by digest.
import { sql } from 'drizzle-orm';
import { check, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { organizations, users } from './accounts';
import { apps } from './apps';

/**
 * An upstream MCP server behind Portico. It stands in the permissions model as an app (`app_id`): its tokens carry
 * that app's identity as audience, MCP clients bind to it by its resource, and its tools' permissions are that app's
 * catalog, granted to teams, people and agents as any app's.
 */
export const gatewayServers = pgTable(
  'gateway_servers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    /** The upstream's Streamable HTTP endpoint, reached only through the outbound guard. */
    url: text('url').notNull(),
    /** `<issuer>/mcp/<org slug>/<slug>` as it was when the server was added: its RFC 8707 resource identifier, for good. */
    resource: text('resource').notNull(),
    /**
     * 'none'; 'header': a static header (an API key or a bearer token) Portico sends and the agent never sees; or
     * 'oauth': each person connects their own account at the upstream's authorization server (gateway_connections).
     */
    credentialKind: text('credential_kind').notNull().default('none'),
    credentialHeader: text('credential_header'),
    /** The header's value, sealed at rest (JWE with the installation's at-rest key); shown once, never again. */
    credentialSealed: text('credential_sealed'),
    /** 'oauth': Portico's client registration at the upstream's authorization server (RFC 7591 answer), sealed. */
    oauthClientSealed: text('oauth_client_sealed'),
    timeoutMs: integer('timeout_ms').notNull().default(30_000),
    maxResponseBytes: integer('max_response_bytes').notNull().default(1_048_576),
    maxConcurrentCalls: integer('max_concurrent_calls').notNull().default(8),
    /** What the last contact with the upstream found: 'unknown', 'ok', 'unreachable', 'invalid'. */
    status: text('status').notNull().default('unknown'),
    statusDetail: text('status_detail'),
    checkedAt: timestamp('checked_at', { withTimezone: true }),
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('gateway_servers_org_slug_key').on(t.orgId, t.slug),
    unique('gateway_servers_resource_key').on(t.resource),
    unique('gateway_servers_app_key').on(t.appId),
    check('gateway_servers_credential_check', sql`(${t.credentialKind} = 'none' AND ${t.credentialSealed} IS NULL AND ${t.credentialHeader} IS NULL) OR (${t.credentialKind} = 'header' AND ${t.credentialSealed} IS NOT NULL AND ${t.credentialHeader} IS NOT NULL) OR (${t.credentialKind} = 'oauth' AND ${t.credentialSealed} IS NULL AND ${t.credentialHeader} IS NULL)`),
    check('gateway_servers_status_check', sql`${t.status} IN ('unknown', 'ok', 'unreachable', 'invalid')`),
  ],
);

/**
 * A tool an upstream offers, as Portico last read it, and the definition an admin approved. Agents are offered the
 * tool only while the two digests are equal: a new tool waits for approval, and a changed one is withheld until an
 * admin approves the new definition (tool poisoning, a "rug pull": docs/gateway.md).
 */
export const gatewayTools = pgTable(
  'gateway_tools',
  {
    serverId: uuid('server_id')
      .notNull()
      .references(() => gatewayServers.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The definition Portico last read: name, title, description, input and output schema, annotations. */
    offeredDefinition: jsonb('offered_definition').notNull(),
    /** SHA-256 (base64url) of the offered definition in RFC 8785 form. */
    offeredDigest: text('offered_digest').notNull(),
    approvedDefinition: jsonb('approved_definition'),
    approvedDigest: text('approved_digest'),
    approvedAt: timestamp('approved_at', { withTimezone: true }),
    approvedBy: uuid('approved_by').references(() => users.id, { onDelete: 'set null' }),
    /** From the annotations: readOnlyHint → safe, destructiveHint → approval_required, otherwise caution. */
    proposedLevel: text('proposed_level').notNull(),
    /** The level calls run at (the admin's; the proposal until they set one). */
    riskLevel: text('risk_level').notNull(),
    /** The catalog permission a token needs to list and call the tool; the baseline `mcp` lets every member. */
    permission: text('permission').notNull().default('mcp'),
    /** The upstream stopped offering it: it is offered to nobody. */
    removedAt: timestamp('removed_at', { withTimezone: true }),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.serverId, t.name] }),
    check('gateway_tools_levels_check', sql`${t.riskLevel} IN ('safe', 'caution', 'review', 'approval_required') AND ${t.proposedLevel} IN ('safe', 'caution', 'review', 'approval_required')`),
  ],
);

/**
 * A person's own account at an OAuth-protected upstream (credential 'oauth'): Portico is the upstream's MCP client
 * (authorization code with PKCE in the person's browser) and keeps the tokens sealed; the agent never sees them.
 * While an authorization is under way, its state (hashed) and PKCE verifier (sealed) wait here.
 */
export const gatewayConnections = pgTable(
  'gateway_connections',
  {
    serverId: uuid('server_id')
      .notNull()
      .references(() => gatewayServers.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The upstream's tokens (access, refresh), sealed at rest; null until the person finished connecting. */
    tokensSealed: text('tokens_sealed'),
    /** SHA-256 of the `state` of the authorization under way (RFC 6749 §10.12), and its PKCE verifier sealed. */
    pendingStateHash: text('pending_state_hash'),
    pendingVerifierSealed: text('pending_verifier_sealed'),
    pendingExpiresAt: timestamp('pending_expires_at', { withTimezone: true }),
    /**
     * What the SDK discovered of the upstream's authorization server when the person connected (RFC 9728, RFC 8414):
     * the redirect's callback is checked against it (RFC 9207 `iss`), refreshes use it, and the revocation endpoint
     * comes from it. Not secret.
     */
    discovery: jsonb('discovery'),
    /** The authorization server's revocation endpoint (RFC 7009), from `discovery`, on its issuer's origin. */
    revocationEndpoint: text('revocation_endpoint'),
    connectedAt: timestamp('connected_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.serverId, t.userId] }), unique('gateway_connections_state_key').on(t.pendingStateHash)],
);
