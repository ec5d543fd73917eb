// The audit trail: append-only events, one per change, with who acted and on what. Tamper-evident: each event
// carries the hash of the one before it in its organization's chain, set by a database trigger that also refuses
// every UPDATE and TRUNCATE, and every DELETE but of events an archive segment records (drizzle/0012_audit_chain_
// triggers.sql, 0046_audit_archive.sql; `npm run portico -- audit verify` checks the chains, archive included).
import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, integer, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

export const auditActorType = pgEnum('audit_actor_type', ['person', 'agent', 'client', 'operator_cli', 'system']);

export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** No foreign key: the trail outlives what it describes. Null for installation-wide events. */
    orgId: uuid('org_id'),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
    actorType: auditActorType('actor_type').notNull(),
    actorId: text('actor_id'),
    /** How the actor was known at the time (an email, a client name): kept even if the actor is deleted. */
    actorLabel: text('actor_label'),
    /** What happened, as `<noun>.<verb>`: app.created, member.removed, ... */
    action: text('action').notNull(),
    subjectType: text('subject_type'),
    subjectId: text('subject_id'),
    subjectLabel: text('subject_label'),
    appId: uuid('app_id'),
    clientId: text('client_id'),
    /** RFC 8693 actor (an agent acting for the subject), when there is one. */
    act: text('act'),
    ip: text('ip'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    /** The event's place in its chain (its organization's, or the installation's), from 1; set by the trigger. */
    chainSeq: bigint('chain_seq', { mode: 'number' }).notNull().default(0),
    /** The hash of the previous event of the chain ('' for the first); set by the trigger. */
    prevHash: text('prev_hash').notNull().default(''),
    /** SHA-256 (hex) of this event's content with chainSeq and prevHash: audit_event_hash(); set by the trigger. */
    hash: text('hash').notNull().default(''),
  },
  (t) => [
    index('audit_events_org_time_idx').on(t.orgId, t.id),
    // Each filter of the audit search (lib/audit/events.ts) is an exact match whose index ends with the event's id,
    // so a page is read newest first from the index and costs its own rows, however many events the organization
    // has (docs/benchmarks.md, the scale bench). The action index also serves the filter's list (a loose index scan).
    index('audit_events_action_page_idx').on(t.orgId, t.action, t.id),
    index('audit_events_actor_page_idx').on(t.orgId, t.actorId, t.id),
    index('audit_events_actor_label_page_idx').on(t.orgId, sql`lower(${t.actorLabel})`, t.id),
    index('audit_events_subject_page_idx').on(t.orgId, t.subjectId, t.id),
    index('audit_events_subject_label_page_idx').on(t.orgId, sql`lower(${t.subjectLabel})`, t.id),
    // A person's own recent sign-ins, across every chain (the account page).
    index('audit_events_subject_id_idx').on(t.subjectId, t.id),
    index('audit_events_app_page_idx').on(t.orgId, t.appId, t.id),
  ],
);

/** The last link of each chain (chain: the organization's id, or '' for installation events); kept by the trigger. */
export const auditChainHeads = pgTable('audit_chain_heads', {
  chain: text('chain').primaryKey(),
  lastSeq: bigint('last_seq', { mode: 'number' }).notNull(),
  lastHash: text('last_hash').notNull(),
});

/**
 * A run of a chain's oldest events moved out of the database into an archive file (lib/audit/archive.ts): events
 * #fromSeq to #toSeq, whose first links to `prevHash` and whose last hashes to `lastHash`. Only events a segment
 * covers may be deleted (drizzle/0046_audit_archive.sql), and `audit verify` reads the file back, so the chain is
 * still checked from its first event. Append-only, like the events.
 */
export const auditArchiveSegments = pgTable(
  'audit_archive_segments',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    chain: text('chain').notNull(),
    fromSeq: bigint('from_seq', { mode: 'number' }).notNull(),
    toSeq: bigint('to_seq', { mode: 'number' }).notNull(),
    prevHash: text('prev_hash').notNull(),
    lastHash: text('last_hash').notNull(),
    events: integer('events').notNull(),
    /** The file's path inside the archive folder. */
    file: text('file').notNull(),
    /** SHA-256 (hex) of the whole file as written. */
    fileSha256: text('file_sha256').notNull(),
    archivedAt: timestamp('archived_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('audit_archive_segments_chain_from_key').on(t.chain, t.fromSeq)],
);
