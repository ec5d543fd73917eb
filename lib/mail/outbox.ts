// The mail outbox: enqueue inside the transaction of the change, deliver afterwards (lib/mail/dispatcher.ts).
// Delivery is at least once: a message is leased before it is sent, deleted after, and retried with backoff when
// the server refuses it or the process dies mid-send. Rows are claimed with SKIP LOCKED, so several instances share
// the queue without sending a message twice at once.
import { eq, sql } from 'drizzle-orm';
import { rowsOf, type Queryable } from '../db/client';
import { mailOutbox } from '../db/schema';
import { decryptAtRest, encryptAtRest } from '../security/at-rest';
import type { MailMessage } from './messages';

/** Gives up after this many attempts (about a day with the backoff below). */
export const MAX_DELIVERY_ATTEMPTS = 10;
/** How long a claimed message is reserved for the instance sending it. */
const LEASE_SECONDS = 120;

export async function enqueueMail(db: Queryable, atRestKey: Uint8Array, message: MailMessage): Promise<void> {
  await db.insert(mailOutbox).values({ recipient: message.to, sealedMessage: await encryptAtRest(JSON.stringify(message), atRestKey) });
}

/** Sends one message; throws when the transport refuses it. */
export type SendMail = (message: MailMessage) => Promise<void>;

export interface DeliveryReport {
  sent: number;
  retrying: number;
  failed: number;
}

function backoffSeconds(attempts: number): number {
  return Math.min(2 ** attempts * 15, 6 * 3600);
}

/** Claims the messages that are due and sends them. */
export async function deliverDueMail(db: Queryable, atRestKey: Uint8Array, send: SendMail, limit = 20): Promise<DeliveryReport> {
  const claimed = rowsOf<{ id: string; sealed_message: string; attempts: number }>(
    await db.execute(sql`
      update ${mailOutbox} set next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS}), attempts = attempts + 1
      where id in (
        select id from ${mailOutbox} where failed_at is null and next_attempt_at <= now()
        order by next_attempt_at limit ${limit} for update skip locked)
      returning id, sealed_message, attempts`),
  );
  const report: DeliveryReport = { sent: 0, retrying: 0, failed: 0 };
  for (const row of claimed) {
    try {
      const message = JSON.parse(await decryptAtRest(row.sealed_message, atRestKey)) as MailMessage;
      await send(message);
      await db.delete(mailOutbox).where(eq(mailOutbox.id, row.id));
      report.sent += 1;
    } catch (error) {
      // The reason, never the message (it holds a single-use link).
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, 500);
      if (row.attempts >= MAX_DELIVERY_ATTEMPTS) {
        await db.update(mailOutbox).set({ failedAt: sql`now()`, sealedMessage: '', lastError: reason }).where(eq(mailOutbox.id, row.id));
        report.failed += 1;
      } else {
        await db
          .update(mailOutbox)
          .set({ lastError: reason, nextAttemptAt: sql`now() + make_interval(secs => ${backoffSeconds(row.attempts)})` })
          .where(eq(mailOutbox.id, row.id));
        report.retrying += 1;
      }
    }
  }
  return report;
}
