// Apps an organization publishes, and the OAuth clients that reach them.
import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { organizations, teams, users } from './accounts';
import { agents } from './agents';

export const apps = pgTable(
  'apps',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    avatarUrl: text('avatar_url'),
    /**
     * What the app is, in the admins' words, one per language (`{ "en": "…", "pt-BR": "…" }`): the sign-in card shows
     * the one of the page's language, else the English one (lib/clients/app-context.ts `descriptionIn`).
     */
    descriptions: jsonb('descriptions').$type<Record<string, string>>().notNull().default({}),
    /** The origin the app is published at; its protected resource is `<origin>/api/mcp`. */
    publishOrigin: text('publish_origin').notNull(),
    /** Fixed for the app's lifetime: the `aud` of every access token issued for it. */
    identity: text('identity').notNull(),
    /** Dev-only redirect URIs are accepted while this lies in the future; null: the dev environment is off. */
    devEnvironmentUntil: timestamp('dev_environment_until', { withTimezone: true }),
    /** While set, the app is disabled: nobody signs in to it and its clients get no tokens (reversible). */
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    /**
     * The app's own client may ask a person to approve an action from its backend (OpenID Connect CIBA, poll mode,
     * lib/oidc/ciba.ts). Off until an admin turns it on in the console.
     */
    cibaEnabled: boolean('ciba_enabled').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('apps_identity_key').on(t.identity),
    uniqueIndex('apps_org_slug_key').on(t.orgId, t.slug),
    // Target of agent grants' and connections' composite keys: an agent only reaches apps of its own organization.
    unique('apps_id_org_key').on(t.id, t.orgId),
  ],
);

export const clientKind = pgEnum('client_kind', ['app', 'external', 'dynamic', 'cimd']);
export const clientType = pgEnum('client_type', ['confidential', 'public']);

export const clients = pgTable(
  'clients',
  {
    /** The OAuth client_id. */
    id: text('id').primaryKey(),
    kind: clientKind('kind').notNull(),
    /** Fixed at registration (RFC 6749 §2.1); never changes. */
    type: clientType('type').notNull(),
    orgId: uuid('org_id').references(() => organizations.id, { onDelete: 'cascade' }),
    /** For an app's own client: that app. For an external client: its target app. */
    appId: uuid('app_id').references(() => apps.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tokenEndpointAuthMethod: text('token_endpoint_auth_method').notNull(),
    /** Remaining registered metadata (RFC 7591 §2) that has no column of its own. */
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    /**
     * Version of the client's credential state: every rotation step (start, complete, cancel) moves it by one, by
     * compare-and-swap, so a step based on a stale view is refused. Null for public clients.
     */
    secretGeneration: integer('secret_generation'),
    /** While a rotation is in progress: when its overlap window ends (the old secret's last moment). */
    rotationEndsAt: timestamp('rotation_ends_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /**
     * The first and the latest token the client obtained (any app, or Portico's API): what the clean-up of
     * dynamically registered clients reads (lib/clients/cleanup.ts). The latest is kept to the minute.
     */
    firstUsedAt: timestamp('first_used_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [
    // Target of client_secrets' composite foreign key: a secret can only hang off a confidential client.
    unique('clients_id_type_key').on(t.id, t.type),
    index('clients_app_idx').on(t.appId),
    index('clients_dynamic_use_idx').on(t.kind, t.lastUsedAt),
    check(
      'clients_type_exclusive',
      sql`(${t.type} = 'public' AND ${t.tokenEndpointAuthMethod} = 'none' AND ${t.secretGeneration} IS NULL)
        OR (${t.type} = 'confidential' AND ${t.tokenEndpointAuthMethod} IN ('client_secret_basic', 'client_secret_post') AND ${t.secretGeneration} IS NOT NULL)`,
    ),
    check('clients_public_no_rotation', sql`${t.type} = 'confidential' OR ${t.rotationEndsAt} IS NULL`),
    // An app's own client: confidential for a web app, public (PKCE, no secret) for a single-page or native app.
    check('clients_app_kind', sql`${t.kind} <> 'app' OR (${t.appId} IS NOT NULL AND ${t.orgId} IS NOT NULL)`),
  ],
);

export const clientSecrets = pgTable(
  'client_secrets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: text('client_id').notNull(),
    /** Always 'confidential': with the composite key below, public clients cannot own a secret. */
    clientType: clientType('client_type').notNull().default('confidential'),
    generation: integer('generation').notNull(),
    /** SHA-256 of the secret (hex). Secrets are 256-bit random values, so a fast hash is enough. */
    secretHash: text('secret_hash').notNull(),
    validFrom: timestamp('valid_from', { withTimezone: true }).notNull().defaultNow(),
    validUntil: timestamp('valid_until', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    foreignKey({ columns: [t.clientId, t.clientType], foreignColumns: [clients.id, clients.type] }).onDelete('cascade'),
    uniqueIndex('client_secrets_generation_key').on(t.clientId, t.generation),
    check('client_secrets_confidential_only', sql`${t.clientType} = 'confidential'`),
  ],
);

export const redirectUris = pgTable(
  'redirect_uris',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    /** Compared by exact string match (RFC 9700 §4.1.3): no wildcards, no prefixes. */
    uri: text('uri').notNull(),
    /** Accepted only while the app's dev environment is active. */
    devOnly: boolean('dev_only').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('redirect_uris_client_uri_key').on(t.clientId, t.uri)],
);

/** A scope on one app granted to every member of a team (never to agents: they hold direct grants only). */
export const teamGrants = pgTable(
  'team_grants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('team_grants_team_app_scope_key').on(t.teamId, t.appId, t.scope)],
);

/**
 * Which apps an external, dynamically registered or CIMD client has reached, and whether the app's organization
 * revoked it there. Revocation is per app: a dynamic or CIMD client may serve people of several organizations.
 */
export const clientAppLinks = pgTable(
  'client_app_links',
  {
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** The first and the latest token the client obtained for this app (the console's Clients page shows both). */
    firstUsedAt: timestamp('first_used_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.appId] }), index('client_app_links_org_idx').on(t.orgId)],
);

/**
 * What a person's consent bound an oidc-provider grant to (RFC 8707): the app its resource named at the
 * authorization request (or, with no app, Portico's own API) and who acts. Written once at consent; code exchange
 * and refresh read it instead of resolving the resource again, so the binding cannot change under a live grant.
 */
export const grantBindings = pgTable(
  'grant_bindings',
  {
    grantId: text('grant_id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    /** Null: the grant is for Portico's own API (`<issuer>/api/mcp`), which belongs to no organization. */
    appId: uuid('app_id').references(() => apps.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id').references(() => organizations.id, { onDelete: 'cascade' }),
    /** The resource indicator exactly as requested and granted. */
    resource: text('resource').notNull(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Null: the person acts. Otherwise the agent named as `act` (RFC 8693 §4.1); deleting it ends the binding. */
    agentId: text('agent_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The agent must belong to the organization of the app it acts in.
    foreignKey({ columns: [t.agentId, t.orgId], foreignColumns: [agents.id, agents.orgId] }).onDelete('cascade'),
    index('grant_bindings_client_app_idx').on(t.clientId, t.appId),
    index('grant_bindings_account_idx').on(t.accountId),
    check('grant_bindings_app_org_together', sql`(${t.appId} IS NULL) = (${t.orgId} IS NULL)`),
    // An agent is org-scoped: it can only be named for an app (the composite key above needs a non-null org).
    check('grant_bindings_agent_needs_org', sql`${t.agentId} IS NULL OR ${t.orgId} IS NOT NULL`),
  ],
);

/**
 * What an app exposes to MCP clients, as it declared it, and how the last verification of that declaration went.
 * The surface secret signs calls between Portico and the app (the app's PORTICO_SURFACE_SECRET); Portico needs it
 * in clear to compute the HMAC, so it is stored encrypted at rest (JWE, like the signing keys), never hashed.
 */
export const appSurfaces = pgTable('app_surfaces', {
  appId: uuid('app_id')
    .primaryKey()
    .references(() => apps.id, { onDelete: 'cascade' }),
  secretEncrypted: text('secret_encrypted'),
  secretCreatedAt: timestamp('secret_created_at', { withTimezone: true }),
  /** The declared tools: [{ name, riskLevel, requiredScopes }], sorted by name. Null until the app declares. */
  declaration: jsonb('declaration'),
  declaredContractVersion: integer('declared_contract_version'),
  declaredAt: timestamp('declared_at', { withTimezone: true }),
  /** The outcome of the last verification started from the security tab: { outcome, detail, difference? }. */
  lastCheck: jsonb('last_check'),
  lastCheckedAt: timestamp('last_checked_at', { withTimezone: true }),
});

/**
 * An app's permission catalog, as its admins keep it: scopes they added, and descriptions (or a retirement) of
 * scopes the app's surface declares. The catalog an app offers is the baseline `mcp`, the declared scopes and the
 * added ones, less the retired (lib/clients/permission-catalog.ts).
 */
export const appPermissions = pgTable(
  'app_permissions',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    /** An RFC 6749 §3.3 scope token. */
    scope: text('scope').notNull(),
    /** A short human description ("Delete invoices"), shown on consent screens and pickers. */
    description: text('description').notNull(),
    /** Added by an admin (true), or only a description of a scope the app declares (false). */
    added: boolean('added').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set when an admin retires the permission: it leaves the catalog (and, once tokens read it, their scopes). */
    retiredAt: timestamp('retired_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.scope] }),
    check('app_permissions_scope_token', sql`${t.scope} ~ '^[A-Za-z0-9:._-]{1,64}$'`),
    check('app_permissions_description_length', sql`char_length(${t.description}) between 1 and 200`),
  ],
);

/**
 * A permission on an app granted to one person directly (beside what their teams grant). The person must be a member
 * of the app's organization for it to count; leaving removes it (lib/organizations/memberships.ts).
 */
export const personGrants = pgTable(
  'person_grants',
  {
    orgId: uuid('org_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    appId: uuid('app_id').notNull(),
    scope: text('scope').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.appId, t.scope] }),
    foreignKey({ columns: [t.appId, t.orgId], foreignColumns: [apps.id, apps.orgId] }).onDelete('cascade'),
    check('person_grants_scope_format', sql`${t.scope} ~ '^[A-Za-z0-9:._-]{1,64}$'`),
  ],
);
