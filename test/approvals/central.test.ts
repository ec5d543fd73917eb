// The operator central's decision path against real PostgreSQL: sessions bound to operator, origin, installation and
// credential version; nonces that work once, within 60 s, for one session, request and fingerprint; step-up for
// work and compose; a logout during step-up; and a refused decision writes nothing.
import { createHash, randomBytes } from 'node:crypto';
import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { addMember } from '../../lib/organizations/memberships';
import { confirmTotpEnrollment, startTotpEnrollment } from '../../lib/accounts/factors/totp';
import type { User } from '../../lib/accounts/users';
import { createApprovalRequest, type ApprovalProfile } from '../../lib/approvals/broker';
import {
  decideInCentral,
  endCentralSession,
  findCentralRequest,
  findCentralSession,
  issueDecisionNonce,
  listCentralRequests,
  openCentralSession,
  STEP_UP_FROM_SIGN_IN_SECONDS,
  stepUpCoveredUntil,
  type CentralBinding,
} from '../../lib/approvals/central';
import { designateAppOperator, removeAppOperator } from '../../lib/approvals/operators';
import { approvalGrants, approvalRequests, auditEvents, centralSessions, decisionNonces, memberships, users } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp, TEST_PASSWORD, type AppFixture } from '../support/provider-harness';

/** How a session's token is kept (its hash only: it is a bearer secret). */
const tokenHashOf = (token: string) => createHash('sha256').update(token).digest('base64url');

const binding: CentralBinding = { origin: 'https://portico.test', installation: 'https://portico.test', surface: 'external' };

describe('the operator central', () => {
  let database: TestDatabase;
  let fixture: AppFixture;
  let owner: User;
  let member: User;

  const ask = (profile: ApprovalProfile = 'read') =>
    createApprovalRequest(
      database.db,
      { orgId: fixture.orgId, appId: fixture.app.id, subjectUserId: member.id, clientId: 'client-1', kind: 'sensitive_access', resource: '/reports/q3', profile, durationSeconds: 1800, reason: 'the quarterly report' },
      { type: 'person', id: member.id },
    );
  const writes = async () => {
    const [decisions] = await database.db.select({ n: count() }).from(auditEvents).where(sql`${auditEvents.action} in ('approval.approved', 'approval.denied')`);
    const [grants] = await database.db.select({ n: count() }).from(approvalGrants);
    return `${decisions!.n}/${grants!.n}`;
  };

  beforeAll(async () => {
    database = await openTestDatabase();
    fixture = await createOrgWithApp(database, 'Central');
    owner = await createMember(database, fixture.orgId, `owner-${randomBytes(3).toString('hex')}@central.test`, 'owner');
    member = await createMember(database, fixture.orgId, `member-${randomBytes(3).toString('hex')}@central.test`);
  });
  afterAll(async () => database?.close());

  it('binds sessions to the origin, the installation and the credential version; members are no operators', async () => {
    const token = await openCentralSession(database.db, owner, binding);
    expect(await findCentralSession(database.db, token, binding)).toBeDefined();
    expect(await findCentralSession(database.db, token, { ...binding, origin: 'https://evil.test' })).toBeUndefined();
    expect(await findCentralSession(database.db, token, { ...binding, installation: 'https://other.test' })).toBeUndefined();
    // A session of the external central never opens the embedded one (nor the reverse): each has its own cookie.
    expect(await findCentralSession(database.db, token, { ...binding, surface: 'embedded' })).toBeUndefined();
    const request = await ask();
    expect((await listCentralRequests(database.db, owner)).map((view) => view.id)).toContain(request.id);
    expect(await listCentralRequests(database.db, member)).toEqual([]);

    const memberToken = await openCentralSession(database.db, member, binding);
    const memberSession = (await findCentralSession(database.db, memberToken, binding))!;
    await expect(issueDecisionNonce(database.db, memberSession, request.id, binding)).rejects.toThrow(/may decide/);

    // A password change (credential version) ends the session.
    await database.db.update(users).set({ credentialVersion: sql`${users.credentialVersion} + 1` }).where(eq(users.id, owner.id));
    expect(await findCentralSession(database.db, token, binding)).toBeUndefined();
    owner = (await database.db.select().from(users).where(eq(users.id, owner.id)))[0]!;
  });

  it('refuses a reused, expired, foreign-session, other-request or changed-fingerprint nonce, writing nothing', async () => {
    const token = await openCentralSession(database.db, owner, binding);
    const session = (await findCentralSession(database.db, token, binding))!;
    const otherToken = await openCentralSession(database.db, owner, binding);
    const otherSession = (await findCentralSession(database.db, otherToken, binding))!;
    const request = await ask();
    const another = await ask();
    const decide = (nonce: string, overrides: Partial<Parameters<typeof decideInCentral>[1]> = {}) =>
      decideInCentral(database.db, { sessionToken: token, requestId: request.id, fingerprint: request.fingerprint, nonce, decision: 'approve', confirmed: true, ip: '192.0.2.1', ...overrides }, binding);
    const before = await writes();

    await expect(decide(await issueDecisionNonce(database.db, otherSession, request.id, binding))).rejects.toThrow(/proof/);
    await expect(decide(await issueDecisionNonce(database.db, session, another.id, binding))).rejects.toThrow(/proof/);
    const changed = await issueDecisionNonce(database.db, session, request.id, binding);
    await expect(decide(changed, { fingerprint: another.fingerprint })).rejects.toThrow(/not the one that was shown/);
    const late = await issueDecisionNonce(database.db, session, request.id, binding);
    await database.db.update(decisionNonces).set({ expiresAt: sql`now() - interval '1 second'` });
    await expect(decide(late)).rejects.toThrow(/proof/);
    await expect(decide(await issueDecisionNonce(database.db, session, request.id, binding), { confirmed: false })).rejects.toThrow(/confirm/);
    expect(await writes()).toBe(before);

    const nonce = await issueDecisionNonce(database.db, session, request.id, binding);
    await expect(decide(nonce)).resolves.toMatchObject({ request: { state: 'approved' } });
    // Reused: refused (the request is decided, and the nonce is gone).
    await expect(decide(nonce, { requestId: another.id, fingerprint: another.fingerprint })).rejects.toThrow(/proof/);
  });

  it('asks for the password again to approve work or compose, never to deny; a logout during step-up refuses', async () => {
    const token = await openCentralSession(database.db, owner, binding);
    const session = (await findCentralSession(database.db, token, binding))!;
    const work = await ask('work');
    const decide = async (overrides: Partial<Parameters<typeof decideInCentral>[1]> = {}, sessionToken = token) =>
      decideInCentral(
        database.db,
        { sessionToken, requestId: work.id, fingerprint: work.fingerprint, nonce: await issueDecisionNonce(database.db, session, work.id, binding), decision: 'approve', ip: '192.0.2.2', ...overrides },
        binding,
      );
    const before = await writes();
    await expect(decide()).rejects.toThrow(/needs your password/);
    await expect(decide({ confirmed: true })).rejects.toThrow(/needs your password/);
    await expect(decide({ password: 'not the password at all' })).rejects.toThrow(/not right/);
    expect(await writes()).toBe(before);

    // A logout after the password was checked, before the decision: refused inside the decision's transaction.
    await expect(decide({ password: TEST_PASSWORD, afterStepUp: () => endCentralSession(database.db, token) })).rejects.toThrow(/ended before the decision/);
    expect(await writes()).toBe(before);

    const fresh = await openCentralSession(database.db, owner, binding);
    const freshSession = (await findCentralSession(database.db, fresh, binding))!;
    const denial = await decideInCentral(database.db, { sessionToken: fresh, requestId: work.id, fingerprint: work.fingerprint, nonce: await issueDecisionNonce(database.db, freshSession, work.id, binding), decision: 'deny', ip: '192.0.2.2' }, binding);
    expect(denial.request.state).toBe('denied');
    const compose = await ask('compose');
    const approved = await decideInCentral(
      database.db,
      { sessionToken: fresh, requestId: compose.id, fingerprint: compose.fingerprint, nonce: await issueDecisionNonce(database.db, freshSession, compose.id, binding), decision: 'approve', password: TEST_PASSWORD, ip: '192.0.2.2' },
      binding,
    );
    expect(approved.grant).toBeDefined();
    expect((await database.db.select().from(approvalRequests).where(eq(approvalRequests.id, compose.id)))[0]!.decidedBy).toBe(owner.id);
  });

  it('asks an operator with an authenticator app for its code, not the password (the strongest factor), once per code', async () => {
    const atRestKey = randomBytes(32);
    const enrollment = await startTotpEnrollment(database.db, atRestKey, owner);
    const codeAt = (at: number) => new TOTP({ secret: Secret.fromBase32(enrollment.secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: at });
    await confirmTotpEnrollment(database.db, atRestKey, owner, codeAt(Date.now() - 30_000), Date.now() - 30_000);
    try {
      const token = await openCentralSession(database.db, owner, binding);
      const session = (await findCentralSession(database.db, token, binding))!;
      const decide = async (request: { id: string; fingerprint: string }, proof: { password?: string; code?: string }) =>
        decideInCentral(
          database.db,
          { sessionToken: token, requestId: request.id, fingerprint: request.fingerprint, nonce: await issueDecisionNonce(database.db, session, request.id, binding), decision: 'approve', proof, atRestKey, ip: '192.0.2.4' },
          binding,
        );
      const work = await ask('work');
      const before = await writes();
      // A phished password does not stand in for the authenticator the operator has.
      await expect(decide(work, { password: TEST_PASSWORD })).rejects.toThrow(/code of your authenticator app/);
      await expect(decide(work, { code: '000000' })).rejects.toThrow(/not right/);
      expect(await writes()).toBe(before);
      const code = codeAt(Date.now());
      expect((await decide(work, { code })).grant).toBeDefined();
      // The same code again, for another decision: spent.
      await expect(decide(await ask('compose'), { code })).rejects.toThrow(/not right|already used/);
    } finally {
      await database.db.execute(sql`delete from totp_factors where user_id = ${owner.id}`);
    }
  });

  it('counts the code proven at the central sign-in as the step-up for five minutes, while it is the strongest factor; never a password alone', async () => {
    const atRestKey = randomBytes(32);
    const enrollment = await startTotpEnrollment(database.db, atRestKey, owner);
    const codeAt = (at: number) => new TOTP({ secret: Secret.fromBase32(enrollment.secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: at });
    await confirmTotpEnrollment(database.db, atRestKey, owner, codeAt(Date.now() - 30_000), Date.now() - 30_000);
    try {
      const decideWithNothingTyped = async (token: string, request: { id: string; fingerprint: string }) => {
        const session = (await findCentralSession(database.db, token, binding))!;
        return decideInCentral(
          database.db,
          { sessionToken: token, requestId: request.id, fingerprint: request.fingerprint, nonce: await issueDecisionNonce(database.db, session, request.id, binding), decision: 'approve', proof: {}, atRestKey, ip: '192.0.2.4' },
          binding,
        );
      };
      // Signed in with the authenticator's code a moment ago: approving work needs nothing more.
      const signedInWithCode = await openCentralSession(database.db, owner, binding, 'totp');
      const session = (await findCentralSession(database.db, signedInWithCode, binding))!;
      expect(session.signInStepUp?.factor).toBe('totp');
      expect(session.signInStepUp!.until.getTime() - Date.now()).toBeLessThanOrEqual(STEP_UP_FROM_SIGN_IN_SECONDS * 1000);
      expect(await stepUpCoveredUntil(database.db, session)).toBeInstanceOf(Date);
      expect((await decideWithNothingTyped(signedInWithCode, await ask('work'))).grant).toBeDefined();

      // Past the window (the sign-in moved back by the database's clock): the code is asked for again, nothing written.
      await database.db.update(centralSessions).set({ createdAt: sql`now() - make_interval(secs => ${STEP_UP_FROM_SIGN_IN_SECONDS + 1})` }).where(eq(centralSessions.tokenHash, tokenHashOf(signedInWithCode)));
      const late = await ask('work');
      const before = await writes();
      await expect(decideWithNothingTyped(signedInWithCode, late)).rejects.toThrow(/code of your authenticator app/);
      expect(await writes()).toBe(before);

      // A sign-in with the password alone (a recovery code, a company's sign-in) proves no factor: the code is asked for.
      await expect(decideWithNothingTyped(await openCentralSession(database.db, owner, binding), late)).rejects.toThrow(/code of your authenticator app/);
      // A factor that is not the operator's strongest any more (a passkey sign-in where the strongest is the code, as
      // after the passkey's removal) counts for nothing.
      await expect(decideWithNothingTyped(await openCentralSession(database.db, owner, binding, 'passkey'), late)).rejects.toThrow(/code of your authenticator app/);
      expect(await writes()).toBe(before);
    } finally {
      await database.db.execute(sql`delete from totp_factors where user_id = ${owner.id}`);
    }
  });

  it('lets a member of another organization decide nothing here', async () => {
    const elsewhere = await createOrgWithApp(database, 'Elsewhere');
    const stranger = await createMember(database, elsewhere.orgId, `stranger-${randomBytes(3).toString('hex')}@central.test`, 'owner');
    await addMember(database.db, { orgId: fixture.orgId, userId: stranger.id, role: 'admin' });
    const request = await ask();
    const token = await openCentralSession(database.db, stranger, binding);
    await expect(
      decideInCentral(database.db, { sessionToken: token, requestId: request.id, fingerprint: request.fingerprint, nonce: 'x'.repeat(32), decision: 'approve', confirmed: true, ip: '192.0.2.3' }, binding),
    ).rejects.toThrow(/may decide/);
  });

  it('lets the designated operators of an app decide, instead of the owners; without any, the owners again', async () => {
    const designated = await createMember(database, fixture.orgId, `operator-${randomBytes(3).toString('hex')}@central.test`);
    const request = await ask();
    expect(await findCentralRequest(database.db, owner, request.id)).toBeDefined();
    expect(await findCentralRequest(database.db, designated, request.id)).toBeUndefined();
    expect(await designateAppOperator(database.db, { orgId: fixture.orgId, appId: fixture.app.id, userId: designated.id })).toBe(true);
    expect(await findCentralRequest(database.db, designated, request.id)).toBeDefined();
    expect(await findCentralRequest(database.db, owner, request.id)).toBeUndefined();
    expect((await listCentralRequests(database.db, designated)).map((view) => view.id)).toContain(request.id);

    const token = await openCentralSession(database.db, designated, binding);
    const session = (await findCentralSession(database.db, token, binding))!;
    const decided = await decideInCentral(
      database.db,
      { sessionToken: token, requestId: request.id, fingerprint: request.fingerprint, nonce: await issueDecisionNonce(database.db, session, request.id, binding), decision: 'approve', confirmed: true, ip: '192.0.2.4' },
      binding,
    );
    expect(decided.request.decidedBy).toBe(designated.id);

    // Someone outside the organization cannot be designated; leaving it ends the authority.
    const stranger = await createMember(database, (await createOrgWithApp(database, 'Far')).orgId, `far-${randomBytes(3).toString('hex')}@central.test`);
    await expect(designateAppOperator(database.db, { orgId: fixture.orgId, appId: fixture.app.id, userId: stranger.id })).rejects.toThrow(/member/);
    await database.db.delete(memberships).where(and(eq(memberships.orgId, fixture.orgId), eq(memberships.userId, designated.id)));
    expect(await findCentralRequest(database.db, designated, request.id)).toBeUndefined();
    expect(await removeAppOperator(database.db, fixture.app.id, designated.id)).toBe(true);
    expect(await findCentralRequest(database.db, owner, request.id)).toBeDefined();
  });
});
