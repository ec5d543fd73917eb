// Portico's own MCP server: its sessions and its confirmation challenges, in PostgreSQL so that any instance can
// serve any request of a session, and a confirmation token is consumed once across all instances.
import { boolean, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { organizations, users } from './accounts';
import { apps } from './apps';

/**
 * An MCP session (`Mcp-Session-Id`), bound to who opened it: only the same person, through the same client and
 * the same acting agent, can use it. The capabilities the client advertised in `initialize` are kept for the
 * approval surfaces, which choose from them.
 */
export const mcpSessions = pgTable(
  'mcp_sessions',
  {
    id: text('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The acting agent (`act.sub`), or '' when the person acts. */
    actor: text('actor').notNull().default(''),
    clientId: text('client_id').notNull(),
    protocolVersion: text('protocol_version').notNull(),
    clientInfo: jsonb('client_info').notNull(),
    clientCapabilities: jsonb('client_capabilities').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('mcp_sessions_expires_idx').on(t.expiresAt)],
);

/**
 * A confirmation challenge (app-kit/risk.ts): redeemed by one DELETE … RETURNING that also requires it confirmed, so
 * exactly one retry runs, and only after the person said yes (human mode; in-band challenges are confirmed when
 * made). The page the person confirms on finds it by `id`, never by the token.
 */
export const confirmationChallenges = pgTable(
  'confirmation_challenges',
  {
    /** SHA-256 of the token `confirm_<nonce>`: the token itself is not stored. */
    nonceHash: text('nonce_hash').primaryKey(),
    /** `cnf_` and 32 random base64url characters: the confirmation page's address, not a credential. */
    id: text('id').notNull().unique(),
    tool: text('tool').notNull(),
    subject: text('subject').notNull(),
    actor: text('actor').notNull(),
    clientId: text('client_id').notNull(),
    argumentsDigest: text('arguments_digest').notNull(),
    /** The app whose tool this is (the app kit's confirmations); null for Portico's own tools. */
    appId: uuid('app_id').references(() => apps.id, { onDelete: 'cascade' }),
    /** The organization the call is about, when known (the audit of the confirmation goes there). */
    orgId: uuid('org_id').references(() => organizations.id, { onDelete: 'cascade' }),
    riskLevel: text('risk_level').notNull(),
    description: text('description').notNull(),
    warning: text('warning'),
    /** The arguments in RFC 8785 form: what the digest covers, shown to the person as it is. */
    canonicalArguments: text('canonical_arguments').notNull(),
    needsHuman: boolean('needs_human').notNull(),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
    deniedAt: timestamp('denied_at', { withTimezone: true }),
    decidedBy: uuid('decided_by').references(() => users.id, { onDelete: 'set null' }),
    /** The step-up factor the person used: passkey, totp or password. */
    decidedWith: text('decided_with'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** When its expiry without an answer was recorded (audit `confirmation.expired`, once). */
    expiryReportedAt: timestamp('expiry_reported_at', { withTimezone: true }),
    /**
     * A CIBA request (lib/oidc/ciba.ts): the id of oidc-provider's BackchannelAuthenticationRequest the answer goes
     * to, sealed with the at-rest key (the id is what the client polls with: a bearer secret). Such a challenge is
     * never redeemed through the gate (nobody holds its token); `description` is the request's binding message and
     * `canonical_arguments` its authorization details (RFC 9396).
     */
    backchannelRequestSealed: text('backchannel_request_sealed'),
  },
  (t) => [index('confirmation_challenges_expires_idx').on(t.expiresAt), index('confirmation_challenges_subject_idx').on(t.subject)],
);

/**
 * An elicitation Portico sent a client during a tool call (MCP 2025-11-25 §Elicitation). The client answers with a
 * separate POST that may reach another instance: that answer is written here, and the waiting tool call reads it.
 * What the client answers can only withdraw a request, never approve one.
 */
export const mcpElicitations = pgTable(
  'mcp_elicitations',
  {
    /** The JSON-RPC id of the `elicitation/create` request: `eli_` and 32 random base64url characters. */
    id: text('id').primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .references(() => mcpSessions.id, { onDelete: 'cascade' }),
    /** The approval request (apr_…) or, for a confirmation offered inline, the confirmation (cnf_…) it is about. */
    approvalRequestId: text('approval_request_id').notNull(),
    mode: text('mode', { enum: ['url', 'form'] }).notNull(),
    /** accept, decline or cancel (form: with the intent), once the client answered; null while waiting. */
    outcome: text('outcome'),
    intent: text('intent'),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('mcp_elicitations_expires_idx').on(t.expiresAt)],
);

/**
 * An action a person approved through CIBA, used once: the app kit's `verifyApprovedAction` records the access
 * token's `jti` here (a signed call of the app) and a second use of the same token is refused, on any instance of
 * the app. Kept until the token expires; the ticker removes older rows.
 */
export const approvedActionUses = pgTable(
  'approved_action_uses',
  {
    /** The access token's `jti`. */
    tokenId: text('token_id').primaryKey(),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    usedAt: timestamp('used_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('approved_action_uses_expires_idx').on(t.expiresAt)],
);
