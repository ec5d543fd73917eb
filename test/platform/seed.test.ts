import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateWithPassword } from '../../lib/accounts/users';
import { apps, organizations, users } from '../../lib/db/schema';
import { seedDemo } from '../../lib/seed/demo';
import { findAppListing } from '../../lib/clients/apps';
import { verifyClientSecret } from '../../lib/clients/secrets';
import { surfaceSecretOf } from '../../lib/clients/surface';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('demo seed', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database.close());

  it('runs exactly once, even when several instances start at the same time', async () => {
    const input = { redirectUri: 'http://127.0.0.1:4000/callback' };
    const results = await Promise.all([seedDemo(database.db, input), seedDemo(database.db, input), seedDemo(database.db, input)]);
    expect(results.filter((r) => r.status === 'created')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'present')).toHaveLength(2);
    expect(await database.db.select().from(organizations)).toHaveLength(1);
    expect(await database.db.select().from(users)).toHaveLength(1);
    expect(await database.db.select().from(apps)).toHaveLength(1);

    const again = await seedDemo(database.db, input);
    expect(again.status).toBe('present');
    expect(await database.db.select().from(users)).toHaveLength(1);
  });

  it('registers the example app with its identity, surface secret included, when asked', async () => {
    const fresh = await openTestDatabase();
    try {
      const atRestKey = randomBytes(32);
      const result = await seedDemo(fresh.db, { redirectUri: 'http://127.0.0.1:4000/cb', example: { origin: 'http://127.0.0.1:3100', issuer: 'http://127.0.0.1:3000', atRestKey } });
      if (result.status !== 'created') throw new Error('expected the seed to run');
      const lines = Object.fromEntries(result.exampleEnvironment!.map((line) => line.split(/=(.*)/s).slice(0, 2)));
      expect(lines).toMatchObject({ PORTICO_ISSUER: 'http://127.0.0.1:3000', EXAMPLE_ORIGIN: 'http://127.0.0.1:3100' });
      const example = await findAppListing(fresh.db, lines.PORTICO_CLIENT_ID!);
      expect(example?.app.publishOrigin).toBe('http://127.0.0.1:3100');
      expect(await verifyClientSecret(fresh.db, lines.PORTICO_CLIENT_ID!, lines.PORTICO_CLIENT_SECRET!)).toBe(true);
      expect(await surfaceSecretOf(fresh.db, example!.app.id, atRestKey)).toBe(lines.PORTICO_SURFACE_SECRET);
    } finally {
      await fresh.close();
    }
  });

  it('creates an owner who can sign in with the printed password, and nobody else', async () => {
    const fresh = await openTestDatabase();
    try {
      const result = await seedDemo(fresh.db, { email: 'Demo@Example.test', password: 'correct horse battery', redirectUri: 'http://127.0.0.1:4000/cb' });
      expect(result).toMatchObject({ status: 'created', email: 'demo@example.test', passwordGenerated: false });
      expect((await authenticateWithPassword(fresh.db, 'demo@example.test', 'correct horse battery')).ok).toBe(true);
      expect(await authenticateWithPassword(fresh.db, 'demo@example.test', 'wrong password!!')).toEqual({ ok: false, reason: 'invalid_credentials' });
      expect(await authenticateWithPassword(fresh.db, 'nobody@example.test', 'correct horse battery')).toEqual({ ok: false, reason: 'invalid_credentials' });
    } finally {
      await fresh.close();
    }
  });
});
