// The approval broker: requests agents (or people) make through MCP, the decisions operators take, and the grants
// those decisions create. Constraints, not only code, keep the rules: one decision and at most one grant a request.
import { sql } from 'drizzle-orm';
import { boolean, check, foreignKey, type AnyPgColumn, index, integer, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { organizations, teams, users } from './accounts';
import { apps } from './apps';

export const approvalKind = pgEnum('approval_kind', ['root_access', 'sensitive_access']);
export const approvalProfile = pgEnum('approval_profile', ['read', 'work', 'compose']);
export const approvalState = pgEnum('approval_state', ['pending', 'approved', 'denied', 'cancelled', 'expired']);

/**
 * What a request is, for the organization's approval policies: read (sensitive access to read), write (to work or
 * compose), protected (a broad path: the root or a pattern), root (root access), permanent (no end). The first that
 * fits, in the order permanent, root, protected, then the profile.
 */
export const APPROVAL_POLICY_KINDS = ['read', 'write', 'protected', 'root', 'permanent'] as const;
export type ApprovalPolicyKind = (typeof APPROVAL_POLICY_KINDS)[number];

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
    /** Who decided: a user id, or `cli:<operator>`, `subject` (cancelled) or `expiry`. */
    decidedBy: text('decided_by'),
    /** Its kind for the approval policies (APPROVAL_POLICY_KINDS), fixed when it is made. */
    policyKind: text('policy_kind', { enum: APPROVAL_POLICY_KINDS }).notNull().default('write'),
    /** The policy that governed it when it was made (null: the default rule). Its rules below are a copy. */
    policyId: uuid('policy_id').references((): AnyPgColumn => approvalPolicies.id, { onDelete: 'set null' }),
    /** How many distinct deciders must approve. */
    quorum: integer('quorum').notNull().default(1),
    /** One denial ends it (otherwise it waits for the quorum, or its expiry). */
    anyDenyEnds: boolean('any_deny_ends').notNull().default(true),
    /** The longest grant it may give, whatever it asked for (null: what it asked for). */
    maxGrantSeconds: integer('max_grant_seconds'),
    /** When the escalation group is told, if nobody decided by then. */
    escalateAt: timestamp('escalate_at', { withTimezone: true }),
    escalatedAt: timestamp('escalated_at', { withTimezone: true }),
    /** When its deciders were reminded (at most once). */
    remindedAt: timestamp('reminded_at', { withTimezone: true }),
  },
  (t) => [
    foreignKey({ columns: [t.appId, t.orgId], foreignColumns: [apps.id, apps.orgId] }).onDelete('cascade'),
    index('approval_requests_subject_pending_idx').on(t.subjectUserId, t.expiresAt).where(sql`${t.state} = 'pending'`),
    index('approval_requests_app_pending_idx').on(t.appId, t.expiresAt).where(sql`${t.state} = 'pending'`),
    // The ticker's work (lib/notifications/ticker.ts): pending requests by expiry, and by when they escalate.
    index('approval_requests_pending_expiry_idx').on(t.expiresAt).where(sql`${t.state} = 'pending'`),
    index('approval_requests_escalation_idx').on(t.escalateAt).where(sql`${t.state} = 'pending' AND ${t.escalatedAt} IS NULL`),
    check('approval_requests_quorum', sql`${t.quorum} BETWEEN 1 AND 10`),
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
  /**
   * The second factor this sign-in proved (an authenticator's code, or a passkey with user verification); null for a
   * password alone, a recovery code or a company's sign-in. For a few minutes it stands in for a decision's step-up
   * (lib/approvals/central.ts, STEP_UP_FROM_SIGN_IN_SECONDS).
   */
  signInFactor: text('sign_in_factor', { enum: ['totp', 'passkey'] }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
}, (t) => [index('central_sessions_expires_idx').on(t.expiresAt)]);

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
}, (t) => [index('decision_nonces_expires_idx').on(t.expiresAt)]);

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

/**
 * An organization's rule for a kind of request (APPROVAL_POLICY_KINDS), for all its apps or one (app_id): who may
 * decide, how many of them must approve, what happens when nobody decides in time, and the longest grant. With no
 * policy, the default holds: the app's operators (else the owners) decide, one approval, no escalation.
 */
export const approvalPolicies = pgTable(
  'approval_policies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** Null: every app of the organization without a policy of its own for this kind. */
    appId: uuid('app_id'),
    kind: text('kind', { enum: APPROVAL_POLICY_KINDS }).notNull(),
    /** operators: the app's designated operators (else the owners); owners; a team; named people. */
    deciders: text('deciders', { enum: ['operators', 'owners', 'team', 'people'] }).notNull(),
    /** deciders = team. A team removed leaves nobody (only the CLI decides): a policy never weakens by itself. */
    teamId: uuid('team_id').references(() => teams.id, { onDelete: 'set null' }),
    /** deciders = people (each must still be a member when deciding). */
    userIds: uuid('user_ids').array().notNull().default(sql`'{}'::uuid[]`),
    quorum: integer('quorum').notNull().default(1),
    anyDenyEnds: boolean('any_deny_ends').notNull().default(true),
    /** Minutes without a decision before the escalation group is told and may decide too (null: no escalation); under a request's 30 minutes. */
    escalateAfterMinutes: integer('escalate_after_minutes'),
    escalateTo: text('escalate_to', { enum: ['owners', 'team'] }),
    escalateTeamId: uuid('escalate_team_id').references(() => teams.id, { onDelete: 'set null' }),
    maxGrantSeconds: integer('max_grant_seconds'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    foreignKey({ columns: [t.appId, t.orgId], foreignColumns: [apps.id, apps.orgId] }).onDelete('cascade'),
    uniqueIndex('approval_policies_scope_key').on(t.orgId, sql`coalesce(${t.appId}, '00000000-0000-0000-0000-000000000000'::uuid)`, t.kind),
    check('approval_policies_quorum', sql`${t.quorum} BETWEEN 1 AND 10`),
    check('approval_policies_escalation', sql`(${t.escalateAfterMinutes} IS NULL) = (${t.escalateTo} IS NULL) AND (${t.escalateAfterMinutes} IS NULL OR ${t.escalateAfterMinutes} BETWEEN 1 AND 29)`),
    check('approval_policies_max_grant', sql`${t.maxGrantSeconds} IS NULL OR ${t.maxGrantSeconds} BETWEEN 60 AND 2592000`),
  ],
);

/** Each decider's decision on a request (one each: the primary key); the request ends when the quorum is reached or a denial ends it. */
export const approvalVotes = pgTable(
  'approval_votes',
  {
    requestId: text('request_id')
      .notNull()
      .references(() => approvalRequests.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    decision: text('decision', { enum: ['approve', 'deny'] }).notNull(),
    decidedAt: timestamp('decided_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.requestId, t.userId] })],
);
