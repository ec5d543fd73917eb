// An organization's second-factor policy and an app's acr_values, against the real provider and database: who must
// have a second factor under each policy; a person who must and has none is sent to set one up after the password
// (app sign-in, console), nothing is issued before; a person with one gets the second step; the enrollment ends the
// pending sign-in once, and only after a factor exists.
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { signInToConsole } from '../../lib/accounts/console-sign-in';
import { designateAppOperator } from '../../lib/approvals/operators';
import { secondFactorStateOf } from '../../lib/accounts/factors/second-factors';
import { confirmTotpEnrollment, startTotpEnrollment, totpEnrollmentOf } from '../../lib/accounts/factors/totp';
import { secondFactorRequired, setSecondFactorPolicy } from '../../lib/accounts/factors/second-factor-policy';
import { beginSecondStep, enrollAtSignIn, enrollmentPasskeyOptions, enrollmentSecret, enrollPasskeyAtSignIn, finishEnrollment } from '../../lib/accounts/sign-in-second-step';
import { passkeyRegistrationOptions, registerOwnPasskey, relyingPartyOf } from '../../lib/accounts/factors/passkeys';
import { confirmOwnTotp, removeOwnTotp } from '../../lib/accounts/factors/own-factors';
import { registrationResponse } from '../support/software-authenticator';
import { addMember } from '../../lib/organizations/memberships';
import { CookieJar, createMember, createOrgWithApp, relyingParty, signIn, TEST_PASSWORD, useProviderHarness } from '../support/provider-harness';

describe('second-factor policy', () => {
  const context = useProviderHarness();
  const atRestKey = randomBytes(32);
  const mail = { issuer: 'http://localhost:3000', atRestKey };
  const email = (name: string) => `${name}-${randomBytes(3).toString('hex')}@policy.test`;

  it('requires a second factor of exactly the people each policy names, in that organization', async () => {
    const { database } = context;
    const fixture = await createOrgWithApp(database, 'Policy');
    const [owner, admin, member, operator] = await Promise.all([
      createMember(database, fixture.orgId, email('owner'), 'owner'),
      createMember(database, fixture.orgId, email('admin'), 'admin'),
      createMember(database, fixture.orgId, email('member'), 'member'),
      createMember(database, fixture.orgId, email('operator'), 'member'),
    ]);
    await designateAppOperator(database.db, { orgId: fixture.orgId, appId: fixture.app.id, userId: operator.id });
    const required = async () => Promise.all([owner, admin, member, operator].map((person) => secondFactorRequired(database.db, person.id, fixture.orgId)));
    expect(await required()).toEqual([false, false, false, false]);
    await setSecondFactorPolicy(database.db, fixture.orgId, 'admins');
    expect(await required()).toEqual([true, true, false, false]);
    await setSecondFactorPolicy(database.db, fixture.orgId, 'operators');
    expect(await required()).toEqual([true, false, false, true]);
    await setSecondFactorPolicy(database.db, fixture.orgId, 'everyone');
    expect(await required()).toEqual([true, true, true, true]);
    // The console and the central serve every organization of a person: any policy that names them counts.
    expect(await secondFactorRequired(database.db, member.id)).toBe(true);
    const elsewhere = await createOrgWithApp(database, 'Elsewhere');
    expect(await secondFactorRequired(database.db, member.id, elsewhere.orgId)).toBe(false);
  });

  it('sends a person who must and has none to set one up after the password, and issues nothing before', async () => {
    const { database, harness } = context;
    const fixture = await createOrgWithApp(database, 'Strict');
    const person = await createMember(database, fixture.orgId, email('strict'));
    const config = await relyingParty(harness, fixture);
    expect((await signIn(harness, database, config, fixture, { email: person.email })).outcome.kind).toBe('continue');
    await setSecondFactorPolicy(database.db, fixture.orgId, 'everyone');
    const attempt = await signIn(harness, database, config, fixture, { email: person.email });
    expect(attempt.outcome.kind).toBe('enroll');
    expect(attempt.callbackUrl).toBeUndefined();
    // The console too (a policy of any of their organizations).
    expect((await signInToConsole(database.db, { email: person.email, password: TEST_PASSWORD, ip: '192.0.2.30' })).kind).toBe('enroll');
  });

  it('holds for a session signed in with a password alone elsewhere: that session signs in again for the strict organization', async () => {
    const { database, harness } = context;
    const [strict, lenient] = [await createOrgWithApp(database, 'Strict SSO'), await createOrgWithApp(database, 'Lenient SSO')];
    const person = await createMember(database, strict.orgId, email('sso'));
    await addMember(database.db, { orgId: lenient.orgId, userId: person.id, role: 'member' });
    await setSecondFactorPolicy(database.db, strict.orgId, 'everyone');
    const browser = new CookieJar();
    const lenientConfig = await relyingParty(harness, lenient);
    expect((await signIn(harness, database, lenientConfig, lenient, { email: person.email }, {}, browser)).outcome.kind).toBe('continue');
    // The session serves the lenient organization's app again without a card (single sign-on)…
    const again = await signIn(harness, database, lenientConfig, lenient, { email: person.email }, {}, browser);
    expect(again.callbackUrl?.searchParams.get('code')).toBeTruthy();
    // …but not the strict one's: its card comes back, and the password leads to the setup, not to a code.
    const strictAttempt = await signIn(harness, database, await relyingParty(harness, strict), strict, { email: person.email }, {}, browser);
    expect(strictAttempt.outcome.kind).toBe('enroll');
  });

  it('sends a person to set one up when an app asks for it with acr_values, whatever the policy', async () => {
    const { database, harness } = context;
    const fixture = await createOrgWithApp(database, 'Lenient');
    const person = await createMember(database, fixture.orgId, email('lenient'));
    const config = await relyingParty(harness, fixture);
    expect((await signIn(harness, database, config, fixture, { email: person.email }, { acr_values: 'urn:portico:acr:pwd' })).outcome.kind).toBe('continue');
    expect((await signIn(harness, database, config, fixture, { email: person.email }, { acr_values: 'urn:portico:acr:mfa' })).outcome.kind).toBe('enroll');
  });

  it('ends the enrollment sign-in once, only after a factor was set up through that very sign-in', async () => {
    const { database } = context;
    const fixture = await createOrgWithApp(database, 'Enroll');
    const person = await createMember(database, fixture.orgId, email('enroll'));
    const onConsole = { surface: 'console_or_central' } as const;
    const token = await beginSecondStep(database.db, { userId: person.id, continuation: { surface: 'console', events: { surface: 'console', ip: '192.0.2.31' }, enroll: true } });
    expect(await finishEnrollment(database.db, token, onConsole)).toBeUndefined();
    const secretEncrypted = (await enrollmentSecret(database.db, atRestKey, token))!;
    // The same secret on every view of this sign-in; none of it in the account's factors until its first code.
    expect(await enrollmentSecret(database.db, atRestKey, token)).toBe(secretEncrypted);
    expect((await secondFactorStateOf(database.db, person.id)).totp).toBe('none');
    const { secret } = await totpEnrollmentOf(secretEncrypted, atRestKey, person);
    const code = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
    await expect(enrollAtSignIn(database.db, atRestKey, { token, code: '000000', ip: '192.0.2.31', mail })).rejects.toThrow();
    expect(await enrollAtSignIn(database.db, atRestKey, { token, code, ip: '192.0.2.31', mail })).toHaveLength(10);
    // Not as an app's interaction: the continuation is the console's.
    expect(await finishEnrollment(database.db, token, { surface: 'app', uid: 'someinteraction' })).toBeUndefined();
    const [first, second] = await Promise.all([finishEnrollment(database.db, token, onConsole), finishEnrollment(database.db, token, onConsole)]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect((first ?? second)!.amr).toEqual(['pwd', 'otp', 'mfa']);
  });

  it('does not let a sign-in that only saw the password finish because a factor was added elsewhere meanwhile', async () => {
    const { database } = context;
    const fixture = await createOrgWithApp(database, 'Elsewhere enrolled');
    const person = await createMember(database, fixture.orgId, email('meanwhile'));
    const attacker = await beginSecondStep(database.db, { userId: person.id, continuation: { surface: 'console', events: { surface: 'console', ip: '192.0.2.32' }, enroll: true } });
    await enrollmentSecret(database.db, atRestKey, attacker);
    // The owner sets up an authenticator from their own session meanwhile.
    const own = await startTotpEnrollment(database.db, atRestKey, person);
    await confirmTotpEnrollment(database.db, atRestKey, person, new TOTP({ secret: Secret.fromBase32(own.secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate());
    expect(await finishEnrollment(database.db, attacker, { surface: 'console_or_central' })).toBeUndefined();
    // And the sign-in's own secret cannot replace the owner's confirmed authenticator.
    const shown = await totpEnrollmentOf((await enrollmentSecret(database.db, atRestKey, attacker))!, atRestKey, person);
    const code = new TOTP({ secret: Secret.fromBase32(shown.secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
    await expect(enrollAtSignIn(database.db, atRestKey, { token: attacker, code, ip: '192.0.2.32', mail })).rejects.toThrow(/second factor already/);
  });

  // One rule for both kinds of factor (firstFactorOnly): a sign-in that proved only the password sets up the account's
  // first factor, never one beside another, in either order, and cannot finish once another factor appeared.
  const enrollmentSignIn = (database: { db: Parameters<typeof beginSecondStep>[0] }, userId: string) =>
    beginSecondStep(database.db, { userId, continuation: { surface: 'console', events: { surface: 'console', ip: '192.0.2.34' }, enroll: true } });
  const codeOf = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();

  it('passkey, then authenticator: a password-only sign-in cannot add an authenticator beside the passkey the account gained', async () => {
    const { database } = context;
    const rp = relyingPartyOf(mail.issuer);
    const fixture = await createOrgWithApp(database, 'Passkey first');
    const person = await createMember(database, fixture.orgId, email('passkey-first'));
    const thief = await enrollmentSignIn(database, person.id);
    const shown = await totpEnrollmentOf((await enrollmentSecret(database.db, atRestKey, thief))!, atRestKey, person);
    // The owner's own enrollment sign-in sets up a passkey meanwhile.
    const owner = await enrollmentSignIn(database, person.id);
    const options = await enrollmentPasskeyOptions(database.db, rp, owner);
    await enrollPasskeyAtSignIn(database.db, rp, { token: owner, name: 'Laptop', response: registrationResponse(options, rp.origin), ip: '192.0.2.34', mail });
    await expect(enrollAtSignIn(database.db, atRestKey, { token: thief, code: codeOf(shown.secret), ip: '192.0.2.34', mail })).rejects.toThrow(/second factor already/);
    expect(await secondFactorStateOf(database.db, person.id)).toMatchObject({ totp: 'none', passkeys: 1 });
    expect(await finishEnrollment(database.db, thief, { surface: 'console_or_central' })).toBeUndefined();
  });

  it('authenticator, then passkey: a password-only sign-in cannot add a passkey beside the authenticator the account gained', async () => {
    const { database } = context;
    const rp = relyingPartyOf(mail.issuer);
    const fixture = await createOrgWithApp(database, 'Authenticator first');
    const person = await createMember(database, fixture.orgId, email('totp-first'));
    const thief = await enrollmentSignIn(database, person.id);
    const options = await enrollmentPasskeyOptions(database.db, rp, thief);
    const owner = await enrollmentSignIn(database, person.id);
    const ownSecret = await totpEnrollmentOf((await enrollmentSecret(database.db, atRestKey, owner))!, atRestKey, person);
    await enrollAtSignIn(database.db, atRestKey, { token: owner, code: codeOf(ownSecret.secret), ip: '192.0.2.35', mail });
    await expect(enrollPasskeyAtSignIn(database.db, rp, { token: thief, name: 'Thief', response: registrationResponse(options, rp.origin), ip: '192.0.2.35', mail })).rejects.toThrow(/second factor already/);
    // Refused in the transaction that registered it: no passkey is left behind.
    expect(await secondFactorStateOf(database.db, person.id)).toMatchObject({ totp: 'confirmed', passkeys: 0 });
  });

  it('an enrolled sign-in does not finish once a factor other than its own was added beside it', async () => {
    const { database } = context;
    const rp = relyingPartyOf(mail.issuer);
    const fixture = await createOrgWithApp(database, 'Beside');
    const person = await createMember(database, fixture.orgId, email('beside'));
    const token = await enrollmentSignIn(database, person.id);
    const shown = await totpEnrollmentOf((await enrollmentSecret(database.db, atRestKey, token))!, atRestKey, person);
    await enrollAtSignIn(database.db, atRestKey, { token, code: codeOf(shown.secret), ip: '192.0.2.36', mail });
    // A passkey appears beside the authenticator (from a session of the account's own) before this sign-in finishes.
    const elsewhere = await passkeyRegistrationOptions(database.db, rp, person);
    await registerOwnPasskey(database.db, rp, { user: person, name: 'Elsewhere', response: registrationResponse(elsewhere, rp.origin), ip: '192.0.2.36', mail });
    expect(await finishEnrollment(database.db, token, { surface: 'console_or_central' })).toBeUndefined();
  });
  it('takes a passkey instead: only a ceremony made for this very sign-in, once, as the account’s first factor', async () => {
    const { database } = context;
    const rp = relyingPartyOf(mail.issuer);
    const fixture = await createOrgWithApp(database, 'Enroll by passkey');
    const person = await createMember(database, fixture.orgId, email('passkey-enroll'));
    const begin = () => beginSecondStep(database.db, { userId: person.id, continuation: { surface: 'console', events: { surface: 'console', ip: '192.0.2.33' }, enroll: true } });
    const token = await begin();
    const enroll = (answer: ReturnType<typeof registrationResponse>, name = 'Laptop', on = token) => enrollPasskeyAtSignIn(database.db, rp, { token: on, name, response: answer, ip: '192.0.2.33', mail });

    // A ceremony made elsewhere (the account page's, or another sign-in's) does not fit this one.
    const accountPage = await passkeyRegistrationOptions(database.db, rp, person);
    await expect(enroll(registrationResponse(accountPage, rp.origin))).rejects.toThrow(/expired or was used/);
    const otherSignIn = await begin();
    await expect(enroll(registrationResponse(await enrollmentPasskeyOptions(database.db, rp, otherSignIn), rp.origin))).rejects.toThrow(/expired or was used/);
    // No sign-in, no options.
    await expect(enrollmentPasskeyOptions(database.db, rp, undefined)).rejects.toThrow(/sign-in has ended/);

    // Two registrations at once for the same sign-in: one is kept, and the sign-in is enrolled once.
    const [one, two] = await Promise.allSettled([
      enroll(registrationResponse(await enrollmentPasskeyOptions(database.db, rp, token), rp.origin), 'One'),
      enroll(registrationResponse(await enrollmentPasskeyOptions(database.db, rp, token), rp.origin), 'Two'),
    ]);
    expect([one, two].filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(((one.status === 'fulfilled' ? one : two) as PromiseFulfilledResult<string[]>).value).toHaveLength(10);
    expect((await secondFactorStateOf(database.db, person.id)).passkeys).toBe(1);
    // Enrolled: nothing more through this sign-in, and a replayed answer is refused.
    await expect(enrollmentPasskeyOptions(database.db, rp, token)).rejects.toThrow(/sign-in has ended/);
    const finished = await finishEnrollment(database.db, token, { surface: 'console_or_central' });
    expect(finished!.amr).toEqual(['pwd', expect.stringMatching(/^(hwk|swk)$/), 'user', 'mfa']);

    // The other sign-in saw only the password: now that the account has a factor, it may not add a passkey.
    await expect(enroll(registrationResponse(await enrollmentPasskeyOptions(database.db, rp, otherSignIn), rp.origin), 'Late', otherSignIn)).rejects.toThrow(/second factor already/);
    expect((await secondFactorStateOf(database.db, person.id)).passkeys).toBe(1);
  });
  it('lets a person with none add their first factor with the password where the policy requires one (and nothing weaker)', async () => {
    const { database } = context;
    const fixture = await createOrgWithApp(database, 'First factor');
    const person = await createMember(database, fixture.orgId, email('first-factor'));
    await setSecondFactorPolicy(database.db, fixture.orgId, 'everyone');
    const change = { user: person, ip: '192.0.2.34', keys: { atRestKey, rp: relyingPartyOf(mail.issuer) }, mail };
    const { secret } = await startTotpEnrollment(database.db, atRestKey, person);
    const code = () => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
    await expect(confirmOwnTotp(database.db, { ...change, proof: { password: 'not the password' }, code: code() })).rejects.toThrow(/not right/);
    expect(await confirmOwnTotp(database.db, { ...change, proof: { password: TEST_PASSWORD }, code: code() })).toHaveLength(10);
    // Removing it again is a change that takes a factor away: the authenticator's code, never the password.
    await expect(removeOwnTotp(database.db, { ...change, proof: { password: TEST_PASSWORD } })).rejects.toThrow();
  });
});
