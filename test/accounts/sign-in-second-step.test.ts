// The second step of a sign-in against the real provider and database: an account with an authenticator gets no
// code, session or token from its password alone; five tries (also raced), five minutes, used once; and the ID token
// says how the person signed in (RFC 8176 amr, acr) — openid-client as the relying party.
import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { confirmTotpEnrollment, startTotpEnrollment } from '../../lib/accounts/factors/totp';
import { signInToConsole } from '../../lib/accounts/console-sign-in';
import { ACR_MFA, ACR_PASSWORD, completeSecondStep, pendingSecondStep, SECOND_STEP_ATTEMPTS } from '../../lib/accounts/sign-in-second-step';
import { SECOND_FACTOR_THROTTLE } from '../../lib/accounts/factors/factor';
import { pendingSignIns } from '../../lib/db/schema';
import { finishAppSignIn } from '../../lib/oidc/password-sign-in';
import { createMember, createOrgWithApp, relyingParty, signIn, TEST_PASSWORD, useProviderHarness } from '../support/provider-harness';

describe('the second step of a sign-in', () => {
  const suite = useProviderHarness();
  const atRestKey = randomBytes(32);
  const codeAt = (secret: string, at: number) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: at });

  async function memberWithAuthenticator(orgId: string) {
    const user = await createMember(suite.database, orgId, `two-${randomBytes(3).toString('hex')}@steps.test`);
    const { secret } = await startTotpEnrollment(suite.database.db, atRestKey, user);
    const enrolledAt = Date.now() - 60_000; // two steps back: codes of "now" are fresh
    await confirmTotpEnrollment(suite.database.db, atRestKey, user, codeAt(secret, enrolledAt), enrolledAt);
    return { user, secret };
  }

  it('an app sign-in: the password alone issues nothing; the code finishes it, and the ID token says pwd + otp', async () => {
    const app = await createOrgWithApp(suite.database, 'Steps');
    const config = await relyingParty(suite.harness, app);
    const { user, secret } = await memberWithAuthenticator(app.orgId);
    const attempt = await signIn(suite.harness, suite.database, config, app, { email: user.email });
    expect(attempt.outcome.kind).toBe('second_factor');
    expect(attempt.callbackUrl).toBeUndefined();
    const token = (attempt.outcome as { token: string }).token;
    const pending = await pendingSecondStep(suite.database.db, token);
    expect(pending?.continuation).toMatchObject({ surface: 'app', firstParty: true });

    expect(await completeSecondStep(suite.database.db, atRestKey, { token, code: '000000', method: 'totp', ip: '192.0.2.1' })).toEqual({ kind: 'wrong', attemptsLeft: SECOND_STEP_ATTEMPTS - 1 });
    const verified = await completeSecondStep(suite.database.db, atRestKey, { token, code: codeAt(secret, Date.now()), method: 'totp', ip: '192.0.2.1' });
    expect(verified.kind).toBe('verified');
    if (verified.kind !== 'verified' || verified.continuation.surface !== 'app') throw new Error('not verified');
    // Used once.
    expect(await completeSecondStep(suite.database.db, atRestKey, { token, code: codeAt(secret, Date.now() + 30_000), method: 'totp', ip: '192.0.2.1' })).toEqual({ kind: 'expired' });

    // What the card's route does next: the interaction continues, with how the person signed in.
    const location = await finishAppSignIn(suite.harness.provider, attempt.cookieHeader!, verified.continuation.uid, { accountId: user.id, amr: verified.amr, acr: ACR_MFA, firstParty: true });
    const resumed = await fetch(location, { redirect: 'manual', headers: { cookie: attempt.cookieHeader! } });
    const tokens = await oidc.authorizationCodeGrant(config, new URL(resumed.headers.get('location')!, suite.harness.issuer), attempt.checks);
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['pwd', 'otp', 'mfa'], acr: ACR_MFA });

    // A person without a second factor: one step, and the ID token says so.
    const plain = await createMember(suite.database, app.orgId, `one-${randomBytes(3).toString('hex')}@steps.test`);
    const one = await signIn(suite.harness, suite.database, config, app, { email: plain.email });
    const plainTokens = await oidc.authorizationCodeGrant(config, one.callbackUrl!, one.checks);
    expect(plainTokens.claims()).toMatchObject({ sub: plain.id, amr: ['pwd'], acr: ACR_PASSWORD });
  });

  it('five tries, counted even when raced; then the sign-in starts over from the password', async () => {
    const app = await createOrgWithApp(suite.database, 'Guess');
    const { user, secret } = await memberWithAuthenticator(app.orgId);
    const console = await signInToConsole(suite.database.db, { email: user.email, password: TEST_PASSWORD, ip: '192.0.2.2' });
    expect(console.kind).toBe('second_factor');
    const token = (console as { token: string }).token;
    const guesses = await Promise.all(
      Array.from({ length: 8 }, (_, index) => completeSecondStep(suite.database.db, atRestKey, { token, code: String(100000 + index), method: 'totp', ip: '192.0.2.2' })),
    );
    expect(guesses.filter((outcome) => outcome.kind === 'wrong')).toHaveLength(SECOND_STEP_ATTEMPTS);
    expect(guesses.filter((outcome) => outcome.kind === 'expired')).toHaveLength(8 - SECOND_STEP_ATTEMPTS);
    // Out of tries: even the right code does not finish it.
    expect(await completeSecondStep(suite.database.db, atRestKey, { token, code: codeAt(secret, Date.now()), method: 'totp', ip: '192.0.2.2' })).toEqual({ kind: 'expired' });
  });

  it('expires after five minutes, and a recovery code finishes it once', async () => {
    const app = await createOrgWithApp(suite.database, 'Late');
    const user = await createMember(suite.database, app.orgId, `rec-${randomBytes(3).toString('hex')}@steps.test`);
    const { secret } = await startTotpEnrollment(suite.database.db, atRestKey, user);
    const { recoveryCodes } = await confirmTotpEnrollment(suite.database.db, atRestKey, user, codeAt(secret, Date.now()));
    const first = (await signInToConsole(suite.database.db, { email: user.email, password: TEST_PASSWORD, ip: '192.0.2.3' })) as { token: string };
    await suite.database.db.update(pendingSignIns).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(pendingSignIns.userId, user.id));
    expect(await completeSecondStep(suite.database.db, atRestKey, { token: first.token, code: recoveryCodes[0]!, method: 'recovery_code', ip: '192.0.2.3' })).toEqual({ kind: 'expired' });

    const second = (await signInToConsole(suite.database.db, { email: user.email, password: TEST_PASSWORD, ip: '192.0.2.3' })) as { token: string };
    const verified = await completeSecondStep(suite.database.db, atRestKey, { token: second.token, code: recoveryCodes[0]!, method: 'recovery_code', ip: '192.0.2.3' });
    expect(verified).toMatchObject({ kind: 'verified', method: 'recovery_code', continuation: { surface: 'console' } });
    const third = (await signInToConsole(suite.database.db, { email: user.email, password: TEST_PASSWORD, ip: '192.0.2.3' })) as { token: string };
    expect(await completeSecondStep(suite.database.db, atRestKey, { token: third.token, code: recoveryCodes[0]!, method: 'recovery_code', ip: '192.0.2.3' })).toMatchObject({ kind: 'wrong' });
  });

  it('ten wrong codes per account per 15 minutes, across sign-ins: then even the right code waits', async () => {
    const app = await createOrgWithApp(suite.database, 'Patient');
    const { user, secret } = await memberWithAuthenticator(app.orgId);
    let wrong = 0;
    while (wrong < SECOND_FACTOR_THROTTLE.limit) {
      const started = (await signInToConsole(suite.database.db, { email: user.email, password: TEST_PASSWORD, ip: '192.0.2.4' })) as { token: string };
      for (let attempt = 0; attempt < SECOND_STEP_ATTEMPTS && wrong < SECOND_FACTOR_THROTTLE.limit; attempt += 1, wrong += 1) {
        expect((await completeSecondStep(suite.database.db, atRestKey, { token: started.token, code: String(200000 + wrong), method: 'totp', ip: '192.0.2.4' })).kind).toBe('wrong');
      }
    }
    const fresh = (await signInToConsole(suite.database.db, { email: user.email, password: TEST_PASSWORD, ip: '192.0.2.4' })) as { token: string };
    expect(await completeSecondStep(suite.database.db, atRestKey, { token: fresh.token, code: codeAt(secret, Date.now()), method: 'totp', ip: '192.0.2.4' })).toEqual({ kind: 'throttled' });
  });
});
