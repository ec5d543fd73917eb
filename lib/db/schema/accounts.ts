// People, organizations and who belongs where.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

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
    /**
     * Who must have a second factor (lib/accounts/factors/second-factor-policy.ts): none, the owners and admins, the approval
     * operators, or everyone. A person who must and has none is taken to set one up after their password.
     */
    secondFactorPolicy: text('second_factor_policy', { enum: ['none', 'admins', 'operators', 'everyone'] }).notNull().default('none'),
    /**
     * The language of its people who chose none (BCP 47, one of messages/*.json; lib/i18n/negotiate.ts). Null: the
     * browser's. No check constraint: the languages are the catalogs there are, and adding one is a file.
     */
    defaultLocale: text('default_locale'),
    /**
     * The time zone (IANA, lib/i18n/time-zone.ts) of the mail its people get when they saved none. Null: UTC, named.
     */
    defaultTimeZone: text('default_time_zone'),
    /**
     * Days its audit events stay in the database; older ones move to the archive (lib/audit/archive.ts), where
     * `audit verify` still checks them. Null: kept in the database for ever.
     */
    auditRetentionDays: integer('audit_retention_days'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('organizations_slug_key').on(t.slug),
    check('organizations_second_factor_policy', sql`${t.secondFactorPolicy} IN ('none', 'admins', 'operators', 'everyone')`),
    check('organizations_audit_retention_days', sql`${t.auditRetentionDays} IS NULL OR ${t.auditRetentionDays} BETWEEN 30 AND 36500`),
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
    /**
     * The parts of the name a directory gave (SCIM `name.givenName` / `name.familyName`), null when none did; `name`
     * stays the one the person is shown as.
     */
    givenName: text('given_name'),
    familyName: text('family_name'),
    /**
     * PHC string of the password's argon2id hash; never the password. Null until the person chooses one (an
     * account created by an operator gets a setup link, never a password).
     */
    passwordHash: text('password_hash'),
    /** When the person last proved they receive mail at `email` (invitation, verification or reset link). */
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
    /**
     * Set when someone other than the person knew the password (accounts created by an admin before invitations
     * existed): the next sign-in must choose a new one before it goes anywhere.
     */
    passwordChangeRequired: boolean('password_change_required').notNull().default(false),
    /** Incremented on every password change: sessions bound to an older version end. */
    credentialVersion: integer('credential_version').notNull().default(1),
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    /** The language the person chose (footer or account page), for pages and for the mail they receive; null: none. */
    locale: text('locale'),
    /** The time zone the person chose (IANA), for the times of their pages and their mail; null: none. */
    timeZone: text('time_zone'),
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
    /**
     * The person's email, kept equal to `users.email` by the database (drizzle/0049_membership_email.sql: set on
     * every insert, followed on every change of the person's email), so that the members page reads a hundred people
     * of a fifty-thousand-person organization in email order from an index instead of sorting them all. What code
     * writes here is replaced; the empty default only spares every insert from naming it.
     */
    email: text('email')
      .notNull()
      .$defaultFn(() => ''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.userId] }),
    index('memberships_org_email_idx').on(t.orgId, t.email),
    // A person's organizations (every MCP whoami, every token's account lookup): without it, a scan of every
    // membership of the installation — a million rows at scale (docs/benchmarks.md).
    index('memberships_user_idx').on(t.userId),
  ],
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
  (t) => [index('console_sessions_user_idx').on(t.userId), index('console_sessions_expires_idx').on(t.expiresAt)],
);

/** What a single-use account link lets its holder do. */
export const accountLinkPurpose = pgEnum('account_link_purpose', ['setup', 'reset', 'verify_email', 'change_required']);

/**
 * Single-use links mailed (or, for setup links, printed by the CLI) to a person: set the first password, reset it,
 * verify the email, or choose a new password at sign-in. Only the token's SHA-256 is stored; a link is spent by a
 * conditional UPDATE (consumed_at IS NULL), so it works once across every instance.
 */
export const accountLinks = pgTable(
  'account_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    purpose: accountLinkPurpose('purpose').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The address the link was sent to: a verification applies only while the account still has it. */
    email: text('email').notNull(),
    /** The organization whose sign-in form asked for it (branding, audit), if any. */
    orgId: uuid('org_id').references(() => organizations.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
  },
  (t) => [index('account_links_user_idx').on(t.userId, t.purpose), index('account_links_expires_idx').on(t.expiresAt)],
);

/**
 * Invitations: the only way into an organization. Membership begins when the invitee accepts, with the account
 * they create (choosing their own password) or the one they already have. Only the token's SHA-256 is stored;
 * resending replaces it, so the previous link stops working.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** Lower-cased, like users.email. */
    email: text('email').notNull(),
    role: membershipRole('role').notNull(),
    /** Teams joined on acceptance; teams deleted meanwhile are skipped. */
    teamIds: uuid('team_ids').array().notNull().default(sql`'{}'::uuid[]`),
    tokenHash: text('token_hash').notNull(),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSentAt: timestamp('last_sent_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
    acceptedBy: uuid('accepted_by').references(() => users.id, { onDelete: 'set null' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('invitations_token_hash_key').on(t.tokenHash),
    // One open invitation per email and organization: a second invite is a resend.
    uniqueIndex('invitations_open_key').on(t.orgId, t.email).where(sql`${t.acceptedAt} IS NULL AND ${t.revokedAt} IS NULL`),
    check('invitations_email_lowercase', sql`${t.email} = lower(${t.email})`),
  ],
);
