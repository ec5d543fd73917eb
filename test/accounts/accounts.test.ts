// Accounts that belong to their people: invitations, setup and reset links, password change and the forced change,
// each rule against real PostgreSQL (or PGlite), with the single-use and concurrency cases raced for real.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountLinkUrl, issueAccountLink } from '../../lib/accounts/account-links';
import { signInToConsole } from '../../lib/accounts/console-sign-in';
import { createConsoleSession, findConsoleSession } from '../../lib/accounts/console-sessions';
import { inviteToOrganization, listOpenInvitations, resendInvitation, revokeInvitation } from '../../lib/organizations/invitations';
import { findMembershipRole } from '../../lib/organizations/memberships';
import { createOrganization } from '../../lib/organizations/organizations';
import { checkNewPassword } from '../../lib/accounts/factors/password-policy';
import { RESET_ANSWER_FLOOR_MS, RESET_THROTTLE, requestPasswordReset } from '../../lib/accounts/password-reset';
import { hashPassword } from '../../lib/accounts/factors/password';
import { acceptInvitationWithPassword, changeOwnPassword, sendVerificationLink, setPasswordWithLink, verifyEmailWithLink } from '../../lib/accounts/self-service';
import { createTeam } from '../../lib/organizations/teams';
import { createUser, findUserByEmail } from '../../lib/accounts/users';
import { runCli } from '../../lib/cli';
import { accountLinks, auditEvents, invitations, outboundDeliveries, teamMembers, users } from '../../lib/db/schema';
import { decryptAtRest } from '../../lib/security/at-rest';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp, relyingParty, signIn, startProviderHarness, type Harness } from '../support/provider-harness';

let database: TestDatabase;
let harness: Harness;
const atRestKey = randomBytes(32);
const mail = { issuer: 'https://id.example.test', atRestKey };
const OWN_PASSWORD = 'alice chose these words herself';

beforeAll(async () => {
  database = await openTestDatabase();
  harness = await startProviderHarness(database);
});
afterAll(async () => {
  await harness.close();
  await database.close();
});

async function queuedMailTo(to: string): Promise<{ subject: string; text: string; link?: string }[]> {
  const rows = await database.db.select().from(outboundDeliveries).where(eq(outboundDeliveries.recipient, to));
  return Promise.all(rows.map(async (row) => JSON.parse(await decryptAtRest(row.sealedPayload!, atRestKey))));
}

function invite(orgId: string, email: string, extra: Partial<Parameters<typeof inviteToOrganization>[1]> = {}) {
  return inviteToOrganization(database.db, { orgId, email, role: 'member', teamIds: [], invitedBy: null, ttlDays: 7, ...extra });
}

describe('invitations', () => {
  it('make a pre-hijack impossible: an account is born only from its person’s own password, and no membership appears before acceptance', async () => {
    const orgA = await createOrganization(database.db, { slug: 'org-a', name: 'Org A' });
    const orgB = await createOrganization(database.db, { slug: 'org-b', name: 'Org B' });
    // Org B's admin invites alice first; she never accepts that one.
    const fromB = await invite(orgB.id, 'Alice@Example.test');
    expect(await findUserByEmail(database.db, 'alice@example.test')).toBeUndefined();
    // Org A invites her too; she creates her account through A's link, choosing her own password.
    const fromA = await invite(orgA.id, 'alice@example.test', { role: 'admin' });
    const accepted = await acceptInvitationWithPassword(database.db, { token: fromA.token, password: OWN_PASSWORD, name: 'Alice', ip: '192.0.2.10' });
    expect(accepted).toMatchObject({ ok: true, value: { orgSlug: 'org-a', passwordChangeRequired: false } });
    const alice = (await findUserByEmail(database.db, 'alice@example.test'))!;
    expect(alice.emailVerifiedAt).not.toBeNull();
    expect(await findMembershipRole(database.db, orgA.id, alice.id)).toBe('admin');
    // Org B holds no credential and no membership until alice accepts B's invitation with her own password.
    expect(await findMembershipRole(database.db, orgB.id, alice.id)).toBeUndefined();
    expect((await listOpenInvitations(database.db, orgB.id)).map((row) => row.email)).toEqual(['alice@example.test']);
    const wrong = await acceptInvitationWithPassword(database.db, { token: fromB.token, password: 'a password org b guessed', ip: '192.0.2.11' });
    expect(wrong).toMatchObject({ ok: false, fieldErrors: { password: expect.stringContaining('not the password') } });
    const hashBefore = alice.passwordHash;
    expect(await acceptInvitationWithPassword(database.db, { token: fromB.token, password: OWN_PASSWORD, ip: '192.0.2.10' })).toMatchObject({ ok: true });
    expect(await findMembershipRole(database.db, orgB.id, alice.id)).toBe('member');
    // Acceptance by an existing account keeps its password.
    expect((await findUserByEmail(database.db, 'alice@example.test'))!.passwordHash).toBe(hashBefore);
  });

  it('mail the same invitation whether or not the email has an account, and never carry a credential', async () => {
    const org = await createOrganization(database.db, { slug: 'same-answer', name: 'Same Answer' });
    await createUser(database.db, { email: 'exists@example.test', name: 'Exists', passwordHash: await hashPassword(OWN_PASSWORD) });
    const known = await invite(org.id, 'exists@example.test');
    const unknown = await invite(org.id, 'nobody@example.test');
    expect(Object.keys(known).sort()).toEqual(Object.keys(unknown).sort());
    const { invitationMail } = await import('../../lib/mail/messages');
    const text = (to: string) => invitationMail({ to, locale: 'en', organization: 'Same Answer', link: 'L', expiresInDays: 7 }).text;
    expect(text('exists@example.test')).toBe(text('nobody@example.test'));
    // The stored token is a hash: the link's token appears nowhere in the row.
    const [row] = await database.db.select().from(invitations).where(eq(invitations.id, known.invitation.id));
    expect(JSON.stringify(row)).not.toContain(known.token);
  });

  it('are single use, even when two acceptances race', async () => {
    const org = await createOrganization(database.db, { slug: 'race', name: 'Race' });
    const { token } = await invite(org.id, 'racer@example.test');
    const results = await Promise.all([
      acceptInvitationWithPassword(database.db, { token, password: OWN_PASSWORD, name: 'Racer', ip: '192.0.2.20' }),
      acceptInvitationWithPassword(database.db, { token, password: OWN_PASSWORD, name: 'Racer', ip: '192.0.2.20' }),
    ]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(await database.db.select().from(users).where(eq(users.email, 'racer@example.test'))).toHaveLength(1);
    const again = await acceptInvitationWithPassword(database.db, { token, password: OWN_PASSWORD, ip: '192.0.2.20' });
    expect(again).toMatchObject({ ok: false, fieldErrors: { form: expect.stringContaining("already used") } });
  });

  it('expire, can be revoked, and a resend makes the previous link useless', async () => {
    const org = await createOrganization(database.db, { slug: 'lifecycle', name: 'Lifecycle' });
    const expired = await invite(org.id, 'late@example.test');
    await database.db.update(invitations).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(invitations.id, expired.invitation.id));
    expect(await acceptInvitationWithPassword(database.db, { token: expired.token, password: OWN_PASSWORD, name: 'Late', ip: '192.0.2.30' })).toMatchObject({ ok: false });
    expect(await findUserByEmail(database.db, 'late@example.test')).toBeUndefined();

    const revoked = await invite(org.id, 'revoked@example.test');
    expect(await revokeInvitation(database.db, org.id, revoked.invitation.id)).toBeDefined();
    expect(await acceptInvitationWithPassword(database.db, { token: revoked.token, password: OWN_PASSWORD, name: 'Rev', ip: '192.0.2.30' })).toMatchObject({ ok: false });

    const first = await invite(org.id, 'resent@example.test');
    const second = (await resendInvitation(database.db, org.id, first.invitation.id, 7))!;
    expect(second.token).not.toBe(first.token);
    expect(await acceptInvitationWithPassword(database.db, { token: first.token, password: OWN_PASSWORD, name: 'Re', ip: '192.0.2.30' })).toMatchObject({ ok: false });
    expect(await acceptInvitationWithPassword(database.db, { token: second.token, password: OWN_PASSWORD, name: 'Re', ip: '192.0.2.30' })).toMatchObject({ ok: true });
    // Another organization's admin cannot revoke or resend this organization's invitations.
    const other = await createOrganization(database.db, { slug: 'other-lifecycle', name: 'Other' });
    const pending = await invite(org.id, 'pending@example.test');
    expect(await revokeInvitation(database.db, other.id, pending.invitation.id)).toBeUndefined();
    expect(await resendInvitation(database.db, other.id, pending.invitation.id, 7)).toBeUndefined();
  });

  it('apply the role and the teams on acceptance, and refuse a weak password or a missing name next to the field', async () => {
    const org = await createOrganization(database.db, { slug: 'teams-on-accept', name: 'Teams Co' });
    const team = await createTeam(database.db, { orgId: org.id, name: 'Finance' });
    const { token } = await invite(org.id, 'teamed@example.test', { role: 'admin', teamIds: [team.id] });
    expect(await acceptInvitationWithPassword(database.db, { token, password: 'short', name: 'T', ip: '192.0.2.40' })).toMatchObject({ ok: false, fieldErrors: { password: expect.stringContaining('at least 15') } });
    expect(await acceptInvitationWithPassword(database.db, { token, password: OWN_PASSWORD, name: '  ', ip: '192.0.2.40' })).toMatchObject({ ok: false, fieldErrors: { name: 'Enter your name.' } });
    expect(await acceptInvitationWithPassword(database.db, { token, password: OWN_PASSWORD, name: 'Teamed', ip: '192.0.2.40' })).toMatchObject({ ok: true });
    const user = (await findUserByEmail(database.db, 'teamed@example.test'))!;
    expect(await findMembershipRole(database.db, org.id, user.id)).toBe('admin');
    expect(await database.db.select().from(teamMembers).where(and(eq(teamMembers.teamId, team.id), eq(teamMembers.userId, user.id)))).toHaveLength(1);
    // A team of another organization cannot be named.
    const foreign = await createTeam(database.db, { orgId: (await createOrganization(database.db, { slug: 'foreign-team', name: 'F' })).id, name: 'X' });
    await expect(invite(org.id, 'x@example.test', { teamIds: [foreign.id] })).rejects.toThrow(/does not exist/);
  });
});

describe('invitation limits and disabled accounts', () => {
  it('an organization may mail a bounded number of invitations per hour', async () => {
    const org = await createOrganization(database.db, { slug: 'spammy', name: 'Spammy' });
    const { INVITATIONS_PER_ORG_PER_HOUR } = await import('../../lib/organizations/invitations');
    const attempts = await Promise.allSettled(Array.from({ length: INVITATIONS_PER_ORG_PER_HOUR.limit + 2 }, (_, i) => invite(org.id, `bulk-${i}@example.test`)));
    expect(attempts.filter((attempt) => attempt.status === 'rejected')).toHaveLength(2);
    expect((await listOpenInvitations(database.db, org.id)).length).toBe(INVITATIONS_PER_ORG_PER_HOUR.limit);
  });

  it('a disabled account cannot accept, nor be given a password through an invitation', async () => {
    const org = await createOrganization(database.db, { slug: 'disabled-invite', name: 'Disabled' });
    const disabled = await createUser(database.db, { email: 'disabled@example.test', name: 'D', passwordHash: null });
    await database.db.update(users).set({ disabledAt: sql`now()` }).where(eq(users.id, disabled.id));
    const { token } = await invite(org.id, disabled.email);
    expect(await acceptInvitationWithPassword(database.db, { token, password: OWN_PASSWORD, ip: '192.0.2.50' })).toMatchObject({ ok: false, fieldErrors: { form: expect.stringContaining('disabled') } });
    expect((await findUserByEmail(database.db, disabled.email))!.passwordHash).toBeNull();
  });
});

describe('email verification', () => {
  it('a confirmation link marks the address verified once; asking again is limited', async () => {
    const person = await createUser(database.db, { email: 'verify-me@example.test', name: 'V', passwordHash: await hashPassword(OWN_PASSWORD) });
    expect(person.emailVerifiedAt).toBeNull();
    expect(await sendVerificationLink(database.db, mail, person)).toEqual({ status: 'sent' });
    const [message] = await queuedMailTo(person.email);
    const token = /\/account\/verify\/([A-Za-z0-9_-]{43})/.exec(message!.link!)![1];
    expect(await verifyEmailWithLink(database.db, { token: 'x'.repeat(43), ip: '192.0.2.60' })).toBe(false);
    expect(await verifyEmailWithLink(database.db, { token, ip: '192.0.2.60' })).toBe(true);
    expect(await verifyEmailWithLink(database.db, { token, ip: '192.0.2.60' })).toBe(false);
    const verified = (await findUserByEmail(database.db, person.email))!;
    expect(verified.emailVerifiedAt).not.toBeNull();
    expect(await sendVerificationLink(database.db, mail, verified)).toEqual({ status: 'verified' });
    const other = await createUser(database.db, { email: 'verify-often@example.test', name: 'O', passwordHash: null });
    const outcomes = [];
    for (let i = 0; i < 4; i += 1) outcomes.push((await sendVerificationLink(database.db, mail, other)).status);
    expect(outcomes).toEqual(['sent', 'sent', 'sent', 'throttled']);
  });
});

describe('password reset', () => {
  it('answers the same, no faster, for an existing and an unknown email; only the existing one gets a mail', async () => {
    await createUser(database.db, { email: 'reset-me@example.test', name: 'R', passwordHash: await hashPassword(OWN_PASSWORD) });
    const timed = async (email: string) => {
      const started = performance.now();
      const outcome = await requestPasswordReset(database.db, mail, { email, ip: '198.51.100.1' });
      return { outcome, elapsed: performance.now() - started };
    };
    const known = await timed('reset-me@example.test');
    const unknown = await timed('no-account@example.test');
    expect(known.outcome).toEqual(unknown.outcome);
    expect(known.elapsed).toBeGreaterThanOrEqual(RESET_ANSWER_FLOOR_MS);
    expect(unknown.elapsed).toBeGreaterThanOrEqual(RESET_ANSWER_FLOOR_MS);
    expect(await queuedMailTo('reset-me@example.test')).toHaveLength(1);
    expect(await queuedMailTo('no-account@example.test')).toHaveLength(0);
    // The audit trail says the same for both: the typed address, no person id.
    const events = await database.db.select().from(auditEvents).where(eq(auditEvents.action, 'password.reset_requested'));
    expect(events.map((event) => [event.subjectType, event.actorId])).toEqual([
      ['email', null],
      ['email', null],
    ]);
  });

  it('is limited per address (existing or not) and per client address, with the time to wait', async () => {
    for (const email of ['limited@example.test', 'limited-unknown@example.test']) {
      for (let i = 0; i < RESET_THROTTLE.account.limit; i += 1) {
        expect((await requestPasswordReset(database.db, mail, { email, ip: `198.51.100.${10 + i}` })).status).toBe('accepted');
      }
      const limited = await requestPasswordReset(database.db, mail, { email, ip: '198.51.100.99' });
      expect(limited).toMatchObject({ status: 'throttled', retryAfterSeconds: expect.any(Number) });
    }
    const results = await Promise.all(Array.from({ length: RESET_THROTTLE.ip.limit + 3 }, (_, i) => requestPasswordReset(database.db, mail, { email: `spray-${i}@example.test`, ip: '203.0.113.7' })));
    expect(results.filter((result) => result.status === 'throttled')).toHaveLength(3);
  });

  it('sets the password once, ends every session and refresh token, verifies the email and mails a notice', async () => {
    const app = await createOrgWithApp(database, 'Reset Org');
    const person = await createMember(database, app.orgId, 'reset-tokens@example.test');
    const rp = await relyingParty(harness, app);
    const attempt = await signIn(harness, database, rp, app, { email: person.email }, { scope: 'openid offline_access mcp', prompt: 'consent', resource: app.resource });
    const tokens = await oidc.authorizationCodeGrant(rp, attempt.callbackUrl!, attempt.checks);
    expect(tokens.refresh_token).toBeTruthy();
    const consoleToken = await createConsoleSession(database.db, person, {});

    await requestPasswordReset(database.db, mail, { email: person.email, ip: '198.51.100.50' });
    const [message] = await queuedMailTo(person.email);
    const token = /\/account\/password\/([A-Za-z0-9_-]{43})/.exec(message!.link!)![1]!;
    // Two tabs saving at once: one wins.
    const results = await Promise.all([
      setPasswordWithLink(database.db, mail, { token, password: 'my brand new long password', ip: '198.51.100.50' }),
      setPasswordWithLink(database.db, mail, { token, password: 'my other new long password', ip: '198.51.100.50' }),
    ]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(await setPasswordWithLink(database.db, mail, { token, password: 'my third new long password', ip: '198.51.100.50' })).toMatchObject({ ok: false, fieldErrors: { form: expect.stringContaining('expired') } });

    await expect(oidc.refreshTokenGrant(rp, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await findConsoleSession(database.db, consoleToken)).toBeUndefined();
    const after = (await findUserByEmail(database.db, person.email))!;
    expect(after.emailVerifiedAt).not.toBeNull();
    expect((await queuedMailTo(person.email)).map((queued) => queued.subject)).toContain('Your password was changed');
    const winner = results.findIndex((result) => result.ok) === 0 ? 'my brand new long password' : 'my other new long password';
    expect((await signInToConsole(database.db, { email: person.email, password: winner, ip: '198.51.100.50' })).kind).toBe('signed_in');
  });

  it('refuses an expired link and a link of another purpose', async () => {
    const person = await createUser(database.db, { email: 'expiry@example.test', name: 'E', passwordHash: await hashPassword(OWN_PASSWORD) });
    const { token } = await issueAccountLink(database.db, { purpose: 'reset', user: person });
    await database.db.update(accountLinks).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(accountLinks.userId, person.id));
    expect(await setPasswordWithLink(database.db, mail, { token, password: 'a fresh long password here', ip: '198.51.100.60' })).toMatchObject({ ok: false });
    const verify = await issueAccountLink(database.db, { purpose: 'verify_email', user: person });
    expect(await setPasswordWithLink(database.db, mail, { token: verify.token, password: 'a fresh long password here', ip: '198.51.100.60' })).toMatchObject({ ok: false });
    // A refused purpose does not spend the verification link.
    const [row] = await database.db.select().from(accountLinks).where(and(eq(accountLinks.userId, person.id), eq(accountLinks.purpose, 'verify_email')));
    expect(row?.consumedAt).toBeNull();
  });
});

describe('password change and the forced change', () => {
  it('a change from the account page keeps this session, ends the others, is audited and mails a notice', async () => {
    const person = await createUser(database.db, { email: 'changer@example.test', name: 'C', passwordHash: await hashPassword(OWN_PASSWORD) });
    const here = await createConsoleSession(database.db, person, {});
    const elsewhere = await createConsoleSession(database.db, person, {});
    const session = (await findConsoleSession(database.db, here))!;
    expect(await changeOwnPassword(database.db, mail, { user: person, keepConsoleSessionHash: session.tokenHash, currentPassword: 'not it at all, sorry', newPassword: 'a changed long password', ip: '192.0.2.70' })).toMatchObject({
      ok: false,
      fieldErrors: { currentPassword: 'This is not your current password.' },
    });
    expect(await changeOwnPassword(database.db, mail, { user: person, keepConsoleSessionHash: session.tokenHash, currentPassword: OWN_PASSWORD, newPassword: 'changer@example.test', ip: '192.0.2.70' })).toMatchObject({
      ok: false,
      fieldErrors: { password: 'Your password must not be your email address.' },
    });
    expect(await changeOwnPassword(database.db, mail, { user: person, keepConsoleSessionHash: session.tokenHash, currentPassword: OWN_PASSWORD, newPassword: 'a changed long password', ip: '192.0.2.70' })).toEqual({ ok: true, value: null });
    expect(await findConsoleSession(database.db, here)).toBeDefined();
    expect(await findConsoleSession(database.db, elsewhere)).toBeUndefined();
    expect((await queuedMailTo(person.email)).map((queued) => queued.subject)).toEqual(['Your password was changed']);
    const [event] = await database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'password.changed'), eq(auditEvents.subjectId, person.id)));
    expect(event?.details).toEqual({ via: 'account_page' });
  });

  it('an account whose password someone else set must choose a new one before any session opens', async () => {
    const person = await createUser(database.db, { email: 'flagged@example.test', name: 'F', passwordHash: await hashPassword('the admin knew this one') });
    await database.db.update(users).set({ passwordChangeRequired: true }).where(eq(users.id, person.id));
    const first = await signInToConsole(database.db, { email: person.email, password: 'the admin knew this one', ip: '192.0.2.80' });
    expect(first.kind).toBe('change_password');
    const token = /\/account\/password\/([A-Za-z0-9_-]{43})\?return=%2Fconsole%2Flogin$/.exec((first as { path: string }).path)![1];
    expect(await setPasswordWithLink(database.db, mail, { token, password: 'only flagged knows this', ip: '192.0.2.80' })).toMatchObject({ ok: true });
    expect((await findUserByEmail(database.db, person.email))!.passwordChangeRequired).toBe(false);
    expect((await signInToConsole(database.db, { email: person.email, password: 'the admin knew this one', ip: '192.0.2.80' })).kind).toBe('refused');
    expect((await signInToConsole(database.db, { email: person.email, password: 'only flagged knows this', ip: '192.0.2.80' })).kind).toBe('signed_in');
  });

  it('the migration marks the accounts an admin or the CLI created with a password, and no other', async () => {
    const adminMade = await createUser(database.db, { email: 'admin-made@example.test', name: 'A', passwordHash: 'x' });
    const cliMade = await createUser(database.db, { email: 'cli-made@example.test', name: 'C', passwordHash: 'x' });
    const ownMade = await createUser(database.db, { email: 'own-made@example.test', name: 'O', passwordHash: 'x' });
    await database.db.insert(auditEvents).values([
      { orgId: null, actorType: 'person', action: 'member.added', subjectType: 'person', subjectId: adminMade.id, details: { role: 'member', accountCreated: true } },
      { orgId: null, actorType: 'person', action: 'member.added', subjectType: 'person', subjectId: ownMade.id, details: { role: 'member', accountCreated: false } },
      { orgId: null, actorType: 'operator_cli', action: 'person.created', subjectType: 'person', subjectId: cliMade.id },
    ]);
    await database.db.execute(sql.raw(readFileSync(path.join(process.cwd(), 'drizzle/0014_mark_admin_set_passwords.sql'), 'utf8')));
    const marked = await database.db.select({ email: users.email, required: users.passwordChangeRequired }).from(users).where(sql`${users.email} like '%-made@example.test'`).orderBy(users.email);
    expect(marked).toEqual([
      { email: 'admin-made@example.test', required: true },
      { email: 'cli-made@example.test', required: true },
      { email: 'own-made@example.test', required: false },
    ]);
  });
});

describe('password rules (NIST SP 800-63B-4)', () => {
  it('ask for 15 characters alone, 8 beside a second factor; refuse the email, the organization, and common passwords', () => {
    const context = { email: 'ada@example.test', organizationNames: ['Analytical Engines Ltd'] };
    expect(checkNewPassword('fourteen chars', context)).toMatchObject({ ok: false });
    expect(checkNewPassword('quiet orbit lamp', context)).toEqual({ ok: true });
    expect(checkNewPassword('kq7#vz2!', { ...context, hasSecondFactor: true })).toEqual({ ok: true });
    expect(checkNewPassword('ada@example.test', context)).toMatchObject({ ok: false, message: expect.stringContaining('email') });
    expect(checkNewPassword('analytical engines ltd', context)).toMatchObject({ ok: false, message: expect.stringContaining('organization') });
    expect(checkNewPassword('passwordpassword', context)).toMatchObject({ ok: false, message: expect.stringContaining('easy to guess') });
    expect(checkNewPassword('1234567890123456', context)).toMatchObject({ ok: false });
    expect(checkNewPassword('x'.repeat(257), context)).toMatchObject({ ok: false, message: expect.stringContaining('at most') });
    // No composition rules: a long passphrase of lower-case words is fine.
    expect(checkNewPassword('lantern harbor velvet cactus', context)).toEqual({ ok: true });
  });
});

describe('CLI', () => {
  async function run(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { db: database.db, issuer: mail.issuer, atRestKey, operator: 'cli:test', out: (l) => out.push(l), confirm: async () => false }, (l) => err.push(l));
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('users create prints a setup link and no password; the person sets theirs through it; reset-link prints a reset link', async () => {
    const created = await run('users', 'create', '--email', 'grace@cli.test', '--name', 'Grace');
    expect(created.code).toBe(0);
    expect(created.out).not.toMatch(/password:/i);
    const setup = new RegExp(`${accountLinkUrl(mail.issuer, 'setup', '')}([A-Za-z0-9_-]{43})`).exec(created.out)?.[1];
    expect(setup).toBeDefined();
    const grace = (await findUserByEmail(database.db, 'grace@cli.test'))!;
    expect(grace.passwordHash).toBeNull();
    // No password matches an account still waiting for its first one.
    expect((await signInToConsole(database.db, { email: grace.email, password: '', ip: '192.0.2.90' })).kind).toBe('refused');
    expect(await setPasswordWithLink(database.db, mail, { token: setup, password: 'grace picked this phrase', ip: '192.0.2.90' })).toMatchObject({ ok: true, value: { purpose: 'setup' } });
    expect((await findUserByEmail(database.db, 'grace@cli.test'))!.emailVerifiedAt).not.toBeNull();

    const reset = await run('users', 'reset-link', '--email', 'grace@cli.test');
    expect(reset.code).toBe(0);
    expect(reset.out).toMatch(/\/account\/password\/[A-Za-z0-9_-]{43}/);
    expect((await run('users', 'reset-link', '--email', 'nobody@cli.test')).code).toBe(1);
  });

  it('members invite queues the invitation mail for the invitee and prints no link', async () => {
    await createOrganization(database.db, { slug: 'cli-invites', name: 'CLI Invites' });
    const invited = await run('members', 'invite', '--org', 'cli-invites', '--email', 'hopper@cli.test', '--role', 'admin');
    expect(invited.code).toBe(0);
    expect(invited.out).not.toMatch(/\/invite\//);
    const [message] = await queuedMailTo('hopper@cli.test');
    expect(message?.subject).toBe('Join CLI Invites on Portico');
    const token = /\/invite\/([A-Za-z0-9_-]{43})/.exec(message!.link!)![1];
    expect(await acceptInvitationWithPassword(database.db, { token, password: 'hopper chose her words', name: 'Grace Hopper', ip: '192.0.2.91' })).toMatchObject({ ok: true, value: { orgSlug: 'cli-invites' } });
    expect((await run('members', 'invite', '--org', 'cli-invites', '--email', 'hopper@cli.test')).err).toContain('is a member already');
  });
});

describe('the forced change at an app’s sign-in card', () => {
  it('gives no code to an account whose password someone else set; the card continues after the new one', async () => {
    const app = await createOrgWithApp(database, 'Forced Org');
    const person = await createMember(database, app.orgId, 'forced-app@example.test');
    await database.db.update(users).set({ passwordChangeRequired: true }).where(eq(users.id, person.id));
    const rp = await relyingParty(harness, app);
    const refused = await signIn(harness, database, rp, app, { email: person.email });
    expect(refused.outcome).toMatchObject({ kind: 'change_password', location: expect.stringMatching(/^\/account\/password\/[A-Za-z0-9_-]{43}\?return=%2Fauth%2Fapp%2F/) });
    // Portico's own page, not the provider's resume URL: the sign-in did not finish, no code exists.
    expect(refused.callbackUrl).toBeUndefined();
    const token = /\/account\/password\/([A-Za-z0-9_-]{43})/.exec((refused.outcome as { location: string }).location)![1];
    expect(await setPasswordWithLink(database.db, mail, { token, password: 'forced person picked this', ip: '192.0.2.95' })).toMatchObject({ ok: true });
    const admitted = await signIn(harness, database, rp, app, { email: person.email, password: 'forced person picked this' });
    expect(admitted.callbackUrl?.searchParams.get('code')).toBeTruthy();
  });
});
