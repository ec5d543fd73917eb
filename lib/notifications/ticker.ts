// What happens because time passed, once, whichever instance notices first: a pending approval request past its
// expiry ends as `expired` (never approved); one its policy escalates is escalated to the second group at its time;
// its deciders who have not decided are reminded once before it expires; a confirmation nobody answered is recorded
// as expired; and notices held back by the digest rule go out as one mail. Each step claims its rows with a
// conditional UPDATE (… FOR UPDATE SKIP LOCKED), so of several instances exactly one acts on a row, and writes its
// audit event and mail in the same transaction. Every step takes the instant to act at, so tests move time, not wait.
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { ApprovalRequest } from '../approvals/broker';
import { recordAuditEvent } from '../audit/events';
import { rowsOf, sqlInstant, type Database, type Queryable } from '../db/client';
import { agents, approvalPolicies, approvalRequests, approvalVotes, confirmationChallenges, memberships, notificationLog, organizations, users } from '../db/schema';
import { enqueueMail } from '../deliveries/channels/mail';
import { giveUpUncollectedEvents } from '../ssf/events';
import { mailLocaleFor } from '../i18n/recipient';
import { agentSuspendedMail, notificationDigestMail } from '../mail/messages';
import { sweepExpiredRows, sweptRows } from './sweeper';
import { ARCHIVE_EVERY_MS, archiveExpiredAuditEvents, SEGMENTS_PER_ROUND } from '../audit/archive';
import { CLEANUP_EVERY_MS, removeAbandonedDynamicClients } from '../clients/cleanup';

import { terminalText } from '../util/visible-text';
import { decidersOf, escalationGroup, notifyAboutRequest, type NotifyDeps } from './notify';

/**
 * Agents suspended because their owner left (lib/organizations/agent-lifecycle.ts), not yet told: each is claimed,
 * its organization's owners and admins get a mail, and it is marked told, in one transaction.
 */
async function tellAboutSuspendedAgents(db: Database, deps: NotifyDeps, at: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const ids = rowsOf<{ id: string }>(
      await tx.execute(sql`select id from ${agents} where suspended_reason = 'owner_left' and suspension_told_at is null order by disabled_at limit ${BATCH} for update skip locked`),
    ).map((row) => row.id);
    if (ids.length === 0) return 0;
    const told = await tx
      .update(agents)
      .set({ suspensionToldAt: at })
      .where(inArray(agents.id, ids))
      .returning();
    for (const agent of told) {
      const [org] = await tx.select({ name: organizations.name, slug: organizations.slug }).from(organizations).where(eq(organizations.id, agent.orgId));
      const [owner] = await tx.select({ email: users.email }).from(users).where(eq(users.id, agent.ownerUserId));
      if (!org) continue;
      const admins = await tx
        .select({ email: users.email })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(and(eq(memberships.orgId, agent.orgId), inArray(memberships.role, ['owner', 'admin']), isNull(users.disabledAt)));
      for (const admin of admins) {
        const locale = await mailLocaleFor(tx, { email: admin.email, orgId: agent.orgId });
        const link = `${deps.issuer}/console/${encodeURIComponent(org.slug)}/agents/${encodeURIComponent(agent.id)}`;
        await enqueueMail(tx, deps.atRestKey, agentSuspendedMail({ to: admin.email, locale, organization: org.name, agent: agent.name, owner: owner?.email ?? '', link }), agent.orgId);
      }
    }
    return told.length;
  });
}

/** The ticker sweeps dead rows this often (not every round: there is rarely much, and never urgently). */
const SWEEP_EVERY_MS = 60_000;

/** Deciders are reminded this long before a request expires. */
export const REMINDER_LEAD_MINUTES = 10;
/** Notices held back wait at most this long for the digest. */
export const DIGEST_DELAY_MINUTES = 2;
const BATCH = 50;

const stamp = sqlInstant;
const ROUND_MS = 15_000;

export interface TickerReport {
  expired: number;
  escalated: number;
  reminded: number;
  confirmationsExpired: number;
  digests: number;
  /** Agents suspended because their owner left whose organization's owners and admins were told now. */
  agentSuspensionsTold: number;
  /** Rows nobody needs any more, removed (lib/notifications/sweeper.ts), and abandoned dynamic registrations. */
  purged: number;
  /**
   * Which maintenance steps (sweep, clean-up, audit archive) failed this round, and why: the other steps still ran
   * and count, so that what they queued is sent at once. The ticker logs it; a failed step runs again when next due.
   */
  maintenanceFailed?: string;
}


/** Claims up to BATCH request rows by a condition, sets `changes` on them and returns them (as drizzle rows). */
async function claimRequests(tx: Queryable, condition: ReturnType<typeof sql>, changes: Partial<Record<'state' | 'decidedAt' | 'decidedBy' | 'escalatedAt' | 'remindedAt', unknown>>): Promise<ApprovalRequest[]> {
  const ids = rowsOf<{ id: string }>(await tx.execute(sql`select id from ${approvalRequests} where ${condition} order by expires_at limit ${BATCH} for update skip locked`)).map((row) => row.id);
  if (ids.length === 0) return [];
  return tx.update(approvalRequests).set(changes as never).where(inArray(approvalRequests.id, ids)).returning();
}

async function expireRequests(db: Database, at: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const expired = await claimRequests(tx, sql`state = 'pending' and expires_at <= ${stamp(at)}`, { state: 'expired', decidedAt: sql`${approvalRequests.expiresAt}`, decidedBy: 'expiry' });
    for (const request of expired) {
      await recordAuditEvent(tx, {
        orgId: request.orgId,
        actor: { type: 'system', label: 'expiry' },
        act: request.actor || null,
        clientId: request.clientId,
        action: 'approval.expired',
        subject: { type: 'approval_request', id: request.id },
        appId: request.appId,
        details: { kind: request.kind, policyKind: request.policyKind, expiresAt: request.expiresAt.toISOString() },
      });
    }
    return expired.length;
  });
}

async function escalateRequests(db: Database, deps: NotifyDeps, at: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const due = await claimRequests(tx, sql`state = 'pending' and escalated_at is null and escalate_at <= ${stamp(at)} and expires_at > ${stamp(at)}`, { escalatedAt: at });
    for (const request of due) {
      const [policy] = request.policyId ? await tx.select().from(approvalPolicies).where(eq(approvalPolicies.id, request.policyId)) : [];
      const to = { kind: policy?.escalateTo ?? 'owners', teamId: policy?.escalateTeamId ?? null } as const;
      const group = (await escalationGroup(tx, request.orgId, to)).filter((person) => person.id !== request.subjectUserId);
      const told = await notifyAboutRequest(tx, deps, request, 'escalated', group);
      await recordAuditEvent(tx, {
        orgId: request.orgId,
        actor: { type: 'system', label: 'escalation' },
        act: request.actor || null,
        clientId: request.clientId,
        action: 'approval.escalated',
        subject: { type: 'approval_request', id: request.id },
        appId: request.appId,
        details: { to: to.kind, teamId: to.teamId, people: group.length, mailed: told },
      });
    }
    return due.length;
  });
}

async function remindDeciders(db: Database, deps: NotifyDeps, at: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const due = await claimRequests(tx, sql`state = 'pending' and reminded_at is null and expires_at > ${stamp(at)} and expires_at - make_interval(mins => ${REMINDER_LEAD_MINUTES}) <= ${stamp(at)}`, { remindedAt: at });
    for (const request of due) {
      const voted = new Set((await tx.select({ userId: approvalVotes.userId }).from(approvalVotes).where(eq(approvalVotes.requestId, request.id))).map((row) => row.userId));
      await notifyAboutRequest(tx, deps, request, 'reminder', (await decidersOf(tx, request)).filter((person) => !voted.has(person.id)));
    }
    return due.length;
  });
}

async function expireConfirmations(db: Database, at: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const hashes = rowsOf<{ nonce_hash: string }>(
      await tx.execute(
        sql`select nonce_hash from ${confirmationChallenges} where needs_human and confirmed_at is null and denied_at is null and expiry_reported_at is null and expires_at <= ${stamp(at)} limit ${BATCH} for update skip locked`,
      ),
    ).map((row) => row.nonce_hash);
    if (hashes.length === 0) return 0;
    const expired = await tx.update(confirmationChallenges).set({ expiryReportedAt: at }).where(inArray(confirmationChallenges.nonceHash, hashes)).returning();
    for (const challenge of expired) {
      await recordAuditEvent(tx, {
        orgId: challenge.orgId,
        actor: { type: 'system', label: 'expiry' },
        act: challenge.actor || null,
        clientId: challenge.clientId,
        action: 'confirmation.expired',
        subject: { type: 'confirmation', id: challenge.id },
        appId: challenge.appId,
        details: { tool: challenge.tool, riskLevel: challenge.riskLevel, subject: challenge.subject },
      });
    }
    return expired.length;
  });
}

/** Everyone whose held-back notices waited long enough gets them in one mail. */
async function sendDigests(db: Database, deps: NotifyDeps, at: Date): Promise<number> {
  const waiting = await db
    .select({ userId: notificationLog.userId })
    .from(notificationLog)
    .where(isNull(notificationLog.sentAt))
    .groupBy(notificationLog.userId)
    .having(sql`min(${notificationLog.createdAt}) <= ${stamp(at)} - make_interval(mins => ${DIGEST_DELAY_MINUTES})`)
    .limit(BATCH);
  let sent = 0;
  for (const { userId } of waiting) {
    sent += await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`notices:${userId}`}, 0))`);
      const items = await tx.update(notificationLog).set({ sentAt: at }).where(and(eq(notificationLog.userId, userId), isNull(notificationLog.sentAt))).returning();
      if (items.length === 0) return 0;
      const [person] = await tx.select({ email: users.email, disabledAt: users.disabledAt }).from(users).where(eq(users.id, userId));
      if (!person || person.disabledAt) return 0;
      items.sort((a, b) => a.id - b.id);
      const locale = await mailLocaleFor(tx, { email: person.email, orgId: items[0]!.orgId });
      await enqueueMail(tx, deps.atRestKey, notificationDigestMail({ to: person.email, locale, items: items.map((item) => ({ text: item.summary, link: item.link })) }), items[0]!.orgId);
      return 1;
    });
  }
  return sent;
}

/** What a round does besides its steps; a round run by hand (a test, the CLI) does both. */
export interface MaintenanceDue {
  /** Delete rows nobody needs any more (lib/notifications/sweeper.ts). */
  sweep: boolean;
  /** Remove abandoned dynamic registrations (lib/clients/cleanup.ts). */
  cleanUpClients: boolean;
  /** Move audit events past their organization's retention into this folder (lib/audit/archive.ts). */
  archiveAuditTo?: string;
}

/**
 * The round's maintenance: each step on its own, so that one that fails (an unwritable archive folder) neither
 * keeps the others from running nor loses what they removed. Failures are reported, and the step runs again when it
 * is next due.
 */
async function maintain(db: Database, at: Date, due: MaintenanceDue): Promise<{ removed: number; failures: string[] }> {
  let removed = 0;
  const failures: string[] = [];
  const step = async (name: string, work: () => Promise<number>) => {
    try {
      removed += await work();
    } catch (error) {
      failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  if (due.sweep) await step('sweep', async () => sweptRows(await sweepExpiredRows(db, at)));
  if (due.cleanUpClients) {
    await step('client clean-up', async () => {
      const clients = await removeAbandonedDynamicClients(db, at);
      return clients.neverUsed + clients.idle;
    });
  }
  const archiveTo = due.archiveAuditTo;
  if (archiveTo) {
    await step('audit archive', async () => {
      await archiveExpiredAuditEvents(db, { folder: archiveTo, at, maxSegments: SEGMENTS_PER_ROUND });
      return 0;
    });
  }
  return { removed, failures };
}

/** One round of every step, at `at`. */
export async function runTicker(db: Database, deps: NotifyDeps, at: Date = new Date(), due: MaintenanceDue = { sweep: true, cleanUpClients: true }): Promise<TickerReport> {
  const report: TickerReport = {
    expired: await expireRequests(db, at),
    escalated: await escalateRequests(db, deps, at),
    reminded: await remindDeciders(db, deps, at),
    confirmationsExpired: await expireConfirmations(db, at),
    digests: await sendDigests(db, deps, at),
    agentSuspensionsTold: await tellAboutSuspendedAgents(db, deps, at),
    purged: await giveUpUncollectedEvents(db, at),
  };
  const maintenance = await maintain(db, at, due);
  report.purged += maintenance.removed;
  if (maintenance.failures.length > 0) report.maintenanceFailed = maintenance.failures.join('; ');
  return report;
}

export interface Ticker {
  start(): void;
  stop(): Promise<void>;
}

/** Runs a round every 15 seconds in this process (what a round queues wakes the outbox when it commits). */
export function createTicker(
  db: () => Database,
  deps: NotifyDeps,
  log: (line: string) => void = console.error,
  options: { auditArchiveFolder?: string } = {},
): Ticker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  // When this process last swept and cleaned up (each instance on its own clock; the sweeper's lock keeps them apart).
  let lastSweep = 0;
  let lastClientCleanup = 0;
  let lastArchive = 0;
  const round = async () => {
    try {
      // Monotonic: a wall clock stepped back must not hold the sweep off until it catches up.
      const now = performance.now();
      const due = { sweep: lastSweep === 0 || now - lastSweep >= SWEEP_EVERY_MS, cleanUpClients: lastClientCleanup === 0 || now - lastClientCleanup >= CLEANUP_EVERY_MS };
      if (due.sweep) lastSweep = now;
      if (due.cleanUpClients) lastClientCleanup = now;
      const archiveDue = options.auditArchiveFolder !== undefined && (lastArchive === 0 || now - lastArchive >= ARCHIVE_EVERY_MS);
      if (archiveDue) lastArchive = now;
      const report = await runTicker(db(), deps, new Date(), archiveDue ? { ...due, archiveAuditTo: options.auditArchiveFolder } : due);
      if (report.maintenanceFailed) log(`[ticker] maintenance failed: ${terminalText(report.maintenanceFailed)}`);
    } catch (error) {
      // The database may be briefly unavailable: the next round tries again.
      log(`[ticker] round failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  return {
    start() {
      if (timer || stopped) return;
      timer = setInterval(() => {
        if (!running && !stopped) running = round().finally(() => (running = undefined));
      }, ROUND_MS);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
