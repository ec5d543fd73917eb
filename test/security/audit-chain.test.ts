// The tamper-evident audit trail: each event carries the hash of the one before it in its organization's chain,
// written by a database trigger, so concurrent writers (Promise.all on a real pool) still make one gapless chain.
// The application cannot update, delete or truncate events. Someone who disables the triggers (the table's owner)
// can, and `audit verify` then names the first broken link: an edited, deleted or inserted event.
import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../lib/organizations/organizations';
import { verifyAuditChains } from '../../lib/audit/chain';
import { listAuditActions, recordAuditEvent } from '../../lib/audit/events';
import { runCli } from '../../lib/cli';
import { auditEvents } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('the audit hash chain', () => {
  let database: TestDatabase;

  const newOrg = async (name: string) => createOrganization(database.db, { slug: `${name}-${randomBytes(3).toString('hex')}`, name });
  const write = (orgId: string | null, index: number) =>
    recordAuditEvent(database.db, { orgId, actor: { type: 'person', id: 'u1', label: 'someone@chain.test', ip: '192.0.2.1' }, action: 'test.event', subject: { type: 'thing', id: `t${index}` }, details: { index, note: 'ünïcödé "quoted"' } });
  const eventsOf = (orgId: string) => database.db.select().from(auditEvents).where(eq(auditEvents.orgId, orgId)).orderBy(auditEvents.chainSeq);
  const reportOf = async (orgId: string) => (await verifyAuditChains(database.db, { orgId }))[0]!;
  /** As the table's owner would: around the append-only and chaining triggers. */
  async function tamper(statement: ReturnType<typeof sql>) {
    await database.db.execute(sql`alter table audit_events disable trigger user`);
    try {
      await database.db.execute(statement);
    } finally {
      await database.db.execute(sql`alter table audit_events enable trigger user`);
    }
  }
  async function cli(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { db: database.db, issuer: 'https://id.example.test', atRestKey: new Uint8Array(32), operator: 'cli:test', out: (line) => out.push(line), confirm: async () => false }, (line) => err.push(line));
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database?.close());

  it('chains events per organization without gaps, even when 60 are written at once', async () => {
    const [first, second] = [await newOrg('chain-a'), await newOrg('chain-b')];
    await Promise.all(Array.from({ length: 60 }, (_, index) => write(index % 2 === 0 ? first.id : second.id, index)));
    await write(null, 1000);
    for (const org of [first, second]) {
      const events = await eventsOf(org.id);
      // createOrganization writes none; the 30 here are numbered 1..30, each linked to the one before.
      expect(events.map((event) => event.chainSeq)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
      events.forEach((event, index) => expect(event.prevHash).toBe(index === 0 ? '' : events[index - 1]!.hash));
      expect(new Set(events.map((event) => event.hash)).size).toBe(30);
      expect(await reportOf(org.id)).toMatchObject({ events: 30, headSeq: 30, headHash: events[29]!.hash });
      expect((await reportOf(org.id)).broken).toBeUndefined();
    }
    const all = await verifyAuditChains(database.db);
    expect(all.find((report) => report.chain === '')).toMatchObject({ orgSlug: null });
    const verified = await cli('audit', 'verify', '--org', first.slug);
    expect(verified.code).toBe(0);
    expect(verified.out).toContain(`intact  organization ${first.slug}: 30 events, head #30`);
  });

  it('lists the kinds of event an organization has, each once, in order, and no other organization\'s', async () => {
    const [org, other] = [await newOrg('chain-kinds'), await newOrg('chain-kinds-other')];
    const record = (orgId: string, action: string) => recordAuditEvent(database.db, { orgId, actor: { type: 'system' }, action });
    for (const action of ['member.added', 'app.created', 'member.added', 'zeta.last', 'app.created', 'member.removed']) await record(org.id, action);
    await record(other.id, 'only.elsewhere');
    expect(await listAuditActions(database.db, org.id)).toEqual(['app.created', 'member.added', 'member.removed', 'zeta.last']);
    expect(await listAuditActions(database.db, (await newOrg('chain-kinds-none')).id)).toEqual([]);
  });

  it('refuses every UPDATE, DELETE and TRUNCATE of events, and any rewind of a chain head', async () => {
    const org = await newOrg('chain-locked');
    await write(org.id, 1);
    const refusals = [
      sql`update audit_events set action = 'test.rewritten' where org_id = ${org.id}`,
      sql`delete from audit_events where org_id = ${org.id}`,
      sql`truncate audit_events`,
      sql`update audit_chain_heads set last_seq = 0, last_hash = '' where chain = ${org.id}`,
      sql`delete from audit_chain_heads where chain = ${org.id}`,
    ];
    for (const statement of refusals) {
      const refused = await database.db.execute(statement).then(() => undefined, (error: { cause?: { message?: string } }) => error.cause?.message);
      expect(refused).toMatch(/append-only|only move forward/);
    }
    expect((await eventsOf(org.id)).map((event) => event.action)).toEqual(['test.event']);
  });

  it('names an edited event', async () => {
    const org = await newOrg('chain-edited');
    for (let index = 0; index < 5; index += 1) await write(org.id, index);
    await tamper(sql`update audit_events set details = '{"index": 2, "note": "nothing to see"}'::jsonb where org_id = ${org.id} and chain_seq = 3`);
    expect((await reportOf(org.id)).broken).toMatchObject({ seq: 3, problem: expect.stringContaining('edited') });

    // Recomputing the edited event's own hash moves the break to the next link, which still names the old hash.
    await tamper(sql`update audit_events set hash = audit_event_hash(audit_events) where org_id = ${org.id} and chain_seq = 3`);
    expect((await reportOf(org.id)).broken).toMatchObject({ seq: 4, problem: expect.stringContaining('link') });
    const verified = await cli('audit', 'verify', '--org', org.slug);
    expect(verified.code).toBe(1);
    expect(verified.out).toContain(`BROKEN  organization ${org.slug}: at event #4`);
    expect(verified.err).toContain('1 audit chain is broken');
  });

  it('names a deleted event, and deleted last events', async () => {
    const org = await newOrg('chain-deleted');
    for (let index = 0; index < 5; index += 1) await write(org.id, index);
    await tamper(sql`delete from audit_events where org_id = ${org.id} and chain_seq = 2`);
    expect((await reportOf(org.id)).broken).toMatchObject({ seq: 2, eventId: null, problem: 'event #2 is missing (deleted)' });

    const tail = await newOrg('chain-tail');
    for (let index = 0; index < 4; index += 1) await write(tail.id, index);
    await tamper(sql`delete from audit_events where org_id = ${tail.id} and chain_seq >= 3`);
    expect((await reportOf(tail.id)).broken).toMatchObject({ seq: 3, problem: expect.stringContaining('the last 2 events are missing') });
  });

  it('names an inserted event, in the middle or at the end', async () => {
    const org = await newOrg('chain-inserted');
    for (let index = 0; index < 3; index += 1) await write(org.id, index);
    const [last] = await database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, org.id), eq(auditEvents.chainSeq, 3)));
    // Appended around the trigger with a correct-looking link and hash: the head does not know it.
    await tamper(sql`insert into audit_events (org_id, actor_type, action, details, chain_seq, prev_hash) values (${org.id}, 'system', 'test.forged', '{}'::jsonb, 4, ${last!.hash})`);
    await tamper(sql`update audit_events set hash = audit_event_hash(audit_events) where org_id = ${org.id} and chain_seq = 4`);
    expect((await reportOf(org.id)).broken).toMatchObject({ problem: expect.stringContaining("does not match its head") });

    // Slipped in between two events (the later ones renumbered): the renumbered events no longer match their hashes.
    const middle = await newOrg('chain-middle');
    for (let index = 0; index < 3; index += 1) await write(middle.id, index);
    await tamper(sql`update audit_events set chain_seq = chain_seq + 1000 where org_id = ${middle.id} and chain_seq >= 2`);
    await tamper(sql`update audit_events set chain_seq = chain_seq - 999 where org_id = ${middle.id} and chain_seq >= 1000`);
    await tamper(sql`insert into audit_events (org_id, actor_type, action, details, chain_seq, prev_hash, hash) values (${middle.id}, 'system', 'test.forged', '{}'::jsonb, 2, '', 'forged')`);
    expect((await reportOf(middle.id)).broken).toMatchObject({ seq: 2 });
  });
});
