// Every door changes an organization through the one kernel (lib/organizations/org-operation.ts): the CLI's changes and
// a directory's provisioning are organization operations too, recorded with the door they came through and their
// own actor, and SCIM's removal is the member command's (its last-owner rule, its member.removed).
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, type Organization } from '../../lib/organizations/organizations';
import { auditEvents, orgDomains } from '../../lib/db/schema';
import { createScimUser, deleteScimUser } from '../../lib/identity/scim/users';
import { type ScimContext } from '../../lib/identity/scim/resources';
import { cliRunner } from '../support/cli';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('the doors without a person go through the organization-operation kernel', () => {
  let database: TestDatabase;
  let org: Organization;

  beforeAll(async () => {
    database = await openTestDatabase();
    org = await createOrganization(database.db, { slug: `doors-${randomBytes(3).toString('hex')}`, name: 'Doors' });
    await database.db.insert(orgDomains).values({ orgId: org.id, domain: 'doors.example', verificationToken: 'x', verifiedAt: new Date(), verifiedBy: 'dns' });
  });
  afterAll(async () => {
    await database?.close();
  });

  const eventsOf = (action: string) => database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, org.id), eq(auditEvents.action, action)));

  it('records a CLI change as one operation of the operator, through the cli door', async () => {
    const run = cliRunner(database.db, randomBytes(32));
    expect((await run('teams', 'create', '--org', org.slug, '--name', 'Platform')).code).toBe(0);
    const [event] = await eventsOf('team.created');
    expect(event).toMatchObject({ actorType: 'operator_cli', actorLabel: 'cli:test@host', act: null });
    expect(event!.details).toMatchObject({ via: 'cli' });
  });

  it('records provisioning as operations of the directory, and its removal as the member command', async () => {
    const ctx: ScimContext = { db: database.db, orgId: org.id, base: 'https://id.example.test/scim/v2', ip: '192.0.2.7' };
    const created = (await createScimUser(ctx, { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'ada@doors.example', emails: [{ value: 'ada@doors.example', primary: true }] })) as { id: string };
    await deleteScimUser(ctx, created.id);
    const [provisioned] = await eventsOf('scim.user_created');
    expect(provisioned).toMatchObject({ actorType: 'system', actorLabel: 'SCIM provisioning', ip: '192.0.2.7' });
    expect(provisioned!.details).toMatchObject({ via: 'scim' });
    const [removed] = await eventsOf('member.removed');
    expect(removed).toMatchObject({ actorType: 'system', actorLabel: 'SCIM provisioning' });
    expect(removed!.details).toMatchObject({ via: 'scim', role: 'member' });
  });
});
