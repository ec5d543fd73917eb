// Leaving an organization leaves nothing behind: team memberships and agent-user rows go with the membership.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowAgentUser, createAgent } from '../../lib/organizations/agents';
import { addMember, removeMember } from '../../lib/organizations/memberships';
import { createOrganization } from '../../lib/organizations/organizations';
import { addTeamMember, createTeam } from '../../lib/organizations/teams';
import { createUser } from '../../lib/accounts/users';
import { agentUsers, teamMembers } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('removing a member', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database.close());

  it('removes their team memberships and agent-user rows in this organization only, and re-adding brings none back', async () => {
    const [acme, other] = await Promise.all([createOrganization(database.db, { slug: 'acme-leave', name: 'Acme' }), createOrganization(database.db, { slug: 'other-leave', name: 'Other' })]);
    const owner = await createUser(database.db, { email: 'owner@leave.test', name: 'Owner', passwordHash: null });
    const person = await createUser(database.db, { email: 'leaver@leave.test', name: 'Leaver', passwordHash: null });
    for (const org of [acme, other]) {
      await addMember(database.db, { orgId: org.id, userId: owner.id, role: 'owner' });
      await addMember(database.db, { orgId: org.id, userId: person.id, role: 'member' });
    }
    const acmeTeam = await createTeam(database.db, { orgId: acme.id, name: 'Finance' });
    const otherTeam = await createTeam(database.db, { orgId: other.id, name: 'Finance' });
    await addTeamMember(database.db, acmeTeam.id, person.id);
    await addTeamMember(database.db, otherTeam.id, person.id);
    await createAgent(database.db, { id: 'agt_leave_acme_000000001', name: 'Acme bot', orgId: acme.id, ownerUserId: owner.id });
    await createAgent(database.db, { id: 'agt_leave_other_00000001', name: 'Other bot', orgId: other.id, ownerUserId: owner.id });
    await allowAgentUser(database.db, 'agt_leave_acme_000000001', person.id);
    await allowAgentUser(database.db, 'agt_leave_other_00000001', person.id);

    const result = await removeMember(database.db, acme.id, person.id);
    expect(result).toMatchObject({ removed: true, teamsLeft: 1, agentsLeft: 1 });
    const teamsOf = async () => (await database.db.select().from(teamMembers).where(eq(teamMembers.userId, person.id))).map((row) => row.teamId);
    const agentsOf = async () => (await database.db.select().from(agentUsers).where(eq(agentUsers.userId, person.id))).map((row) => row.agentId);
    expect(await teamsOf()).toEqual([otherTeam.id]);
    expect(await agentsOf()).toEqual(['agt_leave_other_00000001']);

    await addMember(database.db, { orgId: acme.id, userId: person.id, role: 'member' });
    expect(await database.db.select().from(teamMembers).where(and(eq(teamMembers.userId, person.id), eq(teamMembers.teamId, acmeTeam.id)))).toHaveLength(0);
    expect(await agentsOf()).toEqual(['agt_leave_other_00000001']);
  });
});
