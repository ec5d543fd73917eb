import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { errors } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oidcPayloads } from '../../lib/db/schema';
import { createAdapterClass } from '../../lib/oidc/adapter';
import { hashStoredId } from '../../lib/oidc/stored-ids';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('oidc-provider adapter on drizzle', () => {
  let database: TestDatabase;
  let Adapter: ReturnType<typeof createAdapterClass>;
  beforeAll(async () => {
    database = await openTestDatabase();
    Adapter = createAdapterClass(() => database.db, { clientSecretPlaceholder: 'placeholder', refreshTokenReuseGraceSeconds: 0, referenceKey: randomBytes(32) });
  });
  afterAll(async () => database.close());

  it('stores, finds and updates payloads per model', async () => {
    const codes = new Adapter('AuthorizationCode');
    const sessions = new Adapter('Session');
    await codes.upsert('same-id', { grantId: 'g1', kind: 'AuthorizationCode' }, 60);
    await sessions.upsert('same-id', { uid: 'u1', kind: 'Session' }, 60);
    expect(await codes.find('same-id')).toMatchObject({ grantId: 'g1' });
    expect(await sessions.findByUid('u1')).toMatchObject({ kind: 'Session' });
    await codes.upsert('same-id', { grantId: 'g1', kind: 'AuthorizationCode', scope: 'openid' }, 60);
    expect(await codes.find('same-id')).toMatchObject({ scope: 'openid' });
    expect(await codes.find('missing')).toBeUndefined();
  });

  it('keeps a bearer secret only as its hash: not in the key, not in the payload; a grant under its own id', async () => {
    const secret = 'a-refresh-token-value-0123456789abcdefghijklmn';
    const tokens = new Adapter('RefreshToken');
    await tokens.upsert(secret, { jti: secret, grantId: 'grant-h', kind: 'RefreshToken' }, 60);
    const rows = await database.db.select().from(oidcPayloads).where(eq(oidcPayloads.grantId, 'grant-h'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toBe(hashStoredId(secret));
    expect(JSON.stringify(rows[0])).not.toContain(secret);
    // Found by the value presented, with its id given back to oidc-provider.
    expect(await tokens.find(secret)).toMatchObject({ jti: secret, grantId: 'grant-h' });
    // The stored hash is not itself a token.
    expect(await tokens.find(hashStoredId(secret))).toBeUndefined();
    await new Adapter('Grant').upsert('grant-h', { jti: 'grant-h', kind: 'Grant' }, 60);
    const [grant] = await database.db.select().from(oidcPayloads).where(and(eq(oidcPayloads.kind, 'Grant'), eq(oidcPayloads.id, 'grant-h')));
    expect(grant?.payload).toMatchObject({ jti: 'grant-h' });
  });

  it('migration 0028 converts rows stored under their ids: the same hash as the adapter, found by the old value', async () => {
    // Rows as the adapter wrote them before: the id itself, in the key and in the payload.
    await database.db.insert(oidcPayloads).values([
      { id: 'old-session-cookie-value', kind: 'Session', payload: { jti: 'old-session-cookie-value', kind: 'Session', uid: 'old-uid' }, uid: 'old-uid', grantId: null },
      { id: 'old-successor', kind: 'RefreshToken', payload: { jti: 'old-successor', kind: 'RefreshToken' }, rotatedFrom: 'old-predecessor', grantId: 'grant-old' },
      { id: 'grant-old', kind: 'Grant', payload: { jti: 'grant-old', kind: 'Grant' }, grantId: null },
    ]);
    const conversion = readFileSync(path.join(process.cwd(), 'drizzle/0028_oidc_ids_hashed.sql'), 'utf8');
    await database.db.execute(sql.raw(conversion.replace(/\bWHERE "kind" <> 'Grant'/, `WHERE "kind" <> 'Grant' AND "id" LIKE 'old-%'`)));
    expect(await new Adapter('Session').find('old-session-cookie-value')).toMatchObject({ jti: 'old-session-cookie-value', uid: 'old-uid' });
    expect(await new Adapter('RefreshToken').find('old-successor')).toMatchObject({ jti: 'old-successor' });
    const [successor] = await database.db.select().from(oidcPayloads).where(eq(oidcPayloads.grantId, 'grant-old'));
    expect(successor).toMatchObject({ id: hashStoredId('old-successor'), rotatedFrom: hashStoredId('old-predecessor') });
    expect(successor!.payload).not.toHaveProperty('jti');
    const [grant] = await database.db.select().from(oidcPayloads).where(and(eq(oidcPayloads.kind, 'Grant'), eq(oidcPayloads.id, 'grant-old')));
    expect(grant?.payload).toMatchObject({ jti: 'grant-old' });
  });

  it('honours expiry: an expired payload is not found', async () => {
    const tokens = new Adapter('AccessToken');
    await tokens.upsert('expiring', { kind: 'AccessToken' }, 60);
    expect(await tokens.find('expiring')).toBeDefined();
    await database.db
      .update(oidcPayloads)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(and(eq(oidcPayloads.kind, 'AccessToken'), eq(oidcPayloads.id, hashStoredId('expiring'))));
    expect(await tokens.find('expiring')).toBeUndefined();
  });

  it('finds by user code', async () => {
    const deviceCodes = new Adapter('DeviceCode');
    await deviceCodes.upsert('dc1', { userCode: 'ABCD-EFGH', kind: 'DeviceCode' }, 60);
    expect(await deviceCodes.findByUserCode('ABCD-EFGH')).toMatchObject({ kind: 'DeviceCode' });
  });

  it('consumes once: of concurrent consumers exactly one wins, and the replay revokes the whole grant', async () => {
    const codes = new Adapter('AuthorizationCode');
    const tokens = new Adapter('AccessToken');
    const grants = new Adapter('Grant');
    await grants.upsert('grant-c', { kind: 'Grant', jti: 'grant-c' }, 600);
    await codes.upsert('code-c', { grantId: 'grant-c', kind: 'AuthorizationCode' }, 60);
    await tokens.upsert('at-c', { grantId: 'grant-c', kind: 'AccessToken' }, 60);

    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => codes.consume('code-c')));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(rejected).toHaveLength(7);
    for (const failure of rejected) expect(failure.reason).toBeInstanceOf(errors.InvalidGrant);

    expect(await tokens.find('at-c')).toBeUndefined();
    expect(await grants.find('grant-c')).toBeUndefined();
  });

  it('lets a just-rotated refresh token be replayed within the grace interval, and only then', async () => {
    const Graceful = createAdapterClass(() => database.db, { clientSecretPlaceholder: 'placeholder', refreshTokenReuseGraceSeconds: 60, referenceKey: randomBytes(32) });
    const refresh = new Graceful('RefreshToken');
    const codes = new Graceful('AuthorizationCode');
    await refresh.upsert('rt-g', { grantId: 'grant-g', kind: 'RefreshToken' }, 600);
    await codes.upsert('code-g', { grantId: 'grant-g2', kind: 'AuthorizationCode' }, 60);
    await refresh.consume('rt-g');
    // Within the interval the token still looks unconsumed and may be consumed again, concurrently too.
    expect((await refresh.find('rt-g'))?.consumed).toBeUndefined();
    await Promise.all([refresh.consume('rt-g'), refresh.consume('rt-g')]);
    // The grace applies to refresh tokens only: a code stays strictly single use.
    await codes.consume('code-g');
    await expect(codes.consume('code-g')).rejects.toBeInstanceOf(errors.InvalidGrant);

    // After the interval: consumed, and a further consume revokes the grant.
    await database.db
      .update(oidcPayloads)
      .set({ consumedAt: sql`now() - interval '61 seconds'` })
      .where(and(eq(oidcPayloads.kind, 'RefreshToken'), eq(oidcPayloads.id, hashStoredId('rt-g'))));
    expect(typeof (await refresh.find('rt-g'))?.consumed).toBe('number');
    await expect(refresh.consume('rt-g')).rejects.toBeInstanceOf(errors.InvalidGrant);
    expect(await refresh.find('rt-g')).toBeUndefined();
  });

  it('reports consumption to oidc-provider as a `consumed` timestamp', async () => {
    const codes = new Adapter('AuthorizationCode');
    await codes.upsert('code-d', { grantId: 'grant-d', kind: 'AuthorizationCode' }, 60);
    await codes.consume('code-d');
    const found = await codes.find('code-d');
    expect(typeof found?.consumed).toBe('number');
  });

  it('revokes by grant id only the models of its own kind', async () => {
    const tokens = new Adapter('AccessToken');
    const refresh = new Adapter('RefreshToken');
    await tokens.upsert('at-e', { grantId: 'grant-e', kind: 'AccessToken' }, 60);
    await refresh.upsert('rt-e', { grantId: 'grant-e', kind: 'RefreshToken' }, 60);
    await tokens.revokeByGrantId('grant-e');
    expect(await tokens.find('at-e')).toBeUndefined();
    expect(await refresh.find('rt-e')).toBeDefined();
    await refresh.destroy('rt-e');
    expect(await refresh.find('rt-e')).toBeUndefined();
  });
});
