// Enterprise-managed authorization (draft-ietf-oauth-identity-assertion-authz-grant, the MCP extension that profiles
// it): Identity Assertion JWT Authorization Grants (ID-JAGs) that Portico issues as a company's identity provider,
// and those it accepts as the authorization server of an organization's apps.
import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './accounts';
import { apps } from './apps';
import { identityConnections } from './identity';

/**
 * Issuing: an outside MCP server the organization's people reach with an ID-JAG from Portico. The ID-JAG's `aud` is
 * the server's authorization server, its `resource` the server, its `client_id` the id the agent has there, and its
 * `scope` at most `allowed_scopes`.
 */
export const remoteMcpServers = pgTable(
  'remote_mcp_servers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The resource authorization server's issuer identifier (RFC 8414): the ID-JAG's audience. */
    authorizationServer: text('authorization_server').notNull(),
    /** The MCP server's resource identifier (RFC 8707, RFC 9728). */
    resource: text('resource').notNull(),
    /** The client id the agent has at that authorization server. */
    remoteClientId: text('remote_client_id').notNull(),
    /** The scopes anyone may receive for the server. */
    allowedScopes: text('allowed_scopes').array().notNull().default(sql`'{}'::text[]`),
    /**
     * An app of the organization that stands for the server in the permissions model: each person receives only the
     * allowed scopes they hold on it (teams, direct grants). Without one, every member holds every allowed scope.
     */
    permissionsAppId: uuid('permissions_app_id').references(() => apps.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique('remote_mcp_servers_org_name_key').on(t.orgId, t.name), unique('remote_mcp_servers_target_key').on(t.orgId, t.authorizationServer, t.resource)],
);

/**
 * Receiving: a company identity provider whose ID-JAGs the organization accepts for its apps. Either one of its
 * OpenID Connect connections (issuer and keys from the connection's discovery; the subject is the person linked to
 * `iss` + `sub` through it) or an issuer and its JWKS URI (the subject is the member whose address the assertion's
 * `email` names, at one of the organization's verified domains).
 */
export const trustedAssertionIssuers = pgTable(
  'trusted_assertion_issuers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    connectionId: uuid('connection_id').references(() => identityConnections.id, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    jwksUri: text('jwks_uri'),
    /**
     * The issuer's tenant this organization is (the ID-JAG's `tenant` claim, draft §3.1), for an identity provider
     * that serves several organizations under one issuer (Portico among them): ID-JAGs of any other tenant are refused.
     */
    tenant: text('tenant'),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // One entry per issuer and tenant (several tenants of one issuer may each be trusted).
    unique('trusted_assertion_issuers_org_issuer_key').on(t.orgId, t.issuer, t.tenant).nullsNotDistinct(),
    check('trusted_assertion_issuers_source', sql`(${t.connectionId} IS NULL) <> (${t.jwksUri} IS NULL)`),
  ],
);

/**
 * ID-JAGs already exchanged, by the SHA-256 of issuer and `jti`, until they expire: each is used once, on whichever
 * instance it arrives first (MCP enterprise-managed authorization §7.4.2). Rows past `expires_at` are purged.
 */
export const assertionUses = pgTable(
  'assertion_uses',
  {
    key: text('key').primaryKey(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('assertion_uses_expires_idx').on(t.expiresAt)],
);
