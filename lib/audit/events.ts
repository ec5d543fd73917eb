// Append-only audit events. Recorded inside the transaction of the change they describe, so a change and its
// event commit or roll back together.
import { and, desc, eq, gte, ilike, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { rowsOf, type Queryable } from '../db/client';
import { auditEvents } from '../db/schema';
import { storableJson, storableText } from '../util/storable-text';

export type AuditEvent = typeof auditEvents.$inferSelect;
export type AuditActorType = AuditEvent['actorType'];

export interface AuditActor {
  type: AuditActorType;
  id?: string | null;
  label?: string | null;
  ip?: string | null;
}

export interface AuditRecord {
  orgId: string | null;
  actor: AuditActor;
  action: string;
  subject?: { type: string; id: string; label?: string | null };
  appId?: string | null;
  clientId?: string | null;
  act?: string | null;
  details?: Record<string, unknown>;
}

export async function recordAuditEvent(db: Queryable, record: AuditRecord): Promise<void> {
  // Labels and details often carry text from outside (a typed address, a client's name): stored as PostgreSQL can.
  const text = (value: string | null | undefined) => (value == null ? null : storableText(value));
  await db.insert(auditEvents).values({
    orgId: record.orgId,
    actorType: record.actor.type,
    actorId: text(record.actor.id),
    actorLabel: text(record.actor.label),
    ip: record.actor.ip ?? null,
    action: record.action,
    subjectType: text(record.subject?.type),
    subjectId: text(record.subject?.id),
    subjectLabel: text(record.subject?.label),
    appId: record.appId ?? null,
    clientId: text(record.clientId),
    act: text(record.act),
    details: storableJson(record.details ?? {}),
  });
}

export interface AuditFilter {
  /** The actor's id, or its label (an email, a client's name) ignoring case: exactly, not a part of either. */
  actor?: string;
  /** The subject's id, or its label ignoring case: exactly. */
  subject?: string;
  appId?: string;
  /** An action, or a prefix ending with '.' (e.g. `app.`). */
  action?: string;
  from?: Date;
  to?: Date;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** An id equal to the value, or a label equal to it ignoring case (the label indexes are on `lower(label)`). */
function idOrLabel(id: AnyPgColumn, label: AnyPgColumn, value: string): [SQL, SQL] {
  return [eq(id, value), sql`lower(${label}) = lower(${value})`];
}

function conditions(orgId: string, filter: AuditFilter, except?: 'actor' | 'subject', organization: 'equal' | 'range' = 'equal'): (SQL | undefined)[] {
  const parts: (SQL | undefined)[] = [organization === 'range' ? and(gte(auditEvents.orgId, orgId), lte(auditEvents.orgId, orgId)) : eq(auditEvents.orgId, orgId)];
  if (filter.actor && except !== 'actor') parts.push(or(...idOrLabel(auditEvents.actorId, auditEvents.actorLabel, filter.actor)));
  if (filter.subject && except !== 'subject') parts.push(or(...idOrLabel(auditEvents.subjectId, auditEvents.subjectLabel, filter.subject)));
  if (filter.appId) parts.push(eq(auditEvents.appId, filter.appId));
  if (filter.action) {
    parts.push(filter.action.endsWith('.') ? ilike(auditEvents.action, `${escapeLike(filter.action)}%`) : eq(auditEvents.action, filter.action));
  }
  if (filter.from) parts.push(gte(auditEvents.occurredAt, filter.from));
  if (filter.to) parts.push(lte(auditEvents.occurredAt, filter.to));
  return parts;
}

/**
 * One page of an organization's events, newest first, paginated on the server by id (keyset): stable while new
 * events arrive. `before` is the last id of the previous page.
 *
 * Actors and subjects are matched exactly (an id, or a label ignoring case), never as a part: a part of a label can
 * only be found by reading every event of the organization, which at two million events took over a minute a page
 * (docs/benchmarks.md). An id-or-label match is read as two queries, each walking its own index newest first and
 * stopping at a page; an `or` in one query would make PostgreSQL gather every match of both before sorting them.
 */
export async function searchAuditEvents(
  db: Queryable,
  orgId: string,
  filter: AuditFilter,
  page: { before?: number; limit: number },
): Promise<{ events: AuditEvent[]; nextBefore?: number }> {
  const before = page.before ? lt(auditEvents.id, page.before) : undefined;
  // Ordered by the organization, then the id, and the organization bounded as a range rather than equated: with
  // `org_id = $1 order by id desc`, PostgreSQL may walk the whole log's primary key backwards and filter, assuming an
  // organization's events are spread evenly over it. For one whose events are older than everyone else's that read
  // every newer event of every other organization first (1.8 million rows, 370 ms a page, at a tenth of the scale
  // bench: issue 61). An equality would make the organization a constant and drop it from the order (the primary key
  // would serve the order again); as a range it stays, and only the (org_id, …, id) indexes give that order.
  const pageOf = (where: (SQL | undefined)[]) =>
    db
      .select()
      .from(auditEvents)
      .where(and(...where, before))
      .orderBy(desc(auditEvents.orgId), desc(auditEvents.id))
      .limit(page.limit + 1);
  const driver = filter.actor ? 'actor' : filter.subject ? 'subject' : undefined;
  let rows: AuditEvent[];
  if (driver) {
    const value = filter[driver]!;
    const branches = driver === 'actor' ? idOrLabel(auditEvents.actorId, auditEvents.actorLabel, value) : idOrLabel(auditEvents.subjectId, auditEvents.subjectLabel, value);
    // An actor's or subject's index leads with the organization and that value, both equated: it gives the page in
    // order (with the organization as a range, the scale bench's actor search cost PostgreSQL nine times as much).
    const rest = conditions(orgId, filter, driver);
    const found = await Promise.all(branches.map((branch) => pageOf([...rest, branch])));
    // An event whose id and label both match is in both pages: once is enough.
    const byId = new Map(found.flat().map((event) => [event.id, event]));
    rows = [...byId.values()].sort((a, b) => b.id - a.id).slice(0, page.limit + 1);
  } else {
    rows = await pageOf(conditions(orgId, filter, undefined, 'range'));
  }
  const events = rows.slice(0, page.limit);
  return { events, nextBefore: rows.length > page.limit ? events.at(-1)?.id : undefined };
}

/** The event types that occur in the organization's log, for the filter's list. */
export async function listAuditActions(db: Queryable, orgId: string): Promise<string[]> {
  // One index probe per distinct action (a "loose index scan" over audit_events_action_page_idx), not a pass over every
  // event: an organization with millions of events and forty kinds of them costs forty probes (docs/benchmarks.md).
  const rows = rowsOf<{ action: string }>(
    await db.execute(sql`
      with recursive actions(action) as (
        (select action from audit_events where org_id = ${orgId} order by action limit 1)
        union all
        select (select e.action from audit_events e where e.org_id = ${orgId} and e.action > actions.action order by e.action limit 1)
        from actions where actions.action is not null
      )
      select action from actions where action is not null order by action`),
  );
  return rows.map((row) => row.action);
}

/** One event of the organization's log (an id of another organization's event finds nothing). */
export async function findAuditEvent(db: Queryable, orgId: string, id: number): Promise<AuditEvent | undefined> {
  if (!Number.isSafeInteger(id) || id < 1) return undefined;
  const [event] = await db.select().from(auditEvents).where(and(eq(auditEvents.orgId, orgId), eq(auditEvents.id, id))).limit(1);
  return event;
}
