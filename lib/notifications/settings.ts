// A person's choice of which notices reach them by mail (lib/notifications/notify.ts reads it). No row: all of them.
import { eq, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { notificationSettings } from '../db/schema';

export const NOTICE_SETTINGS = ['approvalRequests', 'approvalReminders', 'approvalEscalations', 'confirmations'] as const;
export type NoticeSetting = (typeof NOTICE_SETTINGS)[number];
export type NoticeSettings = Record<NoticeSetting, boolean>;

export async function noticeSettingsOf(db: Queryable, userId: string): Promise<NoticeSettings> {
  const [row] = await db.select().from(notificationSettings).where(eq(notificationSettings.userId, userId));
  return Object.fromEntries(NOTICE_SETTINGS.map((name) => [name, row ? row[name] : true])) as NoticeSettings;
}

export async function saveNoticeSettings(db: Queryable, userId: string, settings: NoticeSettings): Promise<void> {
  await db
    .insert(notificationSettings)
    .values({ userId, ...settings })
    .onConflictDoUpdate({ target: notificationSettings.userId, set: { ...settings, updatedAt: sql`now()` } });
}
