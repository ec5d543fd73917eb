import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieKeys, signingKeys } from '../../lib/db/schema';
import { loadOrCreateKeyMaterial } from '../../lib/oidc/keys';
import { decryptAtRest, encryptAtRestNow, freshIv, SecretKeyMismatchError } from '../../lib/security/at-rest';
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

describe('at-rest JWE made synchronously (the refresh successor seal)', () => {
  it('is a compact JWE jose opens with the same key, and nothing else opens', async () => {
    const key = randomBytes(32);
    const sealed = encryptAtRestNow('successor-token-välue', key);
    const [header, encryptedKey, iv, ciphertext, tag] = sealed.split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'dir', enc: 'A256GCM' });
    expect(encryptedKey).toBe('');
    expect(Buffer.from(iv!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(tag!, 'base64url')).toHaveLength(16);
    expect(ciphertext).not.toContain('successor');
    expect(await decryptAtRest(sealed, key)).toBe('successor-token-välue');
    // Each seal has its own IV; another key, an edited ciphertext or header opens nothing.
    expect(encryptAtRestNow('successor-token-välue', key)).not.toBe(sealed);
    await expect(decryptAtRest(sealed, randomBytes(32))).rejects.toBeInstanceOf(SecretKeyMismatchError);
    const flipped = Buffer.from(ciphertext!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    await expect(decryptAtRest([header, '', iv, flipped.toString('base64url'), tag].join('.'), key)).rejects.toBeInstanceOf(SecretKeyMismatchError);
    const otherHeader = Buffer.from(JSON.stringify({ enc: 'A256GCM', alg: 'dir' })).toString('base64url');
    await expect(decryptAtRest([otherHeader, '', iv, ciphertext, tag].join('.'), key)).rejects.toBeInstanceOf(SecretKeyMismatchError);
    expect(() => encryptAtRestNow('x', randomBytes(16))).toThrow(/256 bits/);
  });

  it('never repeats an IV, across the refills of its pool of random bytes', async () => {
    const key = randomBytes(32);
    // Three pools' worth and more (a pool holds 341 IVs): a repeat anywhere, within a pool or after a refill, fails.
    const ivs = Array.from({ length: 1200 }, () => encryptAtRestNow('x', key).split('.')[2]!);
    expect(new Set(ivs).size).toBe(ivs.length);
    const drawn = Array.from({ length: 1200 }, () => freshIv());
    expect(drawn.every((iv) => iv.length === 12)).toBe(true);
    // A handed-out IV is the caller's copy: the pool's next refill leaves it as it was.
    const kept = Buffer.from(drawn[0]!);
    Array.from({ length: 700 }, () => freshIv());
    expect(drawn[0]).toEqual(kept);
    expect(new Set(drawn.map((iv) => iv.toString('hex'))).size).toBe(drawn.length);
  });
});
