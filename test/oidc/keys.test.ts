import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieKeys, signingKeys } from '../../lib/db/schema';
import { loadOrCreateKeyMaterial } from '../../lib/oidc/keys';
import { SecretKeyMismatchError } from '../../lib/security/at-rest';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('signing and cookie keys', () => {
  let database: TestDatabase;
  const secret = randomBytes(32);
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database.close());

  it('are created once, even by concurrent first starts, and loaded identically afterwards', async () => {
    const [first, second] = await Promise.all([
      loadOrCreateKeyMaterial(database.db, secret),
      loadOrCreateKeyMaterial(database.db, secret),
    ]);
    const third = await loadOrCreateKeyMaterial(database.db, secret);
    expect(first.signingKeys.map((k) => k.kid)).toEqual(second.signingKeys.map((k) => k.kid));
    expect(third.signingKeys.map((k) => k.kid)).toEqual(first.signingKeys.map((k) => k.kid));
    expect(third.cookieKeys).toEqual(first.cookieKeys);
    expect(first.signingKeys.map((k) => k.alg)).toEqual(['ES256', 'RS256']);
    expect(await database.db.select().from(signingKeys)).toHaveLength(2);
    expect(await database.db.select().from(cookieKeys)).toHaveLength(1);
  });

  it('keep private material encrypted at rest', async () => {
    const material = await loadOrCreateKeyMaterial(database.db, secret);
    const rows = await database.db.select().from(signingKeys);
    for (const row of rows) {
      const privatePart = material.signingKeys.find((k) => k.kid === row.kid)?.d;
      expect(privatePart).toBeTruthy();
      expect(row.privateJwkEncrypted).not.toContain(privatePart);
      expect(row.publicJwk).not.toHaveProperty('d');
      expect(row.privateJwkEncrypted.split('.')).toHaveLength(5); // compact JWE
    }
    const [cookieRow] = await database.db.select().from(cookieKeys);
    expect(cookieRow?.keyEncrypted).not.toContain(material.cookieKeys[0]);
  });

  it('refuse to load with another secret key instead of generating new ones', async () => {
    await expect(loadOrCreateKeyMaterial(database.db, randomBytes(32))).rejects.toBeInstanceOf(SecretKeyMismatchError);
    expect(await database.db.select().from(signingKeys)).toHaveLength(2);
  });
});
