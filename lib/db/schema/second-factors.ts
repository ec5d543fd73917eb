// Second factors of a person's account: a TOTP authenticator (RFC 6238) with its recovery codes. Passkeys join
// this file when they land (docs/security.md says what each control is and where it is tested).
import { sql } from 'drizzle-orm';
import { bigint, check, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from './accounts';

/**
 * One TOTP authenticator per account. The shared secret must be usable to check codes, so it is encrypted at rest
 * (JWE with PORTICO_SECRET_KEY, like signing keys), never stored in clear and never shown again after enrollment.
 */
export const totpFactors = pgTable('totp_factors', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secretEncrypted: text('secret_encrypted').notNull(),
  /** Null while enrollment waits for its first code: an unconfirmed authenticator protects nothing. */
  confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
  /** RFC 6238 §5.2: the time step of the last accepted code; a code is accepted once (the step must grow). */
  lastUsedStep: bigint('last_used_step', { mode: 'number' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Ten single-use recovery codes per account, stored as SHA-256 of 80 random bits, shown once. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('recovery_codes_user_hash_key').on(t.userId, t.codeHash),
    check('recovery_codes_hash_format', sql`${t.codeHash} ~ '^[A-Za-z0-9_-]{43}$'`),
  ],
);

/**
 * A sign-in between its two steps: the password was right, the second factor is still to come. The browser holds
 * the token (an HttpOnly cookie); the row says who, where the sign-in continues (an app's interaction, the console,
 * the central) and how many codes were tried. Five minutes, five tries, used once.
 */
export const pendingSignIns = pgTable(
  'pending_sign_ins',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Where the sign-in continues: { surface: 'console' } | { surface: 'central', next } | { surface: 'app', uid, … }. */
    continuation: jsonb('continuation').$type<Record<string, unknown>>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('pending_sign_ins_token_hash_key').on(t.tokenHash), check('pending_sign_ins_attempts_range', sql`${t.attempts} BETWEEN 0 AND 5`)],
);
