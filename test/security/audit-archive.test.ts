// Audit retention and archive: an organization's events older than its retention move into JSON Lines files, and
// `audit verify` checks the chain across archive and database from its first event, so archiving keeps the tamper
// evidence. Only events an archive segment records can be deleted; a forged segment, an edited or missing file,
// a chain broken before archiving: each is named. Times are injected (`at`), never the real clock.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../lib/organizations/organizations';
import { archiveExpiredAuditEvents, segmentFileName } from '../../lib/audit/archive';
import { Refusal as AuditArchiveRefusal } from '../../lib/refusals/refusal';
import { verifyAuditChains } from '../../lib/audit/chain';
import { runCli } from '../../lib/cli';
import { runTicker } from '../../lib/notifications/ticker';
import { auditArchiveSegments, auditEvents, organizations, signedRequestNonces } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';

const DAY = 86_400_000;
const AT = new Date('2030-03-01T12:00:00Z');

describe('audit retention and archive', () => {
  let database: TestDatabase;
  let folder: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    folder = mkdtempSync(path.join(tmpdir(), 'portico-audit-archive-'));
  });
  afterAll(async () => {
    await database?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** An organization keeping its events `days` days in the database. */
  async function retainingOrg(days: number | null) {
    const org = await createOrganization(database.db, { slug: `archive-${randomBytes(3).toString('hex')}`, name: 'Archive Test' });
    await database.db.update(organizations).set({ auditRetentionDays: days }).where(eq(organizations.id, org.id));
    return { ...org, auditRetentionDays: days };
  }
  /** Events that occurred `daysAgo` days before `before` (AT), chained by the trigger in the order written. */
  async function writeEvents(orgId: string, daysAgo: number, count: number, before = AT) {
    for (let index = 0; index < count; index++) {
      await database.db.insert(auditEvents).values({
        orgId,
        occurredAt: new Date(before.getTime() - daysAgo * DAY + index * 1000),
        actorType: 'person',
        actorId: 'u1',
        actorLabel: 'someone@archive.test',
        action: 'test.event',
        details: { daysAgo, index, note: 'ünïcödé "quoted" \\ back' },
      });
    }
  }
  const live = (orgId: string) => database.db.select({ seq: auditEvents.chainSeq }).from(auditEvents).where(eq(auditEvents.orgId, orgId)).orderBy(auditEvents.chainSeq);
  const reportOf = async (orgId: string, archiveFolder: string | null = folder) => (await verifyAuditChains(database.db, { orgId, archiveFolder: archiveFolder ?? undefined }))[0]!;
  async function cli(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { db: database.db, issuer: 'https://id.example.test', atRestKey: new Uint8Array(32), operator: 'cli:test', out: (line) => out.push(line), confirm: async () => false }, (line) => err.push(line));
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('moves only events past the retention, as a prefix of the chain, and verifies across archive and database', async () => {
    const org = await retainingOrg(30);
    const keeper = await retainingOrg(null);
    await writeEvents(org.id, 45, 7);
    await writeEvents(org.id, 10, 3);
    await writeEvents(keeper.id, 400, 2);

    const report = await archiveExpiredAuditEvents(database.db, { folder, at: AT, orgId: org.id });
    expect(report).toEqual({ segments: 1, events: 7 });
    expect((await live(org.id)).map((row) => row.seq)).toEqual([8, 9, 10]);
    // An organization without a retention keeps everything, however old.
    await archiveExpiredAuditEvents(database.db, { folder, at: AT });
    expect(await live(keeper.id)).toHaveLength(2);

    const file = readFileSync(path.join(folder, segmentFileName(org.id, 1)), 'utf8').trim().split('\n');
    expect(JSON.parse(file[0]!)).toMatchObject({ format: 'portico-audit-archive', version: 1, chain: org.id, fromSeq: 1, toSeq: 7, prevHash: '', events: 7 });
    expect(file).toHaveLength(8);

    const verified = await reportOf(org.id);
    expect(verified.broken).toBeUndefined();
    expect(verified).toMatchObject({ events: 10, headSeq: 10 });
    // Without the archive the archived events are not taken on trust.
    expect((await reportOf(org.id, null)).broken?.problem).toMatch(/archived and were not checked/);
    const viaCli = await cli('audit', 'verify', '--org', org.slug, '--archive', folder);
    expect(viaCli.code).toBe(0);
    expect(viaCli.out).toContain(`intact  organization ${org.slug}: 10 events, head #10`);

    // Later, the rest is old too: the next segment continues the first, and the chain still verifies from #1.
    expect(await archiveExpiredAuditEvents(database.db, { folder, at: new Date(AT.getTime() + 30 * DAY), orgId: org.id })).toEqual({ segments: 1, events: 3 });
    expect(await live(org.id)).toEqual([]);
    expect(await reportOf(org.id)).toMatchObject({ events: 10, headSeq: 10 });
    expect((await reportOf(org.id)).broken).toBeUndefined();
    // New events chain on after the archived ones.
    await writeEvents(org.id, -31, 1);
    expect(await reportOf(org.id)).toMatchObject({ events: 11, headSeq: 11 });
    expect((await reportOf(org.id)).broken).toBeUndefined();
  });

  it('names an edited archive file, a file that is gone, and a segment forged to delete events', async () => {
    const org = await retainingOrg(30);
    await writeEvents(org.id, 60, 4);
    await writeEvents(org.id, 1, 2);
    await archiveExpiredAuditEvents(database.db, { folder, at: AT, orgId: org.id });
    const file = path.join(folder, segmentFileName(org.id, 1));
    const original = readFileSync(file, 'utf8');

    // An event's content edited in the file (and the file's own record cannot be fixed up to match).
    const tampered = original.replace('"index": 2', '"index": 9');
    expect(tampered).not.toBe(original);
    writeFileSync(file, tampered);
    expect((await reportOf(org.id)).broken).toMatchObject({ seq: 1, problem: expect.stringMatching(/SHA-256 differs/) });
    // The owner who also rewrites the file's record (around its trigger) still meets the event's own hash.
    await database.db.execute(sql`alter table audit_archive_segments disable trigger user`);
    try {
      await database.db.update(auditArchiveSegments).set({ fileSha256: createHash('sha256').update(tampered).digest('hex') }).where(eq(auditArchiveSegments.chain, org.id));
    } finally {
      await database.db.execute(sql`alter table audit_archive_segments enable trigger user`);
    }
    expect((await reportOf(org.id)).broken).toMatchObject({ seq: 3, problem: expect.stringMatching(/does not match its hash \(edited\)/) });
    await database.db.execute(sql`alter table audit_archive_segments disable trigger user`);
    try {
      await database.db.update(auditArchiveSegments).set({ fileSha256: createHash('sha256').update(original).digest('hex') }).where(eq(auditArchiveSegments.chain, org.id));
    } finally {
      await database.db.execute(sql`alter table audit_archive_segments enable trigger user`);
    }

    unlinkSync(file);
    expect((await reportOf(org.id)).broken?.problem).toMatch(/missing from/);
    writeFileSync(file, original);
    expect((await reportOf(org.id)).broken).toBeUndefined();

    // Events still in the database cannot be deleted...
    const refused = await database.db
      .execute(sql`delete from audit_events where org_id = ${org.id} and chain_seq = 5`)
      .then(() => undefined, (error: { cause?: { message?: string } }) => error.cause?.message);
    expect(refused).toMatch(/append-only/);
    // ...nor the archive's record rewritten or removed.
    for (const statement of [sql`update audit_archive_segments set to_seq = 6 where chain = ${org.id}`, sql`delete from audit_archive_segments where chain = ${org.id}`, sql`truncate audit_archive_segments`]) {
      const answer = await database.db.execute(statement).then(() => undefined, (error: { cause?: { message?: string } }) => error.cause?.message);
      expect(answer).toMatch(/append-only/);
    }
    // A segment that does not continue the archive is refused: it cannot make newer events deletable.
    const [six] = await database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, org.id), eq(auditEvents.chainSeq, 6)));
    const skipping = await database.db
      .insert(auditArchiveSegments)
      .values({ chain: org.id, fromSeq: 6, toSeq: 6, prevHash: six!.prevHash, lastHash: six!.hash, events: 1, file: segmentFileName(org.id, 6), fileSha256: 'z' })
      .then(() => undefined, (error: { cause?: { message?: string } }) => error.cause?.message);
    expect(skipping).toMatch(/continue the chain's archive/);
    // Nor may a segment that continues it claim hashes its events do not have.
    const [last] = await database.db.select().from(auditArchiveSegments).where(eq(auditArchiveSegments.chain, org.id));
    const lying = await database.db
      .insert(auditArchiveSegments)
      .values({ chain: org.id, fromSeq: 5, toSeq: 6, prevHash: last!.lastHash, lastHash: 'not-its-hash', events: 2, file: segmentFileName(org.id, 5), fileSha256: 'z' })
      .then(() => undefined, (error: { cause?: { message?: string } }) => error.cause?.message);
    expect(lying).toMatch(/with the hashes it records/);
    // The table's owner, around the segments' triggers, can forge one and so delete event #5: the segment's file
    // does not exist, and verify says so.
    await database.db.execute(sql`alter table audit_archive_segments disable trigger user`);
    try {
      await database.db.insert(auditArchiveSegments).values({ chain: org.id, fromSeq: 5, toSeq: 5, prevHash: 'x', lastHash: 'y', events: 1, file: segmentFileName(org.id, 5), fileSha256: 'z' });
    } finally {
      await database.db.execute(sql`alter table audit_archive_segments enable trigger user`);
    }
    await database.db.execute(sql`delete from audit_events where org_id = ${org.id} and chain_seq = 5`);
    expect((await reportOf(org.id)).broken).toMatchObject({ seq: 5, problem: expect.stringMatching(/missing from/) });
    expect((await cli('audit', 'verify', '--org', org.slug, '--archive', folder)).code).toBe(1);
  });

  it('reads only the file the archiver names: a forged record cannot point the walk elsewhere', async () => {
    const org = await retainingOrg(30);
    await writeEvents(org.id, 60, 2);
    const [first] = await database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, org.id), eq(auditEvents.chainSeq, 1)));
    await database.db.insert(auditArchiveSegments).values({ chain: org.id, fromSeq: 1, toSeq: 1, prevHash: '', lastHash: first!.hash, events: 1, file: '../../../etc/passwd', fileSha256: 'z' });
    expect((await reportOf(org.id)).broken).toMatchObject({ seq: 1, problem: expect.stringMatching(/unexpected name/) });
  });

  it('cannot be fooled by a temporary table standing in for the segments', async () => {
    const org = await retainingOrg(30);
    await writeEvents(org.id, 60, 2);
    // One connection for the whole attempt: a temporary table lives in its session.
    const attempt = await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`create temporary table audit_archive_segments (chain text, from_seq bigint, to_seq bigint) on commit drop`);
        await tx.execute(sql`insert into pg_temp.audit_archive_segments values (${org.id}, 1, 2)`);
        await tx.execute(sql`delete from audit_events where org_id = ${org.id}`);
      })
      .then(() => undefined, (error: { cause?: { message?: string } }) => error.cause?.message);
    expect(attempt).toMatch(/append-only/);
    expect(await live(org.id)).toHaveLength(2);
  });

  it('refuses to archive past a break in the chain, which would hide it', async () => {
    const org = await retainingOrg(30);
    // Years in the past, so that the CLI (which archives as of now) finds them old too.
    await writeEvents(org.id, 90, 3, new Date('2020-01-01T00:00:00Z'));
    // As the table's owner could: around the triggers.
    await database.db.execute(sql`alter table audit_events disable trigger user`);
    try {
      await database.db.execute(sql`delete from audit_events where org_id = ${org.id} and chain_seq = 1`);
    } finally {
      await database.db.execute(sql`alter table audit_events enable trigger user`);
    }
    await expect(archiveExpiredAuditEvents(database.db, { folder, at: AT, orgId: org.id })).rejects.toBeInstanceOf(AuditArchiveRefusal);
    expect(await live(org.id)).toHaveLength(2);
    const viaCli = await cli('audit', 'archive', '--org', org.slug, '--to', folder);
    expect(viaCli.code).toBe(1);
    expect(viaCli.err).toMatch(/does not continue its archive at event #1/);
  });

  it('archives each event once when two instances archive at once', async () => {
    const org = await retainingOrg(30);
    await writeEvents(org.id, 50, 40);
    const reports = await Promise.all([1, 2, 3].map(() => archiveExpiredAuditEvents(database.db, { folder, at: AT, orgId: org.id })));
    expect(reports.reduce((sum, report) => sum + report.events, 0)).toBe(40);
    const segments = await database.db.select().from(auditArchiveSegments).where(eq(auditArchiveSegments.chain, org.id));
    expect(segments.reduce((sum, segment) => sum + segment.events, 0)).toBe(40);
    expect(await reportOf(org.id)).toMatchObject({ events: 40 });
    expect((await reportOf(org.id)).broken).toBeUndefined();
  });

  it('sets the retention from the CLI, within bounds, audited', async () => {
    const org = await retainingOrg(null);
    for (const days of ['29', '36501', 'soon', '']) {
      const refused = await cli('audit', 'retention', '--org', org.slug, '--days', days);
      expect(refused.code).not.toBe(0);
    }
    const set = await cli('audit', 'retention', '--org', org.slug, '--days', '365');
    expect(set.code).toBe(0);
    const [row] = await database.db.select({ days: organizations.auditRetentionDays }).from(organizations).where(eq(organizations.id, org.id));
    expect(row!.days).toBe(365);
    const [event] = await database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, org.id), eq(auditEvents.action, 'audit.retention_changed')));
    expect(event).toMatchObject({ actorType: 'operator_cli', details: { from: null, to: 365 } });
    expect((await cli('audit', 'retention', '--org', org.slug, '--days', 'forever')).code).toBe(0);
    const [after] = await database.db.select({ days: organizations.auditRetentionDays }).from(organizations).where(eq(organizations.id, org.id));
    expect(after!.days).toBeNull();
  });

  it("reports a round whose archive fails with its other steps' counts and the reason, and deletes nothing", async () => {
    const org = await retainingOrg(30);
    await writeEvents(org.id, 60, 2);
    // A file where the archive folder should be: nothing can be written under it.
    const notAFolder = path.join(folder, `not-a-folder-${randomBytes(3).toString('hex')}`);
    writeFileSync(notAFolder, 'x');
    // The sweep before it runs and counts all the same.
    await database.db.insert(signedRequestNonces).values({ nonce: `dead-${randomBytes(3).toString('hex')}`, expiresAt: new Date(AT.getTime() - DAY) });
    const report = await runTicker(database.db, { issuer: 'https://id.example.test', atRestKey: new Uint8Array(32) }, AT, { sweep: true, cleanUpClients: false, archiveAuditTo: notAFolder });
    expect(report).toMatchObject({ expired: 0, escalated: 0, reminded: 0, digests: 0 });
    expect(report.purged).toBeGreaterThanOrEqual(1);
    expect(report.maintenanceFailed).toMatch(/^audit archive: .*(not-a-folder|ENOTDIR|EEXIST)/);
    expect(await live(org.id)).toHaveLength(2);
  });
});
