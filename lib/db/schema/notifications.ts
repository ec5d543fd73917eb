// What Portico tells people by mail about decisions waiting for them (lib/notifications/): each person's choices,
// and a log of what was queued for them, which decides when many at once become one digest.
import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './accounts';

/** A person's choices; no row: everything on. */
export const notificationSettings = pgTable('notification_settings', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  /** A request they may decide arrived. */
  approvalRequests: boolean('approval_requests').notNull().default(true),
  /** A request they may decide is about to expire undecided. */
  approvalReminders: boolean('approval_reminders').notNull().default(true),
  /** A request nobody decided in time was escalated to them. */
  approvalEscalations: boolean('approval_escalations').notNull().default(true),
  /** An agent's call waits for their confirmation. */
  confirmations: boolean('confirmations').notNull().default(true),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One notification meant for a person. Sent at once (`sent_at`) while they got fewer than five in ten minutes;
 * beyond that it waits, and the ticker sends everything waiting as one digest mail.
 */
export const notificationLog = pgTable(
  'notification_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id'),
    /** approval_request, approval_reminder, approval_escalation, confirmation. */
    kind: text('kind').notNull(),
    /** The request (`apr_…`) or confirmation (`cnf_…`) it is about. */
    subjectId: text('subject_id').notNull(),
    /** What the digest lists: a line of plain text, made when it was queued. */
    summary: text('summary').notNull(),
    link: text('link').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [index('notification_log_user_idx').on(t.userId, t.createdAt), index('notification_log_unsent_idx').on(t.createdAt).where(sql`${t.sentAt} IS NULL`), index('notification_log_sent_idx').on(t.createdAt).where(sql`${t.sentAt} IS NOT NULL`)],
);
