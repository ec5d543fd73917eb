// Agents: org-scoped automated actors created by people. They never hold a password or secret of their own.
// This issue lays down what consent needs (who may use which agent); direct grants and connections extend it.
import { sql } from 'drizzle-orm';
import { check, foreignKey, index, jsonb, pgEnum, pgTable, primaryKey, text, timestamp, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { organizations, teams, users } from './accounts';
import { apps } from './apps';

export const agents = pgTable(
  'agents',
  {
    /** `agt_<random>`: never confused with a person's id when it appears as a token's `sub` or `act.sub`. */
    id: text('id').primaryKey(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The person who created it and answers for it; the agent goes when they are deleted. */
    ownerUserId: uuid('owner_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    /**
     * Why it is disabled when no person disabled it: `owner_left` (its owner left the organization and no sponsor
     * team member remains, lib/organizations/agent-lifecycle.ts). Null when a person disabled it, or it is enabled.
     */
    suspendedReason: text('suspended_reason', { enum: ['owner_left'] }),
    /** When the organization's owners and admins were told of the suspension (the ticker's step; null: not yet). */
    suspensionToldAt: timestamp('suspension_told_at', { withTimezone: true }),
    /** A team of the organization that answers for it beside its owner: while it has members, the agent outlives its owner's leaving. */
    sponsorTeamId: uuid('sponsor_team_id').references(() => teams.id, { onDelete: 'set null' }),
    /**
     * Where its public keys are published (a JWKS URL, fetched through the outbound guard), beside or instead of the
     * keys registered in agent_keys: its own OAuth client authenticates with private_key_jwt (RFC 7523 §2.2).
     */
    jwksUri: text('jwks_uri'),
    /** The latest token issued to it (by exchange, client credentials or federation), to the minute. */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('agents_org_idx').on(t.orgId),
    // Target of grant_bindings' composite key: an agent can only act inside its own organization.
    unique('agents_id_org_key').on(t.id, t.orgId),
    check('agents_id_format', sql`${t.id} ~ '^agt_[A-Za-z0-9_-]{16,64}$'`),
  ],
);

/** People other than the owner who may use an agent (choose it as who acts on the consent screen). */
export const agentUsers = pgTable(
  'agent_users',
  {
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.userId] }), index('agent_users_user_idx').on(t.userId)],
);

/**
 * A scope on one app granted to the agent itself. In own mode this is all the agent can do: no organization role
 * and no team grant reaches an agent.
 */
export const agentGrants = pgTable(
  'agent_grants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: text('agent_id').notNull(),
    orgId: uuid('org_id').notNull(),
    appId: uuid('app_id').notNull(),
    scope: text('scope').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Agent and app of one organization: moving the agent elsewhere is impossible while a grant remains.
    foreignKey({ columns: [t.agentId, t.orgId], foreignColumns: [agents.id, agents.orgId] }).onDelete('cascade'),
    foreignKey({ columns: [t.appId, t.orgId], foreignColumns: [apps.id, apps.orgId] }).onDelete('cascade'),
    uniqueIndex('agent_grants_agent_app_scope_key').on(t.agentId, t.appId, t.scope),
    check('agent_grants_scope_format', sql`${t.scope} ~ '^[A-Za-z0-9:._-]{1,64}$'`),
  ],
);

/** How an agent reaches an app: as itself (own) or for one named person (delegated). Never inferred. */
export const connectionMode = pgEnum('connection_mode', ['own', 'delegated']);

/**
 * An agent's connection to one app, configured by a person with an explicit mode (no default). The CHECK makes a
 * mix impossible: own mode names no person (the token's `sub` is the agent); delegated mode names exactly one (the
 * token's `sub` is that person and `act` the agent).
 */
export const agentConnections = pgTable(
  'agent_connections',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: text('agent_id').notNull(),
    orgId: uuid('org_id').notNull(),
    appId: uuid('app_id').notNull(),
    mode: connectionMode('mode').notNull(),
    delegateUserId: uuid('delegate_user_id').references(() => users.id, { onDelete: 'cascade' }),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * Delegated mode only: the subset of the person's permissions the connection may use, chosen when it is set up.
     * Null: all the person's permissions. Never widens them (lib/organizations/effective-permissions.ts).
     */
    narrowedTo: text('narrowed_to').array(),
  },
  (t) => [
    foreignKey({ columns: [t.agentId, t.orgId], foreignColumns: [agents.id, agents.orgId] }).onDelete('cascade'),
    foreignKey({ columns: [t.appId, t.orgId], foreignColumns: [apps.id, apps.orgId] }).onDelete('cascade'),
    check('agent_connections_narrowing_delegated', sql`${t.narrowedTo} IS NULL OR ${t.mode} = 'delegated'`),
    uniqueIndex('agent_connections_agent_app_key').on(t.agentId, t.appId),
    check(
      'agent_connections_mode_exclusive',
      sql`(${t.mode} = 'own' AND ${t.delegateUserId} IS NULL) OR (${t.mode} = 'delegated' AND ${t.delegateUserId} IS NOT NULL)`,
    ),
  ],
);

/**
 * A public key of an agent's own OAuth client (client_id = the agent's id, private_key_jwt, the client-credentials
 * grant). Only public keys: the private key never reaches Portico. Several at once is how a key is rotated: the new
 * one is added, the workload moves to it, the old one is removed.
 */
export const agentKeys = pgTable(
  'agent_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: text('agent_id').notNull(),
    orgId: uuid('org_id').notNull(),
    /** The key's `kid` (its RFC 7638 thumbprint when it came without one): what a client assertion's header names. */
    kid: text('kid').notNull(),
    alg: text('alg', { enum: ['ES256', 'RS256', 'PS256', 'EdDSA'] }).notNull(),
    /** The public JWK as registered, without private members (checked when it is added). */
    publicJwk: jsonb('public_jwk').$type<Record<string, unknown>>().notNull(),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [
    foreignKey({ columns: [t.agentId, t.orgId], foreignColumns: [agents.id, agents.orgId] }).onDelete('cascade'),
    uniqueIndex('agent_keys_agent_kid_key').on(t.agentId, t.kid),
  ],
);

/** The kinds of external workload issuer an organization can trust; each suggests its own claims (lib/organizations/workload-trust.ts). */
export const WORKLOAD_ISSUER_KINDS = ['kubernetes', 'spiffe', 'ci', 'generic'] as const;
export type WorkloadIssuerKind = (typeof WORKLOAD_ISSUER_KINDS)[number];

/**
 * Workload identity federation: the organization trusts an external issuer's JWTs (a Kubernetes cluster's
 * service-account tokens, a SPIFFE trust domain's JWT-SVIDs, a CI provider's OIDC tokens) for one agent, when the
 * token's subject, or the claims named here, match exactly. Nothing secret: the issuer's public keys come from its
 * JWKS URL (through the outbound guard) or are registered here.
 */
export const workloadTrustRules = pgTable(
  'workload_trust_rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id').notNull(),
    agentId: text('agent_id').notNull(),
    name: text('name').notNull(),
    kind: text('kind', { enum: WORKLOAD_ISSUER_KINDS }).notNull(),
    /** The `iss` the tokens carry, exactly. */
    issuer: text('issuer').notNull(),
    jwksUri: text('jwks_uri'),
    /** The issuer's public keys, when they are registered rather than fetched (a cluster whose issuer is not reachable). */
    jwks: jsonb('jwks').$type<{ keys: Record<string, unknown>[] }>(),
    /** The `aud` the tokens must carry; null: Portico's issuer or its token endpoint. */
    audience: text('audience'),
    /** The `sub` the tokens must carry exactly; null: the claims decide. */
    subject: text('subject'),
    /** Claims the tokens must carry with exactly these values, by dotted path (`kubernetes.io.namespace`). */
    claims: jsonb('claims').$type<Record<string, string>>().notNull().default({}),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [
    foreignKey({ columns: [t.agentId, t.orgId], foreignColumns: [agents.id, agents.orgId] }).onDelete('cascade'),
    index('workload_trust_rules_org_issuer_idx').on(t.orgId, t.issuer),
    index('workload_trust_rules_issuer_idx').on(t.issuer),
    check('workload_trust_rules_keys', sql`(${t.jwksUri} IS NULL) <> (${t.jwks} IS NULL)`),
    // A rule that matched every token of an issuer would hand one agent to every workload the issuer signs for.
    check('workload_trust_rules_narrow', sql`${t.subject} IS NOT NULL OR ${t.claims} <> '{}'::jsonb`),
  ],
);
