// Audit retention: an organization's events older than its retention (organizations.audit_retention_days) move out
// of the database into JSON Lines files, one segment of a chain at a time, and stay verifiable there.
//
// A segment file is a header line, then one line per event as PostgreSQL renders the row (row_to_json): every column,
// the chain's place, the previous event's hash and the event's own. `audit verify` (lib/audit/chain.ts) reads the
// events back through the same audit_event_hash() that chained them, so the chain is checked from its first event
// across archive and database alike. The database keeps a record of each segment (audit_archive_segments: range,
// hashes at both ends, the file's SHA-256), and its trigger deletes only events a segment records
// (drizzle/0046_audit_archive.sql).
//
// Crash safety: the file is written, flushed and renamed into place before the transaction that records the segment
// and deletes its events commits. A crash in between leaves a file no segment names, which the next round writes
// again under the same name (a segment is named after its first event).
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { and, asc, eq, isNotNull, sql } from 'drizzle-orm';
import { rowsOf, sqlInstant, type Database } from '../db/client';
import { auditArchiveSegments, organizations } from '../db/schema';
import { refusalOf } from '../refusals/refusal';
import { auditArchiveRefusal } from './refusal-codes';

/** The first line of every segment file says what it is. */
export const ARCHIVE_FORMAT = 'portico-audit-archive';
export const ARCHIVE_FORMAT_VERSION = 1;
/** Events per segment file (and per deleting transaction). */
export const SEGMENT_EVENTS = 5000;
/** How long after an event's time it may be archived, at the least and at the most (the setting's bounds). */
export const AUDIT_RETENTION_DAYS = { min: 30, max: 36500 } as const;
/** How often a server process archives (when PORTICO_AUDIT_ARCHIVE_DIR is set). */
export const ARCHIVE_EVERY_MS = 60 * 60_000;
/** Segments a server archives in one round at most (up to 100,000 events); the rest waits for the next round. */
export const SEGMENTS_PER_ROUND = 20;

export interface SegmentHeader {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  /** The organization's id, or '' for installation events. */
  chain: string;
  fromSeq: number;
  toSeq: number;
  prevHash: string;
  lastHash: string;
  events: number;
}

export interface ArchiveReport {
  segments: number;
  events: number;
}

/** The folder of a chain's segments, inside the archive folder. */
export function chainFolderName(chain: string): string {
  return chain === '' ? 'installation' : chain;
}

/** A segment's file, relative to the archive folder: named after its first event, so a rewrite lands on itself. */
export function segmentFileName(chain: string, fromSeq: number): string {
  return `${chainFolderName(chain)}/${String(fromSeq).padStart(12, '0')}.jsonl`;
}

/** fsync of a folder: a file created or renamed in it survives a crash. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `content` so that after this returns the file is whole on disk, or absent: never half-written. Read back
 * and compared before it counts (shared storage that accepts a write it then loses would otherwise cost the events).
 * Asynchronous: the server goes on answering while a segment is written.
 */
async function writeDurably(folder: string, file: string, content: string): Promise<void> {
  const target = path.join(folder, file);
  const chainFolder = path.dirname(target);
  const existed = await stat(chainFolder).then(() => true, () => false);
  await mkdir(chainFolder, { recursive: true, mode: 0o700 });
  if (!existed) await syncFolder(path.dirname(chainFolder));
  const temporary = `${target}.partial`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(content, 'utf8'); // writes the whole buffer (a loop over short writes)
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, target);
  await syncFolder(chainFolder);
  const written = await readFile(target);
  if (archiveFileSha256(written) !== archiveFileSha256(content)) throw new Error(`The archive file ${file} does not read back as written: nothing is archived.`);
}

/** SHA-256 (hex) of an archive file's content: what a segment records, and what `audit verify` compares. */
export const archiveFileSha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');

/**
 * Moves one segment of `chain`'s oldest events, those that occurred before `cutoff`, into `folder`. Returns the
 * number of events moved (0: nothing is old enough, or another instance is archiving this chain right now).
 */
async function archiveSegment(db: Database, folder: string, chain: string, cutoff: Date): Promise<number> {
  return db.transaction(async (tx) => {
    // One archiver per chain at a time, across instances; a held lock means someone else is on it.
    const locked = rowsOf<{ locked: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(hashtextextended(${`audit-archive:${chain}`}, 0)) as locked`))[0];
    if (!locked?.locked) return 0;
    // Nothing to do (the common case, every hour): the chain's oldest event in the database is not old enough.
    const oldest = rowsOf<{ expired: boolean }>(
      await tx.execute(sql`
        select e.occurred_at < ${sqlInstant(cutoff)} as expired from audit_events e
        where coalesce(e.org_id::text, '') = ${chain} order by coalesce(e.org_id::text, ''), e.chain_seq limit 1`),
    )[0];
    if (!oldest?.expired) return 0;
    // The chain's oldest events still in the database, in chain order (audit_events_chain_seq_idx).
    const rows = rowsOf<{ line: string; seq: string | number; prev_hash: string; hash: string; expired: boolean }>(
      await tx.execute(sql`
        select row_to_json(e)::text as line, e.chain_seq as seq, e.prev_hash, e.hash, e.occurred_at < ${sqlInstant(cutoff)} as expired
        from audit_events e
        where coalesce(e.org_id::text, '') = ${chain}
        order by coalesce(e.org_id::text, ''), e.chain_seq
        limit ${SEGMENT_EVENTS}`),
    );
    // Only a prefix of the chain moves: an event whose time is inside the retention stops the segment, even if a
    // later one (from a transaction that began earlier) is older.
    const moving = [];
    for (const row of rows) {
      if (!row.expired) break;
      moving.push(row);
    }
    if (moving.length === 0) return 0;
    const fromSeq = Number(moving[0]!.seq);
    const toSeq = Number(moving.at(-1)!.seq);
    // The segment must continue the archive exactly: archiving past a break would hide it from `audit verify`.
    const [previous] = await tx
      .select({ toSeq: auditArchiveSegments.toSeq, lastHash: auditArchiveSegments.lastHash })
      .from(auditArchiveSegments)
      .where(eq(auditArchiveSegments.chain, chain))
      .orderBy(sql`${auditArchiveSegments.fromSeq} desc`)
      .limit(1);
    const expectedFrom = previous ? previous.toSeq + 1 : 1;
    const expectedPrevHash = previous ? previous.lastHash : '';
    if (fromSeq !== expectedFrom || moving[0]!.prev_hash !== expectedPrevHash || toSeq - fromSeq + 1 !== moving.length) {
      throw auditArchiveRefusal(
        `The audit chain ${chainFolderName(chain)} does not continue its archive at event #${expectedFrom}: nothing is archived. Run: npm run portico -- audit verify`,
      );
    }
    const header: SegmentHeader = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_FORMAT_VERSION,
      chain,
      fromSeq,
      toSeq,
      prevHash: moving[0]!.prev_hash,
      lastHash: moving.at(-1)!.hash,
      events: moving.length,
    };
    const content = `${JSON.stringify(header)}\n${moving.map((row) => row.line).join('\n')}\n`;
    const file = segmentFileName(chain, fromSeq);
    await writeDurably(folder, file, content);
    await tx.insert(auditArchiveSegments).values({
      chain,
      fromSeq,
      toSeq,
      prevHash: header.prevHash,
      lastHash: header.lastHash,
      events: header.events,
      file,
      fileSha256: archiveFileSha256(content),
    });
    // The trigger lets these go because the segment above now records them.
    await tx.execute(sql`delete from audit_events where coalesce(org_id::text, '') = ${chain} and chain_seq between ${fromSeq} and ${toSeq}`);
    return moving.length;
  });
}

/**
 * Moves every organization's events older than its retention (or one organization's) into `folder`, segment by
 * segment. Installation events, and organizations without a retention, stay in the database.
 */
export async function archiveExpiredAuditEvents(
  db: Database,
  options: {
    folder: string;
    at?: Date;
    orgId?: string;
    /** At most this many segments (the ticker's round stays short; a backlog is worked off round after round). */
    maxSegments?: number;
  },
): Promise<ArchiveReport> {
  const at = options.at ?? new Date();
  const retained = await db
    .select({ id: organizations.id, days: organizations.auditRetentionDays })
    .from(organizations)
    .where(and(isNotNull(organizations.auditRetentionDays), options.orgId === undefined ? undefined : eq(organizations.id, options.orgId)))
    .orderBy(asc(organizations.id));
  const report: ArchiveReport = { segments: 0, events: 0 };
  const refusals: string[] = [];
  for (const org of retained) {
    if (report.segments >= (options.maxSegments ?? Infinity)) break;
    const cutoff = new Date(at.getTime() - org.days! * 86_400_000);
    try {
      for (;;) {
        const moved = await archiveSegment(db, options.folder, org.id, cutoff);
        if (moved === 0) break;
        report.segments += 1;
        report.events += moved;
        if (moved < SEGMENT_EVENTS || report.segments >= (options.maxSegments ?? Infinity)) break;
      }
    } catch (error) {
      // One broken chain stops its own archiving, not the other organizations'.
      const refused = refusalOf(error, 'audit_archive');
      if (!refused) throw error;
      refusals.push(refused.message);
    }
  }
  if (refusals.length > 0) throw auditArchiveRefusal(refusals.join(' '), report);
  return report;
}
