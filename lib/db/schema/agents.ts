// Agents: org-scoped automated actors created by people. They never hold a password or secret of their own.
// This issue lays down what consent needs (who may use which agent); direct grants and connections extend it.
import { sql } from 'drizzle-orm';
import { check, index, pgTable, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { organizations, users } from './accounts';

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
