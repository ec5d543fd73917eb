// Verification of the audit trail's hash chains (one per organization, one for installation events). The chain is
// written by the database (drizzle/0012_audit_chain_triggers.sql); this reads it back and names the first broken
// link of each chain: an event missing (deleted), an event whose content no longer matches its hash (edited), or
// one whose link to the event before it does not match (inserted, or something before it rewritten). Deleting the
// last events of a chain shows against the chain's head row; rewriting the whole tail and the head can only be seen
// against a head recorded elsewhere, which is why the report prints each head's hash.
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { auditChainHeads, auditEvents, organizations } from '../db/schema';

export interface ChainBreak {
  seq: number;
  eventId: number | null;
  problem: string;
}

export interface ChainReport {
  /** The organization's id, or '' for installation events. */
  chain: string;
  orgSlug: string | null;
  events: number;
  headSeq: number;
  headHash: string;
  broken?: ChainBreak;
}

const PAGE = 2000;

async function verifyChain(db: Queryable, chain: string, head: { lastSeq: number; lastHash: string }): Promise<Omit<ChainReport, 'orgSlug'>> {
  const inChain = chain === '' ? sql`${auditEvents.orgId} is null` : eq(auditEvents.orgId, chain);
  let expectedSeq = 1;
  let previousHash = '';
  let events = 0;
  let broken: ChainBreak | undefined;
  for (;;) {
    const page = await db
      .select({ id: auditEvents.id, seq: auditEvents.chainSeq, prevHash: auditEvents.prevHash, hash: auditEvents.hash, recomputed: sql<string>`audit_event_hash(${auditEvents})` })
      .from(auditEvents)
      .where(and(inChain, gt(auditEvents.chainSeq, expectedSeq - 1)))
      .orderBy(asc(auditEvents.chainSeq))
      .limit(PAGE);
    for (const event of page) {
      events += 1;
      if (!broken) {
        if (event.seq !== expectedSeq) {
          broken = { seq: expectedSeq, eventId: null, problem: `event${event.seq - expectedSeq > 1 ? `s #${expectedSeq}–#${event.seq - 1} are` : ` #${expectedSeq} is`} missing (deleted)` };
        } else if (event.recomputed !== event.hash) {
          broken = { seq: event.seq, eventId: event.id, problem: 'its content does not match its hash (edited)' };
        } else if (event.prevHash !== previousHash) {
          broken = { seq: event.seq, eventId: event.id, problem: 'its link to the event before it does not match (an event was inserted, or one before it rewritten)' };
        }
      }
      expectedSeq = event.seq + 1;
      previousHash = event.hash;
    }
    if (page.length < PAGE) break;
  }
  const lastSeq = expectedSeq - 1;
  if (!broken && head.lastSeq > lastSeq) {
    broken = { seq: lastSeq + 1, eventId: null, problem: `the last ${head.lastSeq - lastSeq === 1 ? 'event is' : `${head.lastSeq - lastSeq} events are`} missing (deleted): the chain's head is at #${head.lastSeq}` };
  } else if (!broken && (head.lastSeq !== lastSeq || head.lastHash !== previousHash)) {
    broken = { seq: lastSeq, eventId: null, problem: "the chain's end does not match its head (events were appended around the trigger, or the head was rewritten)" };
  }
  return { chain, events, headSeq: head.lastSeq, headHash: head.lastHash, ...(broken ? { broken } : {}) };
}

/** Every chain (or one organization's), verified from its first event to its head. */
export async function verifyAuditChains(db: Queryable, options: { orgId?: string } = {}): Promise<ChainReport[]> {
  const heads = await db
    .select({ chain: auditChainHeads.chain, lastSeq: auditChainHeads.lastSeq, lastHash: auditChainHeads.lastHash, slug: organizations.slug })
    .from(auditChainHeads)
    .leftJoin(organizations, sql`${organizations.id}::text = ${auditChainHeads.chain}`)
    .where(options.orgId === undefined ? undefined : eq(auditChainHeads.chain, options.orgId))
    .orderBy(asc(auditChainHeads.chain));
  // Events of a chain that has no head at all (the head row removed around its trigger) are a break too.
  const chains = new Map(heads.map((head) => [head.chain, head]));
  const orphans = await db
    .selectDistinct({ chain: sql<string>`coalesce(${auditEvents.orgId}::text, '')` })
    .from(auditEvents)
    .where(options.orgId === undefined ? undefined : eq(auditEvents.orgId, options.orgId));
  for (const { chain } of orphans) if (!chains.has(chain)) chains.set(chain, { chain, lastSeq: 0, lastHash: '', slug: null });
  const reports: ChainReport[] = [];
  for (const head of chains.values()) reports.push({ ...(await verifyChain(db, head.chain, head)), orgSlug: head.slug });
  return reports;
}
