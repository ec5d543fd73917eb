// Effective permissions and their explanations: baseline ∪ teams ∪ direct for a person, direct only for an agent
// acting as itself, the person's for an agent acting for them; only what the catalog offers; leaving ends them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowAgentUser, createAgent, createConnection, grantAgentScope } from '../../lib/organizations/agents';
import { describeSource, effectivePermissionsOfAgent, effectivePermissionsOfDelegation, effectivePermissionsOfPerson, explainPermissions } from '../../lib/organizations/effective-permissions';
import { grantPersonPermissionCommand, revokePersonPermissionCommand } from '../../lib/organizations/member-commands';
import { addMember, removeMember } from '../../lib/organizations/memberships';
import { createOrganization } from '../../lib/organizations/organizations';
import { addTeamMember, createTeam, grantTeamScope } from '../../lib/organizations/teams';
import { grantTeamScopeCommand } from '../../lib/organizations/team-commands';
import { agentCommands } from '../../lib/organizations/agent-commands';
import { createUser, type User } from '../../lib/accounts/users';
import { createApp } from '../../lib/clients/apps';
import { addPermission, retirePermission } from '../../lib/clients/permission-catalog';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('effective permissions', () => {
  let database: TestDatabase;
  let orgId: string;
  let appId: string;
  let ada: User;
  const audited: string[] = [];
  const ctx = () => ({ tx: database.db, org: { id: orgId }, audit: async (record: { action: string }) => void audited.push(record.action) });
  const scopes = (permissions: { scope: string }[]) => permissions.map((permission) => permission.scope);

  beforeAll(async () => {
    database = await openTestDatabase();
    orgId = (await createOrganization(database.db, { slug: 'invoicing', name: 'Invoicing' })).id;
    appId = (await createApp(database.db, { orgId, slug: 'books', name: 'Books', publishOrigin: 'https://books.invoicing.test', redirectUris: ['https://books.invoicing.test/cb'] })).app.id;
    for (const [scope, description] of [
      ['invoices:read', 'Read invoices'],
      ['invoices:delete', 'Delete invoices'],
      ['reports:read', 'Read reports'],
    ]) {
      await addPermission(database.db, appId, { scope: scope!, description: description! });
    }
    ada = await createUser(database.db, { email: 'ada@invoicing.test', name: 'Ada', passwordHash: null });
    await addMember(database.db, { orgId, userId: ada.id, role: 'member' });
  });
  afterAll(async () => database.close());

  it('a person holds the baseline, their teams’ grants and their direct grants, each with its sources', async () => {
    expect(scopes(await effectivePermissionsOfPerson(database.db, { orgId, appId, userId: ada.id }))).toEqual(['mcp']);
    const finance = await createTeam(database.db, { orgId, name: 'Finance' });
    await addTeamMember(database.db, finance.id, ada.id);
    await grantTeamScope(database.db, { teamId: finance.id, appId, scope: 'invoices:read' });
    await grantTeamScope(database.db, { teamId: finance.id, appId, scope: 'not-in-catalog' });
    await grantPersonPermissionCommand(ctx(), { userId: ada.id, appId, scope: 'invoices:read' });
    await grantPersonPermissionCommand(ctx(), { userId: ada.id, appId, scope: 'reports:read' });
    await expect(grantPersonPermissionCommand(ctx(), { userId: ada.id, appId, scope: 'admin:everything' })).rejects.toThrow(/not in Books’s permission catalog/);
    const explained = await explainPermissions(database.db, { orgId, appId, subject: 'ADA@invoicing.test' });
    expect(explained?.permissions.map((permission) => [permission.scope, permission.description, permission.sources.map(describeSource)])).toEqual([
      ['mcp', 'Use the app’s tools', ['baseline']],
      ['invoices:read', 'Read invoices', ['team Finance', 'direct']],
      ['reports:read', 'Read reports', ['direct']],
    ]);
    // A retired permission counts for no one.
    await retirePermission(database.db, appId, 'reports:read');
    expect(scopes(await effectivePermissionsOfPerson(database.db, { orgId, appId, userId: ada.id }))).toEqual(['mcp', 'invoices:read']);
    await revokePersonPermissionCommand(ctx(), { userId: ada.id, appId, scope: 'invoices:read' });
    expect((await explainPermissions(database.db, { orgId, appId, subject: ada.id }))?.permissions.find((permission) => permission.scope === 'invoices:read')?.sources.map(describeSource)).toEqual(['team Finance']);
    expect(audited).toEqual(['person.scope_granted', 'person.scope_granted', 'person.scope_revoked']);
  });

  it('an agent acting as itself holds exactly its direct grants; acting for a person, the person’s and never more', async () => {
    const agent = await createAgent(database.db, { orgId, name: 'Clerk', ownerUserId: ada.id });
    expect(await effectivePermissionsOfAgent(database.db, { orgId, appId, agentId: agent.id })).toEqual([]);
    await grantAgentScope(database.db, { agentId: agent.id, orgId, appId, scope: 'invoices:delete' });
    expect(scopes(await effectivePermissionsOfAgent(database.db, { orgId, appId, agentId: agent.id }))).toEqual(['invoices:delete']);
    const delegated = await effectivePermissionsOfDelegation(database.db, { orgId, appId, userId: ada.id });
    expect(scopes(delegated)).toEqual(['mcp', 'invoices:read']);
    expect(delegated.every((permission) => permission.sources.map(describeSource).join() === 'delegated from ada@invoicing.test')).toBe(true);
    expect(scopes(await effectivePermissionsOfDelegation(database.db, { orgId, appId, userId: ada.id, narrowTo: ['invoices:read', 'invoices:delete'] }))).toEqual(['invoices:read']);
    await allowAgentUser(database.db, agent.id, ada.id);
    await createConnection(database.db, { agentId: agent.id, orgId, appId, createdByUserId: ada.id, connection: { mode: 'delegated', delegateUserId: ada.id } });
    const explained = await explainPermissions(database.db, { orgId, appId, subject: agent.id });
    expect(explained?.subject).toMatchObject({ kind: 'agent', mode: 'delegated' });
    expect(scopes(explained!.permissions)).toEqual(['mcp', 'invoices:read']);
  });

  it('leaving the organization ends every permission, and a stranger is not explained', async () => {
    await grantPersonPermissionCommand(ctx(), { userId: ada.id, appId, scope: 'invoices:delete' });
    await removeMember(database.db, orgId, ada.id);
    expect(await effectivePermissionsOfPerson(database.db, { orgId, appId, userId: ada.id })).toEqual([]);
    expect(await explainPermissions(database.db, { orgId, appId, subject: 'ada@invoicing.test' })).toBeUndefined();
    await addMember(database.db, { orgId, userId: ada.id, role: 'member' });
    // Nothing comes back with a re-invitation: no team, no direct grant.
    expect(scopes(await effectivePermissionsOfPerson(database.db, { orgId, appId, userId: ada.id }))).toEqual(['mcp']);
  });

  it('grants to teams, agents and connections name permissions of the catalog only, at every door’s command', async () => {
    const team = await createTeam(database.db, { orgId, name: 'Auditors' });
    await expect(grantTeamScopeCommand(ctx(), { teamId: team.id, appId, scope: 'admin:everything' })).rejects.toMatchObject({ status: 400, code: 'unknown_scope' });
    await retirePermission(database.db, appId, 'invoices:delete');
    await expect(grantTeamScopeCommand(ctx(), { teamId: team.id, appId, scope: 'invoices:delete' })).rejects.toThrow(/not in Books’s permission catalog/);
    await grantTeamScopeCommand(ctx(), { teamId: team.id, appId, scope: 'invoices:read' });

    const agentCtx = { ...ctx(), org: { id: orgId, slug: 'invoicing', name: 'Invoicing' }, person: ada } as unknown as Parameters<typeof agentCommands.grant>[0];
    const agent = await createAgent(database.db, { orgId, name: 'Strict', ownerUserId: ada.id });
    await expect(agentCommands.grant(agentCtx, { agentId: agent.id, appId, scope: 'reports:write' })).rejects.toMatchObject({ code: 'unknown_scope' });
    await agentCommands.grant(agentCtx, { agentId: agent.id, appId, scope: 'invoices:read' });
    await expect(
      agentCommands.connect(agentCtx, { agentId: agent.id, appId, mode: 'delegated', delegateUserId: ada.id, narrowedTo: ['invoices:read', 'made:up'] }),
    ).rejects.toMatchObject({ code: 'unknown_scope' });
    const { connection } = await agentCommands.connect(agentCtx, { agentId: agent.id, appId, mode: 'delegated', delegateUserId: ada.id, narrowedTo: ['invoices:read'] });
    expect(connection.narrowedTo).toEqual(['invoices:read']);
  });
});
