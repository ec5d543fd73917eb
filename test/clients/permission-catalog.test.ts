// An app's permission catalog: the baseline, the declared scopes and the admin's, with descriptions; retiring and
// restoring; the same command from the console's door and the CLI's, audited.
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../lib/organizations/organizations';
import { runCli } from '../../lib/cli';
import { addAppPermission } from '../../lib/clients/app-commands';
import { createApp, findAppListing } from '../../lib/clients/apps';
import { addPermission, describePermission, listPermissionCatalog, offeredScopes, restorePermission, retirePermission } from '../../lib/clients/permission-catalog';
import { issueSurfaceSecret, recordDeclaration } from '../../lib/clients/surface';
import { auditEvents } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('permission catalog', () => {
  let database: TestDatabase;
  let appId: string;
  const atRestKey = randomBytes(32);
  beforeAll(async () => {
    database = await openTestDatabase();
    const org = await createOrganization(database.db, { slug: 'ledger', name: 'Ledger' });
    appId = (await createApp(database.db, { orgId: org.id, slug: 'notes', name: 'Notes', publishOrigin: 'https://notes.ledger.test', redirectUris: ['https://notes.ledger.test/cb'] })).app.id;
    await issueSurfaceSecret(database.db, appId, atRestKey);
    await recordDeclaration(
      database.db,
      appId,
      [
        { name: 'notes.delete', riskLevel: 'approval_required', requiredScopes: ['notes:delete'] },
        { name: 'notes.list', riskLevel: 'safe', requiredScopes: ['mcp', 'notes:read'] },
      ],
      6,
    );
  });
  afterAll(async () => database.close());

  it('lists the baseline, the declared scopes with their tools, and the admin’s additions with descriptions', async () => {
    await addPermission(database.db, appId, { scope: 'notes:export', description: 'Export notes' });
    const catalog = await listPermissionCatalog(database.db, appId);
    expect(catalog.map((entry) => [entry.scope, entry.baseline, entry.declared, entry.added])).toEqual([
      ['mcp', true, true, false],
      ['notes:delete', false, true, false],
      ['notes:export', false, false, true],
      ['notes:read', false, true, false],
    ]);
    expect(catalog.find((entry) => entry.scope === 'notes:delete')).toMatchObject({ description: 'Needed by notes.delete', tools: ['notes.delete'] });
    await describePermission(database.db, appId, { scope: 'notes:delete', description: 'Delete notes' });
    expect((await listPermissionCatalog(database.db, appId)).find((entry) => entry.scope === 'notes:delete')).toMatchObject({ description: 'Delete notes', declared: true, added: false });
  });

  it('retires and restores any permission but the baseline, and refuses what is not a scope', async () => {
    await retirePermission(database.db, appId, 'notes:delete');
    expect(await offeredScopes(database.db, appId)).toEqual(['mcp', 'notes:export', 'notes:read']);
    await expect(retirePermission(database.db, appId, 'notes:delete')).rejects.toThrow(/not an active permission/);
    await restorePermission(database.db, appId, 'notes:delete');
    expect(await offeredScopes(database.db, appId)).toContain('notes:delete');
    await expect(retirePermission(database.db, appId, 'mcp')).rejects.toThrow(/baseline/);
    await expect(addPermission(database.db, appId, { scope: 'has space', description: 'x' })).rejects.toThrow(/scope/);
    await expect(addPermission(database.db, appId, { scope: 'notes:share', description: ' ' })).rejects.toThrow(/Describe/);
    await expect(describePermission(database.db, appId, { scope: 'not:there', description: 'Nothing' })).rejects.toThrow(/not in this app/);
  });

  it('the CLI adds and lists through the same command, audited as the operator', async () => {
    const out: string[] = [];
    const run = (...argv: string[]) => runCli(argv, { db: database.db, issuer: 'https://id.ledger.test', atRestKey, operator: 'cli:test', out: (line) => out.push(line), confirm: async () => false }, (line) => out.push(line));
    expect(await run('apps', 'permissions', 'add', '--app', 'ledger/notes', '--scope', 'notes:archive', '--description', 'Archive notes')).toBe(0);
    expect(await run('apps', 'permissions', 'list', '--app', 'ledger/notes')).toBe(0);
    expect(out).toContain('notes:archive\tadded\tactive\tArchive notes');
    expect(await run('apps', 'permissions', 'add', '--app', 'other/notes', '--scope', 'x:y', '--description', 'X')).toBe(1);
    expect(await run('apps', 'permissions', 'frobnicate', '--app', 'ledger/notes')).toBe(2);
    const [event] = await database.db.select().from(auditEvents).where(eq(auditEvents.action, 'app.permission_added'));
    expect(event).toMatchObject({ actorType: 'operator_cli', appId, details: { scope: 'notes:archive', description: 'Archive notes', created: true } });
    // The console's door runs the same command.
    const listing = (await findAppListing(database.db, 'ledger/notes'))!;
    const recorded: string[] = [];
    await addAppPermission({ tx: database.db, audit: async (record) => void recorded.push(record.action) }, listing, { scope: 'notes:pin', description: 'Pin notes' });
    expect(recorded).toEqual(['app.permission_added']);
  });

  it('the CLI’s teams and people commands grant from the catalog, and the explanation names each source', async () => {
    const out: string[] = [];
    const run = (...argv: string[]) => runCli(argv, { db: database.db, issuer: 'https://id.ledger.test', atRestKey, operator: 'cli:test', out: (line) => out.push(line), confirm: async () => false }, (line) => out.push(line));
    const { createUser } = await import('../../lib/accounts/users');
    const { explainPermissions, describeSource } = await import('../../lib/organizations/effective-permissions');
    const lin = await createUser(database.db, { email: 'lin@ledger.test', name: 'Lin', passwordHash: null });
    expect(await run('members', 'add', '--org', 'ledger', '--email', 'lin@ledger.test')).toBe(0);
    expect(await run('teams', 'create', '--org', 'ledger', '--name', 'Finance')).toBe(0);
    expect(await run('teams', 'add-member', '--org', 'ledger', '--team', 'finance', '--email', 'lin@ledger.test')).toBe(0);
    expect(await run('teams', 'grant', '--org', 'ledger', '--team', 'Finance', '--app', 'notes', '--scope', 'notes:read')).toBe(0);
    expect(await run('people', 'grant', '--org', 'ledger', '--email', 'lin@ledger.test', '--app', 'notes', '--scope', 'notes:export')).toBe(0);
    expect(await run('people', 'grant', '--org', 'ledger', '--email', 'lin@ledger.test', '--app', 'notes', '--scope', 'root:all')).toBe(1);
    expect(out.join('\n')).toContain('not in Notes’s permission catalog');
    const explained = await explainPermissions(database.db, { orgId: (await findAppListing(database.db, 'ledger/notes'))!.app.orgId, appId, subject: lin.email });
    expect(explained?.permissions.map((permission) => `${permission.scope}:${permission.sources.map(describeSource).join('+')}`)).toEqual(['mcp:baseline', 'notes:export:direct', 'notes:read:team Finance']);
    expect(await run('people', 'revoke', '--org', 'ledger', '--email', 'lin@ledger.test', '--app', 'notes', '--scope', 'notes:export')).toBe(0);
    expect(await run('teams', 'revoke', '--org', 'ledger', '--team', 'Finance', '--app', 'notes', '--scope', 'notes:read')).toBe(0);
    expect(await run('teams', 'grant', '--org', 'ledger', '--team', 'Nobody', '--app', 'notes', '--scope', 'notes:read')).toBe(1);
  });
});
