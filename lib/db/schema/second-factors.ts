// Second factors of a person's account: a TOTP authenticator (RFC 6238) with its recovery codes, and passkeys
// (WebAuthn Level 3) with their single-use ceremony challenges (docs/security.md says what each control is and where
// it is tested).
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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
  (t) => [uniqueIndex('pending_sign_ins_token_hash_key').on(t.tokenHash), index('pending_sign_ins_expires_idx').on(t.expiresAt), check('pending_sign_ins_attempts_range', sql`${t.attempts} BETWEEN 0 AND 5`)],
);

/**
 * A passkey: a WebAuthn public-key credential a person registered. Only the public key is stored (nothing here can
 * sign in as anyone). The signature counter is kept to notice a cloned authenticator (WebAuthn §6.1.1).
 */
export const passkeys = pgTable(
  'passkeys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The credential id, base64url, as the authenticator gave it. */
    credentialId: text('credential_id').notNull(),
    /** The COSE public key, base64url. */
    publicKey: text('public_key').notNull(),
    signCount: bigint('sign_count', { mode: 'number' }).notNull().default(0),
    transports: jsonb('transports').$type<string[]>().notNull().default([]),
    /** The person's name for it ("Work laptop"), shown on their account page. */
    name: text('name').notNull(),
    /** Synced (multiDevice) or bound to one authenticator (singleDevice): `swk` or `hwk` in the ID token's amr. */
    deviceType: text('device_type', { enum: ['singleDevice', 'multiDevice'] }).notNull(),
    backedUp: boolean('backed_up').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('passkeys_credential_id_key').on(t.credentialId), index('passkeys_user_idx').on(t.userId), check('passkeys_name_length', sql`char_length(${t.name}) BETWEEN 1 AND 64`)],
);

/**
 * A WebAuthn ceremony's challenge (WebAuthn §13.4.3: random, used once, checked by the server): created with the
 * options, consumed by one DELETE … RETURNING when the response comes back, five minutes at most. `purpose` and
 * `context` bind it to what it was made for (a registration of this person, a sign-in, the second step of one
 * pending sign-in, the step-up of one confirmation or decision), so an assertion made for one cannot serve another.
 */
export const webauthnChallenges = pgTable(
  'webauthn_challenges',
  {
    challenge: text('challenge').primaryKey(),
    purpose: text('purpose', { enum: ['register', 'sign_in', 'second_factor', 'step_up'] }).notNull(),
    /** Who it is for; null for a passwordless sign-in (the passkey says who). */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** What it is bound to besides: '' or a pending sign-in's token hash, a confirmation id, a decision nonce's hash. */
    context: text('context').notNull().default(''),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('webauthn_challenges_expires_idx').on(t.expiresAt)],
);
