// TOTP (RFC 6238) and recovery codes against the real database: a code is accepted once even when raced, drift of
// one step is tolerated and no more, the secret is never stored in clear, and recovery codes are single use.
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmOwnTotp, removeOwnTotp, replaceOwnRecoveryCodes } from '../../lib/accounts/factors/own-factors';
import { relyingPartyOf } from '../../lib/accounts/factors/passkeys';
import { secondFactorStateOf } from '../../lib/accounts/factors/second-factors';
import { confirmTotpEnrollment, removeTotp, startTotpEnrollment, verifyTotpCode } from '../../lib/accounts/factors/totp';
import { useRecoveryCode } from '../../lib/accounts/factors/recovery-codes';
import { createUser, type User } from '../../lib/accounts/users';
import { hashPassword } from '../../lib/accounts/factors/password';
import { totpFactors } from '../../lib/db/schema';
import { deliverDue } from '../../lib/deliveries/outbox';
import { mailDelivery } from '../../lib/deliveries/channels/mail';
import type { MailMessage } from '../../lib/mail/messages';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('second factors: TOTP and recovery codes', () => {
  let database: TestDatabase;
  const atRestKey = randomBytes(32);
  const mail = { issuer: 'http://localhost:3000', atRestKey };
  const newUser = async () => createUser(database.db, { email: `tf-${randomBytes(3).toString('hex')}@factors.test`, name: 'Factor', passwordHash: null });
  // The authenticator app: the same algorithm, from the secret shown at enrollment.
  const codeAt = (secret: string, at: number) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: at });
  const STEP = 30_000;

  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database?.close());

  async function enrolled(user: User, at: number) {
    const enrollment = await startTotpEnrollment(database.db, atRestKey, user);
    const { recoveryCodes } = await confirmTotpEnrollment(database.db, atRestKey, user, codeAt(enrollment.secret, at), at);
    return { secret: enrollment.secret, recoveryCodes };
  }

  it('enrolls with a first code; the secret is stored encrypted and shown as a QR code and as text', async () => {
    const user = await newUser();
    const enrollment = await startTotpEnrollment(database.db, atRestKey, user);
    expect(enrollment.uri).toMatch(/^otpauth:\/\/totp\/Portico:.+\?.*secret=[A-Z2-7]+/);
    expect(enrollment.qrCode).toMatch(/^data:image\/png;base64,/);
    const [row] = await database.db.select().from(totpFactors).where(eq(totpFactors.userId, user.id));
    expect(row!.secretEncrypted).not.toContain(enrollment.secret);
    expect(row!.confirmedAt).toBeNull();
    expect((await secondFactorStateOf(database.db, user.id)).totp).toBe('pending');

    // Unconfirmed, it protects nothing and accepts nothing.
    const now = Date.now();
    expect(await verifyTotpCode(database.db, atRestKey, user, codeAt(enrollment.secret, now), now)).toBe(false);
    await expect(confirmTotpEnrollment(database.db, atRestKey, user, '000000', now)).rejects.toThrow(/not the one your authenticator app shows/);
    await expect(confirmTotpEnrollment(database.db, atRestKey, user, 'abc', now)).rejects.toThrow(/6 digits/);
    const { recoveryCodes } = await confirmTotpEnrollment(database.db, atRestKey, user, codeAt(enrollment.secret, now), now);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect(recoveryCodes[0]).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    expect(await secondFactorStateOf(database.db, user.id)).toEqual({ totp: 'confirmed', passkeys: 0, recoveryCodesLeft: 10 });
    // A confirmed authenticator is not replaced by starting again.
    await expect(startTotpEnrollment(database.db, atRestKey, user)).rejects.toThrow(/Remove it first/);
  });

  it('accepts a code once (the enrollment code included), one step of drift, and nothing older', async () => {
    const user = await newUser();
    const start = Math.floor(Date.now() / STEP) * STEP + 1_000;
    const { secret } = await enrolled(user, start);
    // The code that confirmed the enrollment is spent.
    expect(await verifyTotpCode(database.db, atRestKey, user, codeAt(secret, start), start)).toBe(false);
    const later = start + 2 * STEP;
    expect(await verifyTotpCode(database.db, atRestKey, user, codeAt(secret, later), later)).toBe(true);
    expect(await verifyTotpCode(database.db, atRestKey, user, codeAt(secret, later), later)).toBe(false);
    // The next step's code, one step early (drift), once.
    const next = later + STEP;
    expect(await verifyTotpCode(database.db, atRestKey, user, codeAt(secret, next + STEP), next)).toBe(true);
    // A code from before the last accepted one, or from too far away, is refused.
    const farther = next + 4 * STEP;
    expect(await verifyTotpCode(database.db, atRestKey, user, codeAt(secret, farther - 3 * STEP), farther)).toBe(false);
    expect(await verifyTotpCode(database.db, atRestKey, user, codeAt(secret, farther), farther)).toBe(true);
    expect(await verifyTotpCode(database.db, atRestKey, { ...user, id: (await newUser()).id }, codeAt(secret, farther + STEP), farther + STEP)).toBe(false);
  });

  it('a code raced by several sign-ins is accepted exactly once', async () => {
    const user = await newUser();
    const start = Math.floor(Date.now() / STEP) * STEP + 1_000;
    const { secret } = await enrolled(user, start);
    const at = start + STEP;
    const code = codeAt(secret, at);
    const results = await Promise.all(Array.from({ length: 8 }, () => verifyTotpCode(database.db, atRestKey, user, code, at)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('recovery codes work once each, also when raced; removal ends the authenticator and its codes', async () => {
    const user = await newUser();
    const { recoveryCodes } = await enrolled(user, Date.now());
    const [first, second] = recoveryCodes as [string, string];
    expect(await useRecoveryCode(database.db, user.id, first.toUpperCase().replace(/-/g, ' '))).toBe(true);
    expect(await useRecoveryCode(database.db, user.id, first)).toBe(false);
    const raced = await Promise.all(Array.from({ length: 6 }, () => useRecoveryCode(database.db, user.id, second)));
    expect(raced.filter(Boolean)).toHaveLength(1);
    expect(await useRecoveryCode(database.db, user.id, 'aaaa-bbbb-cccc-dddd')).toBe(false);
    expect(await useRecoveryCode(database.db, (await newUser()).id, recoveryCodes[2]!)).toBe(false);
    expect((await secondFactorStateOf(database.db, user.id)).recoveryCodesLeft).toBe(8);

    expect(await removeTotp(database.db, user.id)).toBe(true);
    expect(await secondFactorStateOf(database.db, user.id)).toEqual({ totp: 'none', passkeys: 0, recoveryCodesLeft: 0 });
    expect(await useRecoveryCode(database.db, user.id, recoveryCodes[3]!)).toBe(false);
  });

  it('turning it on from one’s account needs the password; removing it and new codes need its own code (the strongest factor)', async () => {
    const user = await createUser(database.db, { email: `own-${randomBytes(3).toString('hex')}@factors.test`, name: 'Own', passwordHash: await hashPassword('a long own password 42') });
    const keys = { atRestKey, rp: relyingPartyOf('http://localhost:3000') };
    const change = (proof: { password?: string; code?: string }) => ({ user, proof, ip: '192.0.2.8', keys });
    const { secret } = await startTotpEnrollment(database.db, atRestKey, user);
    const now = Date.now();
    await expect(confirmOwnTotp(database.db, { ...change({ password: 'wrong password here' }), code: codeAt(secret, now), mail })).rejects.toMatchObject({ field: 'currentPassword' });
    expect((await secondFactorStateOf(database.db, user.id)).totp).toBe('pending');
    expect(await confirmOwnTotp(database.db, { ...change({ password: 'a long own password 42' }), code: codeAt(secret, now), mail })).toHaveLength(10);
    // From now on the authenticator is the strongest factor: the password alone changes nothing.
    await expect(replaceOwnRecoveryCodes(database.db, change({ password: 'a long own password 42' }))).rejects.toMatchObject({ field: 'stepUpCode' });
    await expect(removeOwnTotp(database.db, { ...change({ password: 'a long own password 42' }), mail })).rejects.toMatchObject({ field: 'stepUpCode' });
    expect((await secondFactorStateOf(database.db, user.id)).totp).toBe('confirmed');
    await removeOwnTotp(database.db, { ...change({ code: codeAt(secret, Date.now() + 30_000) }), mail });
    expect((await secondFactorStateOf(database.db, user.id)).totp).toBe('none');
    // The owner was told of both changes (queued in the changes' transactions), and of nothing that was refused.
    const notices: MailMessage[] = [];
    await deliverDue(database.db, { mail: mailDelivery(atRestKey, async (message) => void notices.push(message)) });
    expect(notices.filter((notice) => notice.to === user.email).map((notice) => notice.subject).sort()).toEqual(['Authenticator app added to your account', 'Authenticator app removed from your account']);
  });
});
