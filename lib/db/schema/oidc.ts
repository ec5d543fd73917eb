// Storage for oidc-provider's models and the key material every instance shares.
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** One table for every oidc-provider model except Client (read from `clients`). */
export const oidcPayloads = pgTable(
  'oidc_payloads',
  {
    /** The model's id, or for a bearer secret (every model but Grant) its SHA-256 (lib/oidc/stored-ids.ts). */
    id: text('id').notNull(),
    /** oidc-provider model name: Session, Grant, AuthorizationCode, RefreshToken, Interaction, ... */
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    grantId: text('grant_id'),
    /** Copied from the payload so that a person's or a client's grants can be found and revoked by index. */
    accountId: text('account_id'),
    clientId: text('client_id'),
    uid: text('uid'),
    userCode: text('user_code'),
    /**
     * RefreshToken only: the token this one replaced by rotation (its stored id, a hash). A family has one head: a replay inside the grace
     * interval gets this same successor back instead of forking a new chain (lib/oidc/provider-overrides.ts).
     */
    rotatedFrom: text('rotated_from'),
    /**
     * RefreshToken successors only: this token's value, sealed with a key derived from the token it replaced, so that
     * a replay of that token inside the grace interval gets this one back (lib/oidc/stored-ids.ts `sealSuccessor`).
     */
    successorSealed: text('successor_sealed'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.id] }),
    index('oidc_payloads_grant_idx').on(t.grantId),
    index('oidc_payloads_account_idx').on(t.accountId),
    index('oidc_payloads_client_idx').on(t.clientId),
    index('oidc_payloads_uid_idx').on(t.uid),
    index('oidc_payloads_user_code_idx').on(t.userCode),
    // One successor per rotated refresh token: concurrent replays on any instance meet here.
    uniqueIndex('oidc_payloads_rotated_from_key').on(t.rotatedFrom).where(sql`${t.rotatedFrom} IS NOT NULL`),
    index('oidc_payloads_expires_idx').on(t.expiresAt),
    // The sweeper's (lib/notifications/sweeper.ts): consumed refresh tokens whose time as a tripwire is over, grants past their end.
    index('oidc_payloads_consumed_refresh_idx').on(t.consumedAt).where(sql`${t.consumedAt} IS NOT NULL AND ${t.kind} = 'RefreshToken'`),
    index('oidc_payloads_grant_expires_idx').on(t.expiresAt).where(sql`${t.kind} = 'Grant'`),
  ],
);

export const signingKeys = pgTable('signing_keys', {
  kid: text('kid').primaryKey(),
  alg: text('alg').notNull(),
  publicJwk: jsonb('public_jwk').$type<Record<string, unknown>>().notNull(),
  /** The private JWK, encrypted at rest as a compact JWE (dir + A256GCM) under PORTICO_SECRET_KEY. */
  privateJwkEncrypted: text('private_jwk_encrypted').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  retiredAt: timestamp('retired_at', { withTimezone: true }),
});

/** Keys that sign oidc-provider's cookies; the newest signs, all verify. */
export const cookieKeys = pgTable('cookie_keys', {
  id: serial('id').primaryKey(),
  keyEncrypted: text('key_encrypted').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Fixed-window counters shared by every instance (login throttling, registration limits). */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
    count: integer('count').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] }), index('rate_limits_expires_idx').on(t.expiresAt)],
);
