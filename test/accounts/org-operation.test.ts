// The organization-operation kernel: one authorization, one transaction, exactly one audit event of one shape,
// whichever door the operation came through.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../lib/organizations/memberships';
import { authorizeOrgOperation, runOrgOperation, type OperationActor } from '../../lib/organizations/org-operation';
import { Refusal as OperationRefusal } from '../../lib/refusals/refusal';
import { createOrganization } from '../../lib/organizations/organizations';
import { createUser, type User } from '../../lib/accounts/users';
import { setAppDevEnvironment, startSecretRotation } from '../../lib/clients/app-commands';
import { createApp, findOrgApp } from '../../lib/clients/apps';
import { auditEvents, teams } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('organization operations', () => {
  let database: TestDatabase;
  let admin: User;
  let member: User;
  let orgId: string;
  let appId: string;
  beforeAll(async () => {
    database = await openTestDatabase();
    const org = await createOrganization(database.db, { slug: 'kernel', name: 'Kernel' });
    orgId = org.id;
    admin = await createUser(database.db, { email: 'admin@kernel.test', name: 'Admin', passwordHash: null });
    member = await createUser(database.db, { email: 'member@kernel.test', name: 'Member', passwordHash: null });
    await addMember(database.db, { orgId, userId: admin.id, role: 'admin' });
    await addMember(database.db, { orgId, userId: member.id, role: 'member' });
    appId = (await createApp(database.db, { orgId, slug: 'billing', name: 'Billing', publishOrigin: 'https://billing.kernel.test', redirectUris: ['https://billing.kernel.test/cb'] })).app.id;
  });
  afterAll(async () => database.close());

  it('refuses an organization one does not belong to as not found, and a role without the permission as forbidden', async () => {
    const stranger = await createUser(database.db, { email: 'stranger@kernel.test', name: 'S', passwordHash: null });
    await expect(authorizeOrgOperation(database.db, 'kernel', stranger, 'apps.manage')).rejects.toMatchObject({ reason: 'not_found' });
    await expect(authorizeOrgOperation(database.db, 'nowhere', admin, 'apps.manage')).rejects.toMatchObject({ reason: 'not_found' });
    await expect(authorizeOrgOperation(database.db, 'kernel', member, 'apps.manage')).rejects.toBeInstanceOf(OperationRefusal);
    await expect(authorizeOrgOperation(database.db, 'kernel', member, 'apps.manage')).rejects.toMatchObject({ reason: 'forbidden' });
    expect((await authorizeOrgOperation(database.db, 'kernel', admin, 'apps.manage')).role).toBe('admin');
  });

  it('rolls the change back when an operation writes no audit event, or two', async () => {
    const scope = { ...(await authorizeOrgOperation(database.db, 'kernel', admin, 'teams.manage')), actor: { person: admin, ip: '192.0.2.1', door: 'console' } as OperationActor };
    await expect(
      runOrgOperation(database.db, scope, { audit: 'exactly_one' }, async ({ tx }) => {
        await tx.insert(teams).values({ orgId, name: 'Unaudited' });
      }),
    ).rejects.toThrow(/0 audit events/);
    await expect(
      runOrgOperation(database.db, scope, { audit: 'exactly_one' }, async ({ tx, audit }) => {
        await tx.insert(teams).values({ orgId, name: 'Twice' });
        await audit({ action: 'team.created', subject: { type: 'team', id: 'x' } });
        await audit({ action: 'team.created', subject: { type: 'team', id: 'x' } });
      }),
    ).rejects.toThrow(/2 audit events/);
    expect(await database.db.select().from(teams).where(eq(teams.orgId, orgId))).toEqual([]);
  });

  it('records one operation the same way from the console and from an MCP tool; only the door and the calling client differ', async () => {
    const run = async <T,>(actor: OperationActor, work: (ctx: Parameters<Parameters<typeof runOrgOperation<T>>[3]>[0]) => Promise<T>) =>
      runOrgOperation<T>(database.db, { ...(await authorizeOrgOperation(database.db, 'kernel', admin, 'apps.manage')), actor }, { audit: 'exactly_one' }, work);
    const listing = (await findOrgApp(database.db, orgId, appId))!;
    await run({ person: admin, ip: '192.0.2.1', door: 'console' }, (ctx) => setAppDevEnvironment(ctx, listing, 2));
    await run({ person: admin, ip: '192.0.2.1', door: 'mcp', agentId: 'agt_kernel_helper_000001', tokenClientId: 'dcr_some_mcp_client' }, (ctx) => setAppDevEnvironment(ctx, listing, 0));
    const rotation = await run({ person: admin, ip: '192.0.2.1', door: 'mcp', tokenClientId: 'dcr_some_mcp_client' }, (ctx) => startSecretRotation(ctx, listing, { overlapSeconds: 3600 }));
    expect(rotation.generation).toBeGreaterThan(1);
    const events = await database.db
      .select({ action: auditEvents.action, clientId: auditEvents.clientId, appId: auditEvents.appId, act: auditEvents.act, actorId: auditEvents.actorId, details: auditEvents.details })
      .from(auditEvents)
      .where(sql`${auditEvents.action} like 'app.%'`)
      .orderBy(auditEvents.id);
    expect(events.map((event) => [event.action, event.clientId, event.appId, event.actorId])).toEqual([
      ['app.dev_environment_on', listing.clientId, appId, admin.id],
      ['app.dev_environment_off', listing.clientId, appId, admin.id],
      ['app.secret_rotation_started', listing.clientId, appId, admin.id],
    ]);
    expect(events[0]!.details).toMatchObject({ via: 'console' });
    expect(events[0]!.details).not.toHaveProperty('tokenClient');
    expect(events[1]).toMatchObject({ act: 'agt_kernel_helper_000001', details: { via: 'mcp', tokenClient: 'dcr_some_mcp_client', mode: 'delegated' } });
    expect(events[2]!.details).toMatchObject({ via: 'mcp', tokenClient: 'dcr_some_mcp_client', mode: 'person' });
  });
});
