// Approval policies through the central's real decision path: who decides a kind of request, a quorum of distinct
// deciders reached exactly once when their approvals race, the person the request is for never among them, one
// denial ending it (or not), the policy's longest grant, the app's own policy before the organization's, and a
// removed policy sending its kind back to the CLI.
import { randomBytes } from 'node:crypto';
import { count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { User } from '../../lib/accounts/users';
import { createApprovalRequest, decideApprovalRequest, revokeGrantIn, type NewApprovalRequest } from '../../lib/approvals/broker';
import { decideInCentral, findCentralRequest, findCentralSession, issueDecisionNonce, listCentralRequests, openCentralSession, type CentralBinding } from '../../lib/approvals/central';
import { policyKindOf, removeApprovalPolicy, setApprovalPolicy, type PolicyInput } from '../../lib/approvals/policies';
import { recordAuditEvent } from '../../lib/audit/events';
import { approvalGrants, approvalPolicies, approvalRequests, approvalVotes, auditEvents, teamMembers, teams } from '../../lib/db/schema';
import { and } from 'drizzle-orm';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp, TEST_PASSWORD, type AppFixture } from '../support/provider-harness';

const binding: CentralBinding = { origin: 'https://portico.test', installation: 'https://portico.test', surface: 'external' };

describe('approval policies', () => {
  let database: TestDatabase;
  let fixture: AppFixture;
  let owner: User;
  let sre: User[];
  let asker: User;
  let outsider: User;
  let sreTeam: string;

  const policy = (input: Partial<PolicyInput> = {}) =>
    database.db.transaction((tx) =>
      setApprovalPolicy(
        { tx, orgId: fixture.orgId, audit: (record) => recordAuditEvent(tx, { ...record, orgId: fixture.orgId, actor: { type: 'person', id: owner.id, label: owner.email } }) },
        { appId: null, kind: 'root', deciders: 'team', teamId: sreTeam, quorum: 2, anyDenyEnds: true, ...input },
      ),
    );
  const ask = (overrides: Partial<NewApprovalRequest> = {}, subject: User = asker) =>
    createApprovalRequest(database.db, { orgId: fixture.orgId, appId: fixture.app.id, subjectUserId: subject.id, clientId: 'client-1', kind: 'root_access', durationSeconds: 3600, reason: 'migrate the ledger', ...overrides }, { type: 'person', id: subject.id });
  /** One decision through the central, as the page makes it: a session, a nonce, the decision with its confirmation. */
  const decide = async (operator: User, requestId: string, decision: 'approve' | 'deny' = 'approve') => {
    const token = await openCentralSession(database.db, operator, binding);
    const session = (await findCentralSession(database.db, token, binding))!;
    const nonce = await issueDecisionNonce(database.db, session, requestId, binding);
    const view = (await findCentralRequest(database.db, operator, requestId))!;
    return decideInCentral(database.db, { sessionToken: token, requestId, fingerprint: view.fingerprint, nonce, decision, confirmed: true, password: TEST_PASSWORD, ip: '192.0.2.9' }, binding);
  };

  beforeAll(async () => {
    database = await openTestDatabase();
    fixture = await createOrgWithApp(database, 'Policies');
    const tag = randomBytes(3).toString('hex');
    owner = await createMember(database, fixture.orgId, `owner-${tag}@policies.test`, 'owner');
    sre = await Promise.all([1, 2, 3].map((n) => createMember(database, fixture.orgId, `sre${n}-${tag}@policies.test`)));
    asker = await createMember(database, fixture.orgId, `asker-${tag}@policies.test`);
    outsider = await createMember(database, fixture.orgId, `outsider-${tag}@policies.test`);
    sreTeam = (await database.db.insert(teams).values({ orgId: fixture.orgId, name: 'SRE' }).returning())[0]!.id;
    await database.db.insert(teamMembers).values([...sre, asker].map((person) => ({ teamId: sreTeam, userId: person.id })));
  });
  afterAll(async () => database?.close());
  beforeEach(async () => {
    await database.db.delete(approvalPolicies);
  });

  it('names each request’s kind: permanent, root, protected, then read or write', () => {
    expect(policyKindOf({ kind: 'root_access', durationSeconds: null })).toBe('permanent');
    expect(policyKindOf({ kind: 'root_access', durationSeconds: 60 })).toBe('root');
    expect(policyKindOf({ kind: 'sensitive_access', resource: '/', profile: 'read', durationSeconds: 60 })).toBe('protected');
    expect(policyKindOf({ kind: 'sensitive_access', resource: '/vault/*', profile: 'read', durationSeconds: 60 })).toBe('protected');
    expect(policyKindOf({ kind: 'sensitive_access', resource: '/vault', profile: 'read', durationSeconds: 60 })).toBe('read');
    expect(policyKindOf({ kind: 'sensitive_access', resource: '/vault', profile: 'compose', durationSeconds: 60 })).toBe('write');
  });

  it('2 of the SRE team: approvals racing the third give exactly one grant, with both approvals recorded', async () => {
    await policy();
    const request = await ask();
    // Without the policy a root request is the CLI's; with one, the central decides it.
    expect(request).toMatchObject({ centralEligible: true, quorum: 2, policyKind: 'root' });
    const first = await decide(sre[0]!, request.id);
    expect(first).toMatchObject({ approvals: 1, quorum: 2 });
    expect(first.grant).toBeUndefined();
    expect(first.request.state).toBe('pending');
    expect((await findCentralRequest(database.db, sre[1]!, request.id))!.votes.map((vote) => [vote.email, vote.decision])).toEqual([[sre[0]!.email, 'approve']]);

    const outcomes = await Promise.allSettled([decide(sre[1]!, request.id), decide(sre[2]!, request.id)]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect((outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ code: 'not_pending' });
    const [{ n }] = (await database.db.select({ n: count() }).from(approvalGrants).where(eq(approvalGrants.requestId, request.id))) as [{ n: number }];
    expect(n).toBe(1);
    expect(await database.db.select({ n: count() }).from(approvalVotes).where(eq(approvalVotes.requestId, request.id))).toEqual([{ n: 2 }]);
    const [approved] = await database.db.select().from(auditEvents).where(sql`${auditEvents.subjectId} = ${request.id} and ${auditEvents.action} = 'approval.approved'`);
    expect(approved!.details).toMatchObject({ approvals: 2, quorum: 2 });
  });

  it('all three at once: still one grant, and the quorum’s two votes', async () => {
    await policy();
    const request = await ask();
    const outcomes = await Promise.allSettled(sre.map((person) => decide(person, request.id)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2);
    expect(await database.db.select({ n: count() }).from(approvalGrants).where(eq(approvalGrants.requestId, request.id))).toEqual([{ n: 1 }]);
    expect(await database.db.select({ n: count() }).from(approvalVotes).where(eq(approvalVotes.requestId, request.id))).toEqual([{ n: 2 }]);
  });

  it('the person the request is for never decides it, nobody decides twice, and someone outside the team not at all', async () => {
    await policy();
    const own = await ask({}, asker);
    // The asker is in the team, yet the request is not theirs to decide, nor listed for them.
    expect((await listCentralRequests(database.db, asker)).map((view) => view.id)).not.toContain(own.id);
    await expect(decide(asker, own.id)).rejects.toMatchObject({ code: 'not_found' });
    // The broker refuses it too, whoever calls it as the central.
    await expect(decideApprovalRequest(database.db, { requestId: own.id, decision: 'approve', fingerprint: own.fingerprint, channel: 'central', decidedBy: asker.id, actor: { type: 'person', id: asker.id } })).rejects.toMatchObject({ code: 'own_request' });
    await decide(sre[0]!, own.id);
    await expect(decide(sre[0]!, own.id)).rejects.toMatchObject({ code: 'already_decided_by_you' });
    await expect(decide(outsider, own.id)).rejects.toMatchObject({ code: 'not_found' });
    // The owners are not the deciders of this kind any more (the policy names the team).
    await expect(decide(owner, own.id)).rejects.toMatchObject({ code: 'not_found' });
    expect(await database.db.select({ n: count() }).from(approvalVotes).where(eq(approvalVotes.requestId, own.id))).toEqual([{ n: 1 }]);
  });

  it('approving what only a policy lets the central decide (root) needs the decider’s step-up, not a tick', async () => {
    await policy({ quorum: 1 });
    const request = await ask();
    const token = await openCentralSession(database.db, sre[0]!, binding);
    const session = (await findCentralSession(database.db, token, binding))!;
    const nonce = await issueDecisionNonce(database.db, session, request.id, binding);
    expect((await findCentralRequest(database.db, sre[0]!, request.id))!.stepUp).toBe(true);
    await expect(decideInCentral(database.db, { sessionToken: token, requestId: request.id, fingerprint: request.fingerprint, nonce, decision: 'approve', confirmed: true, ip: '192.0.2.9' }, binding)).rejects.toMatchObject({ code: 'step_up' });
    expect(await database.db.select({ n: count() }).from(approvalVotes).where(eq(approvalVotes.requestId, request.id))).toEqual([{ n: 0 }]);
  });

  it('one denial ends it; a policy that lets the others decide keeps it pending until the quorum', async () => {
    await policy();
    const denied = await ask();
    await decide(sre[0]!, denied.id);
    const result = await decide(sre[1]!, denied.id, 'deny');
    expect(result.request.state).toBe('denied');
    expect(await database.db.select({ n: count() }).from(approvalGrants).where(eq(approvalGrants.requestId, denied.id))).toEqual([{ n: 0 }]);

    await policy({ anyDenyEnds: false });
    const tolerant = await ask();
    expect((await decide(sre[0]!, tolerant.id, 'deny')).request.state).toBe('pending');
    await decide(sre[1]!, tolerant.id);
    expect((await decide(sre[2]!, tolerant.id)).request.state).toBe('approved');
  });

  it('caps the grant at the policy’s longest, a permanent request included', async () => {
    await policy({ kind: 'permanent', quorum: 1, maxGrantSeconds: 600 });
    const permanent = await ask({ durationSeconds: null });
    expect(permanent.policyKind).toBe('permanent');
    const { grant } = await decide(sre[0]!, permanent.id);
    const seconds = (grant!.expiresAt!.getTime() - grant!.grantedAt.getTime()) / 1000;
    expect(seconds).toBeGreaterThan(590);
    expect(seconds).toBeLessThanOrEqual(600);
  });

  it('an app’s own policy comes before the organization’s; a removed policy sends its kind back to the CLI', async () => {
    await policy({ kind: 'read', deciders: 'team', teamId: sreTeam, quorum: 2 });
    const appPolicy = await policy({ kind: 'read', appId: fixture.app.id, deciders: 'people', userIds: [outsider.id], quorum: 1 });
    const read = await ask({ kind: 'sensitive_access', resource: '/reports', profile: 'read' });
    expect(read.quorum).toBe(1);
    expect((await decide(outsider, read.id)).request.state).toBe('approved');

    await policy();
    const root = await ask();
    await database.db.transaction((tx) =>
      removeApprovalPolicy({ tx, orgId: fixture.orgId, audit: (record) => recordAuditEvent(tx, { ...record, orgId: fixture.orgId, actor: { type: 'system' } }) }, appPolicy.id),
    );
    const [{ id: rootPolicy }] = (await database.db.select({ id: approvalPolicies.id }).from(approvalPolicies).where(eq(approvalPolicies.kind, 'root'))) as [{ id: string }];
    await database.db.transaction((tx) => removeApprovalPolicy({ tx, orgId: fixture.orgId, audit: (record) => recordAuditEvent(tx, { ...record, orgId: fixture.orgId, actor: { type: 'system' } }) }, rootPolicy));
    // Its deciders are the default ones again (the owners), and a root request is the CLI's once more.
    await expect(decide(owner, root.id)).rejects.toMatchObject({ code: 'not_eligible' });
  });

  it('a request keeps the rule it was made under: a policy added later neither lets its asker decide nor changes its deciders', async () => {
    const before = await ask({ kind: 'sensitive_access', resource: '/reports', profile: 'read' });
    await policy({ kind: 'read', deciders: 'people', userIds: [asker.id, sre[0]!.id], quorum: 2 });
    await expect(decide(asker, before.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(decide(sre[0]!, before.id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await decide(owner, before.id)).request.state).toBe('approved');
  });

  it('an approval counts only while its decider may still decide: someone removed from the team meanwhile does not', async () => {
    await policy();
    const request = await ask();
    await decide(sre[0]!, request.id);
    await database.db.delete(teamMembers).where(and(eq(teamMembers.teamId, sreTeam), eq(teamMembers.userId, sre[0]!.id)));
    try {
      const second = await decide(sre[1]!, request.id);
      expect(second).toMatchObject({ approvals: 1, quorum: 2 });
      expect(second.request.state).toBe('pending');
      expect((await decide(sre[2]!, request.id)).request.state).toBe('approved');
    } finally {
      await database.db.insert(teamMembers).values({ teamId: sreTeam, userId: sre[0]!.id });
    }
  });

  it('once escalated, the escalation group may decide too; before, it may not', async () => {
    await policy({ quorum: 1, escalateAfterMinutes: 5, escalateTo: 'owners' });
    const request = await ask();
    await expect(decide(owner, request.id)).rejects.toMatchObject({ code: 'not_found' });
    await database.db.update(approvalRequests).set({ escalatedAt: new Date() }).where(eq(approvalRequests.id, request.id));
    expect((await decide(owner, request.id)).request.state).toBe('approved');
  });

  it('the owners may revoke a grant a team decided; someone outside it may not', async () => {
    await policy({ quorum: 1 });
    const request = await ask();
    const { grant } = await decide(sre[0]!, request.id);
    await expect(database.db.transaction((tx) => revokeGrantIn(tx, grant!.id, outsider.id, { orgId: fixture.orgId, operatorUserId: outsider.id }))).rejects.toMatchObject({ code: 'already_revoked' });
    const revoked = await database.db.transaction((tx) => revokeGrantIn(tx, grant!.id, owner.id, { orgId: fixture.orgId, operatorUserId: owner.id }));
    expect(revoked.revokedAt).not.toBeNull();
  });

  it('a read or write policy opens the central to a grant longer than 8 hours only when it caps the grant within them', async () => {
    await policy({ kind: 'write', deciders: 'owners', quorum: 1 });
    const month = await ask({ kind: 'sensitive_access', resource: '/ledger', profile: 'work', durationSeconds: 30 * 86400 });
    expect(month.centralEligible).toBe(false);
    await policy({ kind: 'write', deciders: 'owners', quorum: 1, maxGrantSeconds: 3600 });
    const capped = await ask({ kind: 'sensitive_access', resource: '/ledger', profile: 'work', durationSeconds: 30 * 86400 });
    expect(capped.centralEligible).toBe(true);
    const { grant } = await decide(owner, capped.id);
    expect((grant!.expiresAt!.getTime() - grant!.grantedAt.getTime()) / 1000).toBeLessThanOrEqual(3600);
  });

  it('refuses a policy that names what is not the organization’s, or a quorum nobody could reach', async () => {
    const other = await createOrgWithApp(database, 'Elsewhere');
    const stranger = await createMember(database, other.orgId, `stranger-${randomBytes(3).toString('hex')}@policies.test`);
    await expect(policy({ deciders: 'people', userIds: [stranger.id], quorum: 1 })).rejects.toMatchObject({ field: 'userIds' });
    await expect(policy({ deciders: 'people', userIds: [sre[0]!.id], quorum: 2 })).rejects.toMatchObject({ field: 'quorum' });
    await expect(policy({ appId: other.app.id })).rejects.toMatchObject({ field: 'appId' });
    await expect(policy({ quorum: 11 })).rejects.toMatchObject({ field: 'quorum' });
    await expect(policy({ escalateAfterMinutes: 0 })).rejects.toMatchObject({ field: 'escalateAfterMinutes' });
    // A request expires after 30 minutes: an escalation at 30 or later would never happen.
    await expect(policy({ escalateAfterMinutes: 30 })).rejects.toMatchObject({ field: 'escalateAfterMinutes' });
    expect(await database.db.select().from(approvalPolicies)).toEqual([]);
  });
});
