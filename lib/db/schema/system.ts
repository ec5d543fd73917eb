// Installation-wide facts that must be recorded once, such as "the demo seed has run".
import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const systemState = pgTable('system_state', {
  key: text('key').primaryKey(),
  value: jsonb('value').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
