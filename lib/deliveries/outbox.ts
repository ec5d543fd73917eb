// The one outbound outbox (lib/db/schema/deliveries.ts): mail, webhooks — every message Portico sends out. A change
// enqueues inside its own transaction, through `enqueue` below (each channel's own enqueue in
// lib/deliveries/channels/<channel>.ts builds its rows; a webhook for an audit event is queued by the database's
// fan-out trigger, drizzle/0032_webhook_events.sql); the commit wakes a dispatcher, which delivers afterwards
// (lib/deliveries/dispatcher.ts). Delivery is
// at least once: a delivery is leased before it is attempted (its due time pushed past the lease, claimed with SKIP
// LOCKED, so two instances never attempt the same one at once), then marked delivered — or retried with backoff
// when the other side refuses it or the process dies mid-send, until it gives up. A webhook's receiver tells a
// retry from a new event by its `webhook-id`, which stays the same.
import { recordDeliveryFailure } from '../observability/metrics';
import { and, eq, sql } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import { chunksOf, rowsOf, type Queryable } from '../db/client';
import { outboundDeliveries, type DeliveryChannel } from '../db/schema';

/** Gives up after this many attempts (about a day with the backoff below). */
export const MAX_DELIVERY_ATTEMPTS = 10;
/** How long a claimed delivery is reserved for the instance attempting it: longer than any channel's own timeout. */
export const LEASE_SECONDS = 120;

export type OutboundDelivery = typeof outboundDeliveries.$inferSelect;

/** A delivery to queue (its due time may be SQL: `'infinity'` holds one back). */
export type NewDelivery = PgInsertValue<typeof outboundDeliveries>;

/**
 * The outbox's one front door: queues these deliveries in the caller's transaction and returns the ids of those
 * queued. `skipDuplicates`: a delivery that a waiting one already covers (the unique indexes on waiting logout tokens
 * and session-revoked events) is not queued again. Rows go in statements of at most 1,000.
 */
export async function enqueue(db: Queryable, deliveries: readonly NewDelivery[], options: { skipDuplicates?: boolean } = {}): Promise<string[]> {
  const ids: string[] = [];
  for (const chunk of chunksOf(deliveries)) {
    const insert = db.insert(outboundDeliveries).values(chunk);
    const queued = await (options.skipDuplicates ? insert.onConflictDoNothing() : insert).returning({ id: outboundDeliveries.id });
    ids.push(...queued.map((row) => row.id));
  }
  return ids;
}

/**
 * A delivery that did not go through: the reason (never the message), and the answer's status when there was one.
 * `final`: the other side refused this message itself (a retry would be refused the same way): given up at once.
 */
export class DeliveryFailed extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly final = false,
  ) {
    super(message);
    this.name = 'DeliveryFailed';
  }
}

/**
 * Not attempted after all (its stream was paused or changed since it was queued): the attempt is not counted, and the
 * handler has set when it is due again.
 */
export class DeliveryDeferred extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeliveryDeferred';
  }
}

/** Delivers one leased delivery of its channel, or throws (DeliveryFailed, or anything else: retried the same way). */
export type DeliveryHandler = (delivery: OutboundDelivery) => Promise<{ status?: number } | void>;
/** The channels this process delivers: a process without a channel's handler never claims that channel's deliveries. */
export type DeliveryHandlers = Partial<Record<DeliveryChannel, DeliveryHandler>>;

export interface DeliveryReport {
  sent: number;
  retrying: number;
  failed: number;
}

/** Seconds before the next attempt after `attempts` failed ones: 30 s, 1 min, 2 min, … up to 6 hours. */
export function backoffSeconds(attempts: number): number {
  return Math.min(2 ** attempts * 15, 6 * 3600);
}

/**
 * Claims the deliveries of these channels that are due (oldest first) and attempts each once, all of the batch at
 * the same time: a batch takes as long as its slowest delivery (a webhook answers within 10 s), well inside the lease.
 */
export async function deliverDue(db: Queryable, handlers: DeliveryHandlers, limit = 20): Promise<DeliveryReport> {
  const channels = Object.keys(handlers) as DeliveryChannel[];
  const report: DeliveryReport = { sent: 0, retrying: 0, failed: 0 };
  if (channels.length === 0) return report;
  const claimed = rowsOf<{ id: string }>(
    await db.execute(sql`
      update ${outboundDeliveries} set next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS}), attempts = attempts + 1
      where id in (
        select id from ${outboundDeliveries} where delivered_at is null and failed_at is null and next_attempt_at <= now()
          and channel in (${sql.join(channels.map((channel) => sql`${channel}`), sql`, `)})
        order by next_attempt_at limit ${limit} for update skip locked)
      returning id`),
  );
  if (claimed.length === 0) return report;
  const rows = await db
    .select()
    .from(outboundDeliveries)
    .where(sql`${outboundDeliveries.id} in (${sql.join(claimed.map((row) => sql`${row.id}`), sql`, `)})`);
  await Promise.all(
    rows.map(async (delivery) => {
      try {
        const result = await handlers[delivery.channel]!(delivery);
        if (delivery.channel === 'mail') {
          // A sent mail is not kept: it held a single-use link, and nothing reads it again.
          await db.delete(outboundDeliveries).where(eq(outboundDeliveries.id, delivery.id));
        } else {
          await db
            .update(outboundDeliveries)
            .set({ deliveredAt: sql`now()`, lastStatus: result?.status ?? null, lastError: null })
            .where(eq(outboundDeliveries.id, delivery.id));
        }
        report.sent += 1;
      } catch (error) {
        const reason = (error instanceof Error ? error.message : String(error)).slice(0, 500);
        if (error instanceof DeliveryDeferred) {
          await db
            .update(outboundDeliveries)
            .set({ lastError: reason, attempts: sql`greatest(${outboundDeliveries.attempts} - 1, 0)` })
            .where(eq(outboundDeliveries.id, delivery.id));
          report.retrying += 1;
          return;
        }
        const status = error instanceof DeliveryFailed ? (error.status ?? null) : null;
        if (delivery.attempts >= MAX_DELIVERY_ATTEMPTS || (error instanceof DeliveryFailed && error.final)) {
          await db
            .update(outboundDeliveries)
            .set({ failedAt: sql`now()`, lastError: reason, lastStatus: status, ...(delivery.channel === 'mail' ? { sealedPayload: '' } : {}) })
            .where(eq(outboundDeliveries.id, delivery.id));
          report.failed += 1;
          recordDeliveryFailure(delivery.channel, true);
        } else {
          await db
            .update(outboundDeliveries)
            .set({ lastError: reason, lastStatus: status, nextAttemptAt: sql`now() + make_interval(secs => ${backoffSeconds(delivery.attempts)})` })
            .where(eq(outboundDeliveries.id, delivery.id));
          report.retrying += 1;
          recordDeliveryFailure(delivery.channel, false);
        }
      }
    }),
  );
  return report;
}

/** Makes every waiting delivery of a channel due now (tests, and the CLI's `deliveries retry`). */
export async function makeDueNow(db: Queryable, channel?: DeliveryChannel): Promise<number> {
  const rows = await db
    .update(outboundDeliveries)
    .set({ nextAttemptAt: sql`now()` })
    .where(and(sql`${outboundDeliveries.deliveredAt} is null and ${outboundDeliveries.failedAt} is null`, channel ? eq(outboundDeliveries.channel, channel) : undefined))
    .returning({ id: outboundDeliveries.id });
  return rows.length;
}
