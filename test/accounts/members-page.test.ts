// The console's members list, a page at a time: in email order, a hundred by default, the next page after the last
// email shown; a search in emails and names in which `%` and `_` are plain characters; the count of what it finds.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { addMember, listMembersPage } from '../../lib/accounts/memberships';
import { createOrganization } from '../../lib/accounts/organizations';
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
});
