import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTeamMember, createTeam, grantTeamScope, removeTeamMember, revokeTeamScope, teamScopesOf } from '../../lib/organizations/teams';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp } from '../support/provider-harness';

describe('teams and team grants', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database.close());

  it('give their members the granted scopes on an app, and stop when membership or grant ends', async () => {
    const acme = await createOrgWithApp(database, 'Acme');
    const person = await createMember(database, acme.orgId, 'team@acme.test');
    const team = await createTeam(database.db, { orgId: acme.orgId, name: 'Billing' });
    await grantTeamScope(database.db, { teamId: team.id, appId: acme.app.id, scope: 'invoices:write' });
    await grantTeamScope(database.db, { teamId: team.id, appId: acme.app.id, scope: 'invoices:read' });
    expect(await teamScopesOf(database.db, person.id, acme.app.id)).toEqual([]);

    await addTeamMember(database.db, team.id, person.id);
    expect(await teamScopesOf(database.db, person.id, acme.app.id)).toEqual(['invoices:read', 'invoices:write']);
    await revokeTeamScope(database.db, { teamId: team.id, appId: acme.app.id, scope: 'invoices:write' });
    expect(await teamScopesOf(database.db, person.id, acme.app.id)).toEqual(['invoices:read']);
    await removeTeamMember(database.db, team.id, person.id);
    expect(await teamScopesOf(database.db, person.id, acme.app.id)).toEqual([]);
  });

  it("cannot grant a scope on another organization's app", async () => {
    const acme = await createOrgWithApp(database, 'Acme');
    const globex = await createOrgWithApp(database, 'Globex');
    const team = await createTeam(database.db, { orgId: acme.orgId, name: 'Ops' });
    await expect(grantTeamScope(database.db, { teamId: team.id, appId: globex.app.id, scope: 'x' })).rejects.toThrow(/organization/);
  });
});
