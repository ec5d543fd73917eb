// The approval broker: requests agents (or people) make through MCP, the decisions operators take, and the grants
// those decisions create. Constraints, not only code, keep the rules: one decision and at most one grant a request.
import { sql } from 'drizzle-orm';
import { boolean, check, foreignKey, index, integer, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { organizations, users } from './accounts';
import { apps } from './apps';

export const approvalKind = pgEnum('approval_kind', ['root_access', 'sensitive_access']);
export const approvalProfile = pgEnum('approval_profile', ['read', 'work', 'compose']);
export const approvalState = pgEnum('approval_state', ['pending', 'approved', 'denied', 'cancelled']);

export const approvalRequests = pgTable(
  'approval_requests',
  {
    /** `apr_…`: opaque. */
    id: text('id').primaryKey(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** The app (installation) the access is asked on. */
    appId: uuid('app_id').notNull(),
    subjectUserId: uuid('subject_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The agent asking for the person (`act.sub`), or '' when the person asks. */
    actor: text('actor').notNull().default(''),
    clientId: text('client_id').notNull(),
    kind: approvalKind('kind').notNull(),
    /** sensitive_access: the protected resource (e.g. a path). Null for root access. */
    resource: text('resource'),
    profile: approvalProfile('profile'),
    /** How long the grant would last; null: permanent (never through the central). */
    durationSeconds: integer('duration_seconds'),
    reason: text('reason').notNull(),
    /** SHA-256 over the immutable fields: a decision names it, and the broker checks it again. */
    fingerprint: text('fingerprint').notNull(),
    /** Temporary and specific: an operator may decide it in the central. Otherwise only the CLI. */
    centralEligible: boolean('central_eligible').notNull(),
    state: approvalState('state').notNull().default('pending'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** A pending request past this is expired (its state stays pending; readers compare the time). */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    /** Who decided: a user id, or `cli:<operator>`. */
    decidedBy: text('decided_by'),
  },
  (t) => [
    foreignKey({ columns: [t.appId, t.orgId], foreignColumns: [apps.id, apps.orgId] }).onDelete('cascade'),
    index('approval_requests_subject_pending_idx').on(t.subjectUserId, t.expiresAt).where(sql`${t.state} = 'pending'`),
    index('approval_requests_app_pending_idx').on(t.appId, t.expiresAt).where(sql`${t.state} = 'pending'`),
    check('approval_requests_decided', sql`(${t.state} = 'pending') = (${t.decidedAt} IS NULL)`),
    check('approval_requests_shape', sql`(${t.kind} = 'root_access' AND ${t.resource} IS NULL AND ${t.profile} IS NULL) OR (${t.kind} = 'sensitive_access' AND ${t.resource} IS NOT NULL AND ${t.profile} IS NOT NULL)`),
  ],
);

export const approvalGrants = pgTable(
  'approval_grants',
  {
    id: text('id').primaryKey(),
    /** At most one grant a request, whatever races: the unique index decides. */
    requestId: text('request_id')
      .notNull()
      .references(() => approvalRequests.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id').notNull(),
    appId: uuid('app_id').notNull(),
    subjectUserId: uuid('subject_user_id').notNull(),
    actor: text('actor').notNull(),
    kind: approvalKind('kind').notNull(),
    resource: text('resource'),
    profile: approvalProfile('profile'),
    grantedAt: timestamp('granted_at', { withTimezone: true }).notNull().defaultNow(),
    /** Null: permanent (granted through the CLI only). */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedBy: text('revoked_by'),
  },
  (t) => [uniqueIndex('approval_grants_request_key').on(t.requestId), index('approval_grants_subject_idx').on(t.subjectUserId, t.appId)],
);

/**
 * Sessions of the operator central: separate from the console's, at most 15 minutes, bound to the operator, the
 * credential version (a password change ends them), the origin and the installation they were opened at.
 */
export const centralSessions = pgTable('central_sessions', {
  tokenHash: text('token_hash').primaryKey(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  credentialVersion: integer('credential_version').notNull(),
  origin: text('origin').notNull(),
  installation: text('installation').notNull(),
  /** external (/central, its own tab) or embedded (/embedded-central, framed): a cookie of one never opens the other. */
  surface: text('surface', { enum: ['external', 'embedded'] }).notNull().default('external'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/**
 * Decision nonces: single use, 60 seconds, bound to the central session, the request, its fingerprint and the
 * installation. Logging out deletes the session and, with it, its nonces.
 */
export const decisionNonces = pgTable('decision_nonces', {
  nonceHash: text('nonce_hash').primaryKey(),
  sessionTokenHash: text('session_token_hash')
    .notNull()
    .references(() => centralSessions.tokenHash, { onDelete: 'cascade' }),
  requestId: text('request_id')
    .notNull()
    .references(() => approvalRequests.id, { onDelete: 'cascade' }),
  fingerprint: text('fingerprint').notNull(),
  installation: text('installation').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/**
 * The people an organization designates to decide an app's approval requests. An app with none is decided by the
 * organization's owners (the default).
 */
export const appOperators = pgTable(
  'app_operators',
  {
    appId: uuid('app_id').notNull(),
    orgId: uuid('org_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.userId] }),
    foreignKey({ columns: [t.appId, t.orgId], foreignColumns: [apps.id, apps.orgId] }).onDelete('cascade'),
  ],
);
