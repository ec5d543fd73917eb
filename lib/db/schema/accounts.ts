// People, organizations and who belongs where.
import { sql } from 'drizzle-orm';
import { check, index, integer, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

export const organizations = pgTable(
  'organizations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    // Whitelabel branding: all null means "dressed in Portico's own brand".
    brandDisplayName: text('brand_display_name'),
    brandLogoUrl: text('brand_logo_url'),
    brandPrimaryColor: text('brand_primary_color'),
    brandBackgroundColor: text('brand_background_color'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('organizations_slug_key').on(t.slug),
    check('organizations_slug_format', sql`${t.slug} ~ '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$'`),
    check('organizations_brand_primary_color_hex', sql`${t.brandPrimaryColor} IS NULL OR ${t.brandPrimaryColor} ~ '^#[0-9a-fA-F]{6}$'`),
    check('organizations_brand_background_color_hex', sql`${t.brandBackgroundColor} IS NULL OR ${t.brandBackgroundColor} ~ '^#[0-9a-fA-F]{6}$'`),
  ],
);

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Stored lower-cased; uniqueness is on the normalized form. */
    email: text('email').notNull(),
    name: text('name').notNull(),
    /** PHC string of the password's argon2id hash; never the password. */
    passwordHash: text('password_hash').notNull(),
    /** Incremented on every password change: sessions bound to an older version end. */
    credentialVersion: integer('credential_version').notNull().default(1),
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_email_key').on(t.email),
    check('users_email_lowercase', sql`${t.email} = lower(${t.email})`),
  ],
);

export const membershipRole = pgEnum('membership_role', ['owner', 'admin', 'member']);

export const memberships = pgTable(
  'memberships',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: membershipRole('role').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] })],
);

export const teams = pgTable(
  'teams',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('teams_org_name_key').on(t.orgId, t.name)],
);

export const teamMembers = pgTable(
  'team_members',
  {
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] })],
);

/** Sessions of Portico's own console. The cookie carries a random token; only its SHA-256 is stored. */
export const consoleSessions = pgTable(
  'console_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The person's credential version at sign-in: a password change ends the session. */
    credentialVersion: integer('credential_version').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
  },
  (t) => [index('console_sessions_user_idx').on(t.userId)],
);
