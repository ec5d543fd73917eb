// The console's members list, a page at a time: in email order, a hundred by default, the next page after the last
// email shown; a search in emails and names in which `%` and `_` are plain characters; the count of what it finds.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../lib/db/client';
import { env } from '../../lib/env';
import { addMember, listMembersPage } from '../../lib/organizations/memberships';
import { createOrganization } from '../../lib/organizations/organizations';
import { createUser } from '../../lib/accounts/users';
import { memberships, users } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('the members list, page by page', () => {
  let database: TestDatabase;
  let orgId: string;
  const emails: string[] = [];

  beforeAll(async () => {
    database = await openTestDatabase();
    const org = await createOrganization(database.db, { slug: `members-${randomBytes(3).toString('hex')}`, name: 'Members' });
    orgId = org.id;
    const other = await createOrganization(database.db, { slug: `others-${randomBytes(3).toString('hex')}`, name: 'Others' });
    for (let index = 0; index < 25; index++) {
      const email = `person-${String(index).padStart(2, '0')}${index === 7 ? '_x%' : ''}@members.test`;
      const user = await createUser(database.db, { email, name: index === 11 ? 'Ada Lovelace' : `Person ${index}`, passwordHash: null });
      await addMember(database.db, { orgId, userId: user.id, role: 'member' });
      emails.push(email);
    }
    const outsider = await createUser(database.db, { email: 'outsider@members.test', name: 'Ada Outsider', passwordHash: null });
    await addMember(database.db, { orgId: other.id, userId: outsider.id, role: 'member' });
  });
  afterAll(async () => database?.close());

  it('walks every member once, in email order, a page at a time', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await listMembersPage(database.db, orgId, { after, limit: 10 });
      expect(page.total).toBe(25);
      seen.push(...page.members.map((member) => member.email));
      if (!page.nextAfter) break;
      expect(page.members).toHaveLength(10);
      after = page.nextAfter;
    }
    expect(seen).toEqual([...emails].sort());
  });

  it('searches emails and names, with % and _ taken literally, never outside the organization', async () => {
    expect((await listMembersPage(database.db, orgId, { search: 'ada' })).members.map((member) => member.name)).toEqual(['Ada Lovelace']);
    const literal = await listMembersPage(database.db, orgId, { search: '_x%' });
    expect(literal.members.map((member) => member.email)).toEqual(['person-07_x%@members.test']);
    expect(literal.total).toBe(1);
    expect((await listMembersPage(database.db, orgId, { search: '%' })).total).toBe(1);
    expect((await listMembersPage(database.db, orgId, { search: 'nobody' })).members).toEqual([]);
  });

  it("keeps the person's email on each membership: set on insert whatever was written, followed when it changes", async () => {
    const org = await createOrganization(database.db, { slug: `mirror-${randomBytes(3).toString('hex')}`, name: 'Mirror' });
    const other = await createOrganization(database.db, { slug: `mirror-${randomBytes(3).toString('hex')}`, name: 'Mirror 2' });
    const person = await createUser(database.db, { email: 'zed@mirror.test', name: 'Zed', passwordHash: null });
    const early = await createUser(database.db, { email: 'mid@mirror.test', name: 'Mid', passwordHash: null });
    await database.db.insert(memberships).values({ orgId: org.id, userId: person.id, role: 'member', email: 'forged@mirror.test' });
    await addMember(database.db, { orgId: other.id, userId: person.id, role: 'admin' });
    await addMember(database.db, { orgId: org.id, userId: early.id, role: 'member' });
    const emailOf = async (orgId: string) =>
      (await database.db.select({ email: memberships.email }).from(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.userId, person.id))))[0]?.email;
    expect(await emailOf(org.id)).toBe('zed@mirror.test');
    expect((await listMembersPage(database.db, org.id)).members.map((member) => member.email)).toEqual(['mid@mirror.test', 'zed@mirror.test']);

    await database.db.update(users).set({ email: 'abe@mirror.test' }).where(eq(users.id, person.id));
    expect(await emailOf(org.id)).toBe('abe@mirror.test');
    expect(await emailOf(other.id)).toBe('abe@mirror.test');
    // The new email sorts first now, and the search finds it by it.
    expect((await listMembersPage(database.db, org.id)).members.map((member) => member.email)).toEqual(['abe@mirror.test', 'mid@mirror.test']);
    expect((await listMembersPage(database.db, org.id, { search: 'abe@' })).total).toBe(1);
    // Writing another email on the membership itself does not stick either.
    await database.db.update(memberships).set({ email: 'forged@mirror.test' }).where(eq(memberships.userId, person.id));
    expect(await emailOf(org.id)).toBe('abe@mirror.test');
  });

  it("keeps the copy right when the person's email changes while a membership is being added (two transactions at once)", async () => {
    if (database.raw.kind !== 'postgres') return; // one connection: no two transactions at once
    const org = await createOrganization(database.db, { slug: `race-${randomBytes(3).toString('hex')}`, name: 'Race' });
    const person = await createUser(database.db, { email: 'before@race.test', name: 'Racer', passwordHash: null });
    // Behind a transaction-mode pooler, a client that prepares its own COMMIT loses its transaction (lib/db/client.ts).
    const other = postgres(database.url!, { max: 1, onnotice: () => {}, prepare: env().DATABASE_PREPARED_STATEMENTS });
    // Until the statement sent meanwhile has reached the row the open transaction holds, and waits for it.
    const someoneWaitsOnALock = async () => {
      for (let attempt = 0; attempt < 500; attempt++) {
        const [row] = rowsOf<{ waiting: number }>(await database.db.execute(sql`select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`));
        if (row!.waiting > 0) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
      throw new Error('no statement waited on the open transaction');
    };
    try {
      // The email change is in flight (not committed) when the membership is added: the insert waits for it.
      let adding: Promise<unknown> | undefined;
      await other.begin(async (tx) => {
        await tx`update users set email = 'after@race.test' where id = ${person.id}`;
        adding = addMember(database.db, { orgId: org.id, userId: person.id, role: 'member' });
        await someoneWaitsOnALock();
      });
      await adding;
      const copies = async () => (await database.db.select({ email: memberships.email }).from(memberships).where(eq(memberships.userId, person.id))).map((row) => row.email);
      expect(await copies()).toEqual(['after@race.test']);
      // The other order: the membership's insert is in flight when the email changes; the change waits for it.
      const second = await createOrganization(database.db, { slug: `race-${randomBytes(3).toString('hex')}`, name: 'Race 2' });
      let changing: Promise<unknown> | undefined;
      await other.begin(async (tx) => {
        await tx`insert into memberships (org_id, user_id, role) values (${second.id}, ${person.id}, 'member')`;
        changing = database.db.update(users).set({ email: 'last@race.test' }).where(eq(users.id, person.id)).execute();
        await someoneWaitsOnALock();
      });
      await changing;
    } finally {
      await other.end({ timeout: 5 });
    }
    expect((await database.db.select({ email: memberships.email }).from(memberships).where(eq(memberships.userId, person.id))).map((row) => row.email)).toEqual(['last@race.test', 'last@race.test']);
  });
});
