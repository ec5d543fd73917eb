// Installation-wide facts that must be recorded once, such as "the demo seed has run".
import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const systemState = pgTable('system_state', {
  key: text('key').primaryKey(),
  value: jsonb('value').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Nonces of signed calls Portico has accepted (an app's surface declaration), kept until their 5-minute proof
 * expires: the primary key makes a replay fail atomically, on every instance.
 */
export const signedRequestNonces = pgTable('signed_request_nonces', {
  nonce: text('nonce').primaryKey(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
}, (t) => [index('signed_request_nonces_expires_idx').on(t.expiresAt)]);
