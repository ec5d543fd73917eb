// Member commands: the ownership rules hold whichever door calls them, also under concurrent changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeMemberRoleCommand, removeMemberCommand, type MemberCommandContext } from '../../lib/organizations/member-commands';
import { addMember, countOwners, findMembershipRole } from '../../lib/organizations/memberships';
import { createOrganization, type Organization } from '../../lib/organizations/organizations';
import { createUser, type User } from '../../lib/accounts/users';
import type { Queryable } from '../../lib/db/client';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('member commands', () => {
  let database: TestDatabase;
  let org: Organization;
  let ada: User;
  let grace: User;
  let lin: User;
  const context = (tx: Queryable, mayTransferOwnership: boolean): MemberCommandContext => ({
    tx,
    org,
    mayTransferOwnership,
    issuer: 'https://id.example.test',
    invitationDays: 7,
    audit: async () => {},
    queueMail: async () => {},
  });
  beforeAll(async () => {
    database = await openTestDatabase();
    org = await createOrganization(database.db, { slug: 'owners', name: 'Owners' });
    const person = (name: string) => createUser(database.db, { email: `${name}@owners.test`, name, passwordHash: null });
    ada = await person('ada');
    grace = await person('grace');
    lin = await person('lin');
    await addMember(database.db, { orgId: org.id, userId: ada.id, role: 'owner' });
    await addMember(database.db, { orgId: org.id, userId: grace.id, role: 'owner' });
    await addMember(database.db, { orgId: org.id, userId: lin.id, role: 'admin' });
  });
  afterAll(async () => database.close());

  it('lets only an owner give or take ownership', async () => {
    await expect(database.db.transaction((tx) => changeMemberRoleCommand(context(tx, false), lin.id, 'owner'))).rejects.toThrow(/Only an owner/);
    await expect(database.db.transaction((tx) => removeMemberCommand(context(tx, false), ada.id))).rejects.toThrow(/Only an owner/);
    expect(await findMembershipRole(database.db, org.id, lin.id)).toBe('admin');
  });

  it('keeps at least one owner when two owners demote each other at the same moment', async () => {
    const results = await Promise.allSettled([
      database.db.transaction((tx) => changeMemberRoleCommand(context(tx, true), ada.id, 'admin')),
      database.db.transaction((tx) => changeMemberRoleCommand(context(tx, true), grace.id, 'admin')),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((result) => result.status === 'rejected')).toMatchObject({ reason: expect.objectContaining({ message: expect.stringContaining('at least one owner') }) });
    expect(await countOwners(database.db, org.id)).toBe(1);
    const owner = (await findMembershipRole(database.db, org.id, ada.id)) === 'owner' ? ada : grace;
    await expect(database.db.transaction((tx) => removeMemberCommand(context(tx, true), owner.id))).rejects.toThrow(/last owner/);
  });
});
