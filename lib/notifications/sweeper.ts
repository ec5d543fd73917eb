// The sweeper: the one place that deletes rows nobody can still need, so that every table that takes a row per
// request (tokens, sessions, nonces, counters, logs) stays the size of its live rows instead of growing forever.
//
// Each rule names a table and the condition under which a row is dead at an instant. The sweeper deletes dead rows
// in small batches (BATCH_ROWS, one transaction each, so no batch holds locks for long), found through an index on
// the condition's column (test/platform/sweeper.test.ts checks the plans), a bounded number of batches per round so
// a backlog (the first round after an upgrade) is worked off over several rounds instead of in one long one. Of
// several instances one sweeps at a time: each batch first takes a transaction-scoped advisory lock, which also
// works through a transaction-mode pooler (a session lock would not).
//
// What each rule keeps, and why, is said beside it. The rows of an organization's audit log are not here: they are
// records, archived by their own retention (lib/audit), never swept.
import { sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { confirmationPurgeable } from '../confirmations/store';
import { POLLED_KINDS_FINDABLE_MINUTES } from '../oidc/adapter';
import { recordSweep } from '../observability/metrics';
import { rowsOf, sqlInstant, type Database } from '../db/client';
import {
  accountLinks,
  approvedActionUses,
  assertionUses,
  centralSessions,
  confirmationChallenges,
  consoleSessions,
  decisionNonces,
  federatedSignIns,
  grantBindings,
  mcpElicitations,
  mcpSessions,
  notificationLog,
  oidcPayloads,
  outboundDeliveries,
  pendingSignIns,
  rateLimits,
  samlAssertionIds,
  signedRequestNonces,
  webauthnChallenges,
} from '../db/schema';

/** Rows deleted per statement: small enough that a batch never holds its locks for long. */
export const BATCH_ROWS = 500;
/** Batches per rule and round: a backlog is worked off over several rounds. */
export const BATCHES_PER_ROUND = 20;
/** How long the delivery log and the notice log keep a finished row. */
export const LOG_RETENTION_DAYS = 30;
/**
 * A consumed refresh token is kept as a tripwire: presented again after its grace interval, it ends its whole grant
 * (RFC 9700 §4.14.2; lib/oidc/adapter.ts `consume`). It is kept this many days after it was consumed — long enough
 * for a client that was offline (a weekend, a holiday) to come back with a token an attacker already rotated, and
 * bounded, so that a grant refreshed every few minutes for a month does not keep thousands of dead tokens.
 */
export const REFRESH_TOKEN_TRIPWIRE_DAYS = 7;
/**
 * Slack for instants compared across clocks (a row stamped by the database's clock, the sweep's instant by this
 * process's): a row is never swept within this margin of the moment it stops being needed.
 */
const CLOCK_MARGIN_MINUTES = 10;

const instant = sqlInstant;
const minutesBefore = (at: Date, minutes: number) => sql`(${instant(at)} - make_interval(mins => ${minutes}))`;
const daysBefore = (at: Date, days: number) => sql`(${instant(at)} - make_interval(days => ${days}))`;

export interface SweepRule {
  /** How the rule is named in reports and metrics. */
  name: string;
  table: PgTable;
  /** Rows of `table` that are dead at `at` (the WHERE of a query that an index answers). */
  dead(at: Date): SQL;
  /** Rows that go with a batch (`batch`: the batch's rows, a subquery), deleted first in the batch's transaction. */
  alsoDelete?(batch: SQL): SQL[];
  /** Rows a batch takes (default BATCH_ROWS): fewer where each row takes others with it. */
  batchRows?: number;
}

export const SWEEP_RULES: readonly SweepRule[] = [
  {
    // Consumed refresh tokens, after their time as a tripwire (REFRESH_TOKEN_TRIPWIRE_DAYS after they were consumed:
    // a client that comes back within it with a token an attacker already rotated ends the grant), and never inside
    // their reuse grace interval (at most a minute, well inside the margin). First, so that a grant swept below
    // rarely has many left.
    name: 'oidc.consumed_refresh_tokens',
    table: oidcPayloads,
    dead: (at) => sql`consumed_at is not null and kind = 'RefreshToken' and consumed_at < ${daysBefore(at, REFRESH_TOKEN_TRIPWIRE_DAYS)}`,
  },
  {
    // Every model but the grant, once expired. A polled model (a CIBA request, a device code) stays findable a while
    // after its expiry so that its client hears expired_token (lib/oidc/adapter.ts): it is kept that long.
    name: 'oidc.expired',
    table: oidcPayloads,
    dead: (at) => sql`kind <> 'Grant' and expires_at < ${minutesBefore(at, Math.max(POLLED_KINDS_FINDABLE_MINUTES, CLOCK_MARGIN_MINUTES))}`,
  },
  {
    // A grant past its end takes everything issued from it (its tokens cannot be used without it: oidc-provider
    // loads the grant at every refresh and at userinfo, and a refresh token's own expiry may run later) and its
    // binding to an agent or an app. Few grants a batch: each may still have tokens of its own.
    name: 'oidc.grants',
    table: oidcPayloads,
    batchRows: 50,
    dead: (at) => sql`kind = 'Grant' and expires_at < ${minutesBefore(at, CLOCK_MARGIN_MINUTES)}`,
    alsoDelete: (batch) => [
      sql`delete from ${oidcPayloads} where kind <> 'Grant' and grant_id in (select id from ${batch} as grants)`,
      sql`delete from ${grantBindings} where grant_id in (select id from ${batch} as grants)`,
    ],
  },
  // One-time proofs and their replay records: once past their end they prove nothing, and a replay of them is
  // refused for being expired before it could be refused for being used.
  { name: 'rate_limits', table: rateLimits, dead: (at) => sql`expires_at < ${instant(at)}` },
  // Kept a little past their proof's end: instances whose clocks run behind the database's still find them.
  { name: 'signed_request_nonces', table: signedRequestNonces, dead: (at) => sql`expires_at < ${minutesBefore(at, CLOCK_MARGIN_MINUTES)}` },
  { name: 'saml_assertion_ids', table: samlAssertionIds, dead: (at) => sql`expires_at < ${minutesBefore(at, CLOCK_MARGIN_MINUTES)}` },
  { name: 'assertion_uses', table: assertionUses, dead: (at) => sql`expires_at < ${minutesBefore(at, CLOCK_MARGIN_MINUTES)}` },
  // A used CIBA approval is remembered while its token could still be presented (lib/oidc/ciba.ts).
  { name: 'approved_action_uses', table: approvedActionUses, dead: (at) => sql`expires_at < ${minutesBefore(at, CLOCK_MARGIN_MINUTES)}` },
  // Sessions and the steps of a sign-in, once past their end.
  { name: 'console_sessions', table: consoleSessions, dead: (at) => sql`expires_at < ${instant(at)}` },
  { name: 'central_sessions', table: centralSessions, dead: (at) => sql`expires_at < ${instant(at)}` },
  { name: 'decision_nonces', table: decisionNonces, dead: (at) => sql`expires_at < ${instant(at)}` },
  { name: 'pending_sign_ins', table: pendingSignIns, dead: (at) => sql`expires_at < ${instant(at)}` },
  { name: 'webauthn_challenges', table: webauthnChallenges, dead: (at) => sql`expires_at < ${instant(at)}` },
  { name: 'federated_sign_ins', table: federatedSignIns, dead: (at) => sql`expires_at < ${instant(at)}` },
  { name: 'mcp_sessions', table: mcpSessions, dead: (at) => sql`expires_at < ${instant(at)}` },
  { name: 'mcp_elicitations', table: mcpElicitations, dead: (at) => sql`expires_at < ${instant(at)}` },
  // A link followed late says "expired" for a day rather than "not found".
  { name: 'account_links', table: accountLinks, dead: (at) => sql`expires_at < ${daysBefore(at, 1)}` },
  // A confirmation a person was asked for stays until its expiry is recorded (lib/confirmations/store.ts).
  { name: 'confirmation_challenges', table: confirmationChallenges, dead: (at) => confirmationPurgeable(at) },
  // The delivery log (delivered or given up) and the notice log keep a finished row for LOG_RETENTION_DAYS.
  {
    name: 'outbound_deliveries',
    table: outboundDeliveries,
    dead: (at) => sql`(delivered_at is not null or failed_at is not null) and coalesce(delivered_at, failed_at) < ${daysBefore(at, LOG_RETENTION_DAYS)}`,
  },
  { name: 'notification_log', table: notificationLog, dead: (at) => sql`sent_at is not null and created_at < ${daysBefore(at, LOG_RETENTION_DAYS)}` },
];

/** The advisory lock's key: one sweeper at a time across every instance. */
const SWEEPER_LOCK = sql`hashtextextended('portico:sweeper', 0)`;

export interface SweepReport {
  /** Rows deleted, by rule (rules that deleted nothing are left out). */
  deleted: Record<string, number>;
  /** Another instance held the sweeper's lock: this round left the work to it. */
  skipped: boolean;
}

/** One batch of one rule, in its own transaction; null when another instance is sweeping. */
async function sweepBatch(db: Database, rule: SweepRule, at: Date): Promise<number | null> {
  return db.transaction(async (tx) => {
    const [lock] = rowsOf<{ locked: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(${SWEEPER_LOCK}) as locked`));
    if (!lock?.locked) return null;
    const dead = rule.dead(at);
    const addresses = rowsOf<{ address: string }>(await tx.execute(sql`select ctid::text as address from ${rule.table} where ${dead} limit ${rule.batchRows ?? BATCH_ROWS}`)).map((row) => row.address);
    if (addresses.length === 0) return 0;
    // Deleted by address (a TID scan), the condition checked again: a row changed since it was chosen is left for
    // the next round, and a slot reused meanwhile by a live row is not touched.
    const tids = sql`${`{${addresses.map((address) => `"${address}"`).join(',')}}`}::tid[]`;
    const batch = sql`(select * from ${rule.table} where ctid = any(${tids}) and ${dead})`;
    for (const statement of rule.alsoDelete?.(batch) ?? []) await tx.execute(statement);
    const [deleted] = rowsOf<{ n: number }>(await tx.execute(sql`with gone as (delete from ${rule.table} where ctid = any(${tids}) and ${dead} returning 1) select count(*)::int as n from gone`));
    return deleted?.n ?? 0;
  });
}

/** One round: every rule, up to BATCHES_PER_ROUND batches each, as of `at`. */
export async function sweepExpiredRows(db: Database, at: Date = new Date(), rules: readonly SweepRule[] = SWEEP_RULES): Promise<SweepReport> {
  const deleted: Record<string, number> = {};
  for (const rule of rules) {
    for (let batch = 0; batch < BATCHES_PER_ROUND; batch++) {
      const count = await sweepBatch(db, rule, at);
      if (count === null) return { deleted, skipped: true };
      if (count > 0) deleted[rule.name] = (deleted[rule.name] ?? 0) + count;
      if (count < (rule.batchRows ?? BATCH_ROWS)) break;
    }
  }
  recordSweep(deleted);
  return { deleted, skipped: false };
}

/** The rows a report counts in all. */
export function sweptRows(report: SweepReport): number {
  return Object.values(report.deleted).reduce((sum, count) => sum + count, 0);
}
