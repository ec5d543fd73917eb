// Rules the database itself enforces, whatever the code does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../lib/organizations/memberships';
import { createOrganization } from '../../lib/organizations/organizations';
import { createUser } from '../../lib/accounts/users';
import { createApp } from '../../lib/clients/apps';
import { hashClientSecret, verifyClientSecret } from '../../lib/clients/secrets';
import { clientSecrets, clients } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('schema rules', () => {
  let database: TestDatabase;
  let orgId: string;
  beforeAll(async () => {
    database = await openTestDatabase();
    orgId = (await createOrganization(database.db, { slug: 'acme', name: 'Acme' })).id;
  });
  afterAll(async () => database.close());

  it('a public client cannot carry a secret generation or a secret-based auth method', async () => {
    await expect(
      database.db.insert(clients).values({ id: 'pub-1', kind: 'dynamic', type: 'public', name: 'x', tokenEndpointAuthMethod: 'none', secretGeneration: 1 }),
    ).rejects.toThrow();
    await expect(
      database.db.insert(clients).values({ id: 'pub-2', kind: 'dynamic', type: 'public', name: 'x', tokenEndpointAuthMethod: 'client_secret_basic' }),
    ).rejects.toThrow();
    await database.db.insert(clients).values({ id: 'pub-3', kind: 'dynamic', type: 'public', name: 'x', tokenEndpointAuthMethod: 'none' });
  });

  it('a public client cannot own a row in client_secrets', async () => {
    await database.db.insert(clients).values({ id: 'pub-4', kind: 'dynamic', type: 'public', name: 'x', tokenEndpointAuthMethod: 'none' });
    await expect(
      database.db.insert(clientSecrets).values({ clientId: 'pub-4', generation: 1, secretHash: hashClientSecret('s') }),
    ).rejects.toThrow();
    await expect(
      database.db.insert(clientSecrets).values({ clientId: 'pub-4', clientType: 'public', generation: 1, secretHash: hashClientSecret('s') }),
    ).rejects.toThrow();
  });

  it('a confidential client needs a secret generation', async () => {
    await expect(
      database.db.insert(clients).values({ id: 'conf-1', kind: 'external', type: 'confidential', name: 'x', tokenEndpointAuthMethod: 'client_secret_basic' }),
    ).rejects.toThrow();
  });

  it('emails are unique case-insensitively', async () => {
    await createUser(database.db, { email: 'Ada@Example.com', name: 'Ada', passwordHash: 'x' });
    await expect(createUser(database.db, { email: 'ada@example.COM', name: 'Ada 2', passwordHash: 'x' })).rejects.toThrow();
  });

  it('an app gets its own confidential client whose secret is stored only as a hash', async () => {
    const owner = await createUser(database.db, { email: 'owner@acme.test', name: 'Owner', passwordHash: 'x' });
    await addMember(database.db, { orgId, userId: owner.id, role: 'owner' });
    const created = await createApp(database.db, {
      orgId,
      slug: 'billing',
      name: 'Billing',
      publishOrigin: 'https://billing.acme.test',
      redirectUris: ['https://billing.acme.test/callback'],
    });
    expect(created.app.identity).toBe(`urn:portico:app:${created.app.id}`);
    const secrets = await database.db.select().from(clientSecrets);
    const stored = secrets.find((s) => s.clientId === created.clientId);
    expect(stored?.secretHash).toBe(hashClientSecret(created.clientSecret));
    expect(JSON.stringify(secrets)).not.toContain(created.clientSecret);
    expect(await verifyClientSecret(database.db, created.clientId, created.clientSecret)).toBe(true);
    expect(await verifyClientSecret(database.db, created.clientId, `${created.clientSecret}x`)).toBe(false);
    expect(await verifyClientSecret(database.db, 'another-client', created.clientSecret)).toBe(false);
  });
});
