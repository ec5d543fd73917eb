// Agents: org-scoped automated actors created by people. They never hold a password or secret of their own.
// This issue lays down what consent needs (who may use which agent); direct grants and connections extend it.
import { sql } from 'drizzle-orm';
import { check, foreignKey, index, pgEnum, pgTable, primaryKey, text, timestamp, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { organizations, users } from './accounts';
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
