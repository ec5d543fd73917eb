// Outgoing mail, written in the transaction of the change that causes it (an invitation, a reset link) and
// delivered afterwards by the mail dispatcher of whichever instance claims it: a crash between commit and delivery
// loses nothing, and a request never waits for an SMTP server. The message is encrypted at rest (it carries
// single-use links) and the row is deleted once delivered.
import { index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The recipient, in clear: needed to say in logs and the console whom a failed message was for. */
    recipient: text('recipient').notNull(),
    /** JWE (lib/security/at-rest.ts) of the message's subject, text and HTML. */
    sealedMessage: text('sealed_message').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    /** The last delivery error, without the message. */
    lastError: text('last_error'),
    /** Set when delivery gave up (after the last retry): the row is kept for the operator, its message wiped. */
    failedAt: timestamp('failed_at', { withTimezone: true }),
  },
  (t) => [index('mail_outbox_due_idx').on(t.nextAttemptAt)],
);
