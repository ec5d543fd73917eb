// Verification of the audit trail's hash chains (one per organization, one for installation events). The chain is
// written by the database (drizzle/0012_audit_chain_triggers.sql); this reads it back and names the first broken
// link of each chain: an event missing (deleted), an event whose content no longer matches its hash (edited), or
// one whose link to the event before it does not match (inserted, or something before it rewritten). Deleting the
// last events of a chain shows against the chain's head row; rewriting the whole tail and the head can only be seen
// against a head recorded elsewhere, which is why the report prints each head's hash. Events moved to the archive
// (lib/audit/archive.ts) are read back from their files and checked as the first links of their chains.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { rowsOf, type Database, type Queryable } from '../db/client';
import { auditArchiveSegments, auditChainHeads, auditEvents, organizations } from '../db/schema';
import { ARCHIVE_FORMAT, archiveFileSha256, segmentFileName, type SegmentHeader } from './archive';

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

/** One event as the walk checks it: its place, its stored links and the hash its content gives now. */
interface CheckedEvent {
  seq: number;
  id: number | null;
  chain: string;
  prevHash: string;
  hash: string;
  recomputed: string;
}

/** The walk along one chain, event by event, from #1: archive segments first, then the database. */
class ChainWalk {
  expectedSeq = 1;
  previousHash = '';
  events = 0;
  broken: ChainBreak | undefined;
  constructor(readonly chain: string) {}

  fail(seq: number, eventId: number | null, problem: string): void {
    this.broken ??= { seq, eventId, problem };
  }

  check(event: CheckedEvent): void {
    this.events += 1;
    if (!this.broken) {
      if (event.seq !== this.expectedSeq) {
        const missing = event.seq - this.expectedSeq;
        this.fail(this.expectedSeq, null, missing > 0 ? `event${missing > 1 ? `s #${this.expectedSeq}–#${event.seq - 1} are` : ` #${this.expectedSeq} is`} missing (deleted)` : `event #${event.seq} appears twice`);
      } else if (event.chain !== this.chain) {
        this.fail(event.seq, event.id, 'it belongs to another chain (moved)');
      } else if (event.recomputed !== event.hash) {
        this.fail(event.seq, event.id, 'its content does not match its hash (edited)');
      } else if (event.prevHash !== this.previousHash) {
        this.fail(event.seq, event.id, 'its link to the event before it does not match (an event was inserted, or one before it rewritten)');
      }
    }
    this.expectedSeq = event.seq + 1;
    this.previousHash = event.hash;
  }
}

/** The chain's archived events, read back from their files (lib/audit/archive.ts) and checked as links. */
async function walkArchive(db: Queryable, walk: ChainWalk, archiveFolder: string | undefined): Promise<void> {
  const segments = await db
    .select()
    .from(auditArchiveSegments)
    .where(eq(auditArchiveSegments.chain, walk.chain))
    .orderBy(asc(auditArchiveSegments.fromSeq));
  for (const segment of segments) {
    if (walk.broken) return;
    const range = `#${segment.fromSeq}–#${segment.toSeq}`;
    if (!archiveFolder) {
      walk.fail(segment.fromSeq, null, `events ${range} are archived and were not checked: give the archive folder (PORTICO_AUDIT_ARCHIVE_DIR, or --archive <folder>)`);
      return;
    }
    // The record names its file; only the name the archiver gives it is read (a forged record cannot point the
    // walk at any other file on this machine).
    if (segment.file !== segmentFileName(walk.chain, segment.fromSeq)) {
      walk.fail(segment.fromSeq, null, `events ${range} are recorded in an archive file with an unexpected name`);
      return;
    }
    let content: string;
    try {
      content = await readFile(path.join(archiveFolder, segment.file), 'utf8');
    } catch {
      walk.fail(segment.fromSeq, null, `events ${range} are archived in ${segment.file}, which is missing from ${archiveFolder}`);
      return;
    }
    if (archiveFileSha256(content) !== segment.fileSha256) {
      walk.fail(segment.fromSeq, null, `the archive file ${segment.file} (events ${range}) is not the file that was written: its SHA-256 differs`);
    }
    const lines = content.split('\n').filter((line) => line.length > 0);
    let header: Partial<SegmentHeader> = {};
    try {
      header = JSON.parse(lines.shift() ?? '{}') as Partial<SegmentHeader>;
    } catch {
      // Reported below as a header that does not match.
    }
    if (header.format !== ARCHIVE_FORMAT || header.chain !== walk.chain || header.fromSeq !== segment.fromSeq || header.toSeq !== segment.toSeq) {
      walk.fail(segment.fromSeq, null, `the archive file ${segment.file} does not describe events ${range} of this chain`);
    }
    // Each archived row goes back through audit_event_hash(), the function that chained it. The lines go to
    // PostgreSQL as written (a number in `details` keeps its exact text); one that is not an event of the table's
    // shape is a break, not the end of the whole check (a savepoint keeps the snapshot's transaction usable).
    for (let start = 0; start < lines.length; start += PAGE) {
      const page = lines.slice(start, start + PAGE);
      if (!page.every((line) => /^\{.*\}$/.test(line))) {
        walk.fail(segment.fromSeq, null, `the archive file ${segment.file} has a line that is not an event`);
        return;
      }
      let checked: { seq: string | number; id: string | number | null; chain: string; prev_hash: string; hash: string; recomputed: string }[];
      try {
        checked = await db.transaction(async (savepoint) =>
          rowsOf<{ seq: string | number; id: string | number | null; chain: string; prev_hash: string; hash: string; recomputed: string }>(
            await savepoint.execute(sql`
              select (r).chain_seq as seq, (r).id as id, coalesce((r).org_id::text, '') as chain, (r).prev_hash as prev_hash, (r).hash as hash,
                audit_event_hash(r) as recomputed
              from (select jsonb_populate_record(null::audit_events, item) as r, position
                    from jsonb_array_elements(${`[${page.join(',')}]`}::jsonb) with ordinality as items(item, position)) archived
              order by position`),
          ),
        );
      } catch {
        walk.fail(segment.fromSeq, null, `the archive file ${segment.file} has a line that is not an event`);
        return;
      }
      for (const event of checked) {
        walk.check({ seq: Number(event.seq), id: event.id === null ? null : Number(event.id), chain: event.chain, prevHash: event.prev_hash ?? '', hash: event.hash ?? '', recomputed: event.recomputed });
      }
    }
    if (!walk.broken && (walk.expectedSeq !== segment.toSeq + 1 || walk.previousHash !== segment.lastHash)) {
      walk.fail(segment.fromSeq, null, `the archive file ${segment.file} does not end where its record says (event #${segment.toSeq})`);
    }
  }
}

async function verifyChain(db: Queryable, chain: string, head: { lastSeq: number; lastHash: string }, archiveFolder: string | undefined): Promise<Omit<ChainReport, 'orgSlug'>> {
  const inChain = chain === '' ? sql`${auditEvents.orgId} is null` : eq(auditEvents.orgId, chain);
  const walk = new ChainWalk(chain);
  await walkArchive(db, walk, archiveFolder);
  // An event still in the database inside an archived range: the console shows it, the walk below would skip it.
  if (!walk.broken && walk.expectedSeq > 1) {
    const [stale] = await db
      .select({ id: auditEvents.id, seq: auditEvents.chainSeq })
      .from(auditEvents)
      .where(and(inChain, sql`${auditEvents.chainSeq} < ${walk.expectedSeq}`))
      .orderBy(asc(auditEvents.chainSeq))
      .limit(1);
    if (stale) walk.fail(stale.seq, stale.id, 'it is archived and still in the database (a second copy)');
  }
  for (;;) {
    const page = await db
      .select({ id: auditEvents.id, seq: auditEvents.chainSeq, prevHash: auditEvents.prevHash, hash: auditEvents.hash, recomputed: sql<string>`audit_event_hash(${auditEvents})` })
      .from(auditEvents)
      .where(and(inChain, gt(auditEvents.chainSeq, walk.expectedSeq - 1)))
      .orderBy(asc(auditEvents.chainSeq))
      .limit(PAGE);
    for (const event of page) walk.check({ ...event, chain });
    if (page.length < PAGE) break;
  }
  const lastSeq = walk.expectedSeq - 1;
  if (!walk.broken && head.lastSeq > lastSeq) {
    walk.fail(lastSeq + 1, null, `the last ${head.lastSeq - lastSeq === 1 ? 'event is' : `${head.lastSeq - lastSeq} events are`} missing (deleted): the chain's head is at #${head.lastSeq}`);
  } else if (!walk.broken && (head.lastSeq !== lastSeq || head.lastHash !== walk.previousHash)) {
    walk.fail(lastSeq, null, "the chain's end does not match its head (events were appended around the trigger, or the head was rewritten)");
  }
  return { chain, events: walk.events, headSeq: head.lastSeq, headHash: head.lastHash, ...(walk.broken ? { broken: walk.broken } : {}) };
}

/** Every chain (or one organization's), verified from its first event to its head. */
export async function verifyAuditChains(db: Database, options: { orgId?: string; archiveFolder?: string } = {}): Promise<ChainReport[]> {
  // One snapshot for the whole walk: heads, segments and events as of one instant, so that an archiver or a writer
  // committing meanwhile (any instance, any time) cannot make an intact chain look broken. Files named by committed
  // segments never change, so reading them inside the snapshot is consistent.
  return db.transaction((tx) => verifyInSnapshot(tx, options), { isolationLevel: 'repeatable read', accessMode: 'read only' });
}

async function verifyInSnapshot(db: Queryable, options: { orgId?: string; archiveFolder?: string }): Promise<ChainReport[]> {
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
  for (const head of chains.values()) reports.push({ ...(await verifyChain(db, head.chain, head, options.archiveFolder)), orgSlug: head.slug });
  return reports;
}
