// A publish origin names one thing: never Portico's own origin, never another app's address.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertPublishOriginAvailable, createApp, PublishOriginTaken } from '../../lib/clients/apps';
import { createOrganization } from '../../lib/organizations/organizations';
import { runCli } from '../../lib/cli';
import { openTestDatabase, type TestDatabase } from '../support/databases';

const ISSUER = 'https://id.example.test';

describe('publish origins', () => {
  let database: TestDatabase;
  let existingAppId: string;
  let orgId: string;
  beforeAll(async () => {
    database = await openTestDatabase();
    const org = await createOrganization(database.db, { slug: 'origins', name: 'Origins' });
    orgId = org.id;
    const created = await createApp(database.db, { orgId: org.id, slug: 'billing', name: 'Billing', publishOrigin: 'https://billing.example.test', redirectUris: ['https://login.billing.example.test/cb'] });
    existingAppId = created.app.id;
  });
  afterAll(async () => database.close());

  async function cli(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { db: database.db, issuer: ISSUER, atRestKey: randomBytes(32), operator: 'cli:test', out: (l) => out.push(l), confirm: async () => false }, (l) => err.push(l));
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('refuses Portico’s own origin, another app’s publish origin and another app’s redirect origin, with a clear error', async () => {
    for (const [origin, reason] of [
      [ISSUER, /Portico's own address/],
      ['https://billing.example.test', /another app/],
      ['https://login.billing.example.test', /another app/],
    ] as const) {
      await expect(assertPublishOriginAvailable(database.db, { origin, issuer: ISSUER, orgId })).rejects.toThrow(PublishOriginTaken);
      const created = await cli('apps', 'create', '--org', 'origins', '--name', 'Shadow', '--origin', origin, '--redirect-uri', 'https://shadow.example.test/cb');
      expect(created.code).toBe(1);
      expect(created.err).toMatch(reason);
    }
    // Its column names and the one app it had: no Shadow was created.
    expect((await cli('apps', 'list', '--org', 'origins')).out.split('\n')).toEqual([expect.stringMatching(/^APP\t/), expect.not.stringContaining('Shadow')]);
  });

  it('lets an app keep its own address, and a new app take a free one', async () => {
    await expect(assertPublishOriginAvailable(database.db, { origin: 'https://billing.example.test', issuer: ISSUER, orgId, appId: existingAppId })).resolves.toBeUndefined();
    const created = await cli('apps', 'create', '--org', 'origins', '--name', 'Payroll', '--origin', 'https://payroll.example.test', '--redirect-uri', 'https://payroll.example.test/cb');
    expect(created.code).toBe(0);
  });
});
