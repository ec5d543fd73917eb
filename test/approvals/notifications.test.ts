// Decisions that reach the people who make them, over real SMTP: a new request mails each of its deciders (and
// nobody else) with the link to its page, a human confirmation mails its person (an agent on its own: the app's
// operators), outside text arrives inert, people's choices are kept (but the only decider of a root request always
// hears), a burst becomes a digest; and the ticker expires, escalates and reminds exactly once, on an injected clock.
import { randomBytes } from 'node:crypto';
import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../lib/organizations/agents';
import type { User } from '../../lib/accounts/users';
import { createApprovalRequest, decideApprovalRequest, type NewApprovalRequest } from '../../lib/approvals/broker';
import { setApprovalPolicy, type PolicyInput } from '../../lib/approvals/policies';
import { recordAuditEvent } from '../../lib/audit/events';
import { approvalGrants, approvalPolicies, approvalRequests, auditEvents, confirmationChallenges, notificationLog, notificationSettings, outboundDeliveries, teamMembers, teams } from '../../lib/db/schema';
import { deliverDue } from '../../lib/deliveries/outbox';
import { createMailSender, mailDelivery } from '../../lib/deliveries/channels/mail';
import { postgresConfirmationStore } from '../../lib/confirmations/store';
import { approvalNotifier } from '../../lib/notifications/notify';
import { runTicker } from '../../lib/notifications/ticker';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { startMailbox, type Mailbox } from '../support/mailbox';
import { createMember, createOrgWithApp, type AppFixture } from '../support/provider-harness';

const issuer = 'https://id.notify.test';
const deps = { issuer, atRestKey: randomBytes(32) };

describe('notifications', () => {
  let database: TestDatabase;
  let mailbox: Mailbox;
  let fixture: AppFixture;
  let owners: User[];
  let member: User;
  let asker: User;
  let team: string;

  const ask = (overrides: Partial<NewApprovalRequest> = {}) =>
    createApprovalRequest(
      database.db,
      { orgId: fixture.orgId, appId: fixture.app.id, subjectUserId: asker.id, clientId: 'client-1', kind: 'sensitive_access', resource: '/ledger/2026', profile: 'read', durationSeconds: 3600, reason: 'month-end close', ...overrides },
      { type: 'person', id: asker.id },
      approvalNotifier(deps),
    );
  const policy = (input: Partial<PolicyInput>) =>
    database.db.transaction((tx) =>
      setApprovalPolicy({ tx, orgId: fixture.orgId, audit: (record) => recordAuditEvent(tx, { ...record, orgId: fixture.orgId, actor: { type: 'system' } }) }, { appId: null, kind: 'read', deciders: 'owners', quorum: 1, anyDenyEnds: true, ...input }),
    );
  const send = async () => {
    const before = mailbox.messages.length;
    await deliverDue(database.db, { mail: mailDelivery(deps.atRestKey, createMailSender({ smtpUrl: mailbox.url, from: 'Portico <no-reply@notify.test>', dataDir: '/tmp' })) }, 100);
    return mailbox.messages.slice(before);
  };
  const recipients = (mails: { to: string[] }[]) => mails.flatMap((mail) => mail.to).sort();

  beforeAll(async () => {
    [database, mailbox] = await Promise.all([openTestDatabase(), startMailbox()]);
    fixture = await createOrgWithApp(database, 'Notify');
    const tag = randomBytes(3).toString('hex');
    owners = [await createMember(database, fixture.orgId, `owner1-${tag}@notify.test`, 'owner'), await createMember(database, fixture.orgId, `owner2-${tag}@notify.test`, 'owner')];
    member = await createMember(database, fixture.orgId, `member-${tag}@notify.test`);
    asker = await createMember(database, fixture.orgId, `asker-${tag}@notify.test`);
    team = (await database.db.insert(teams).values({ orgId: fixture.orgId, name: 'Escalations' }).returning())[0]!.id;
    await database.db.insert(teamMembers).values({ teamId: team, userId: member.id });
  });
  afterAll(async () => Promise.all([database.close(), mailbox.close()]));
  beforeEach(async () => {
    await send();
    await Promise.all([database.db.delete(approvalPolicies), database.db.delete(notificationLog), database.db.delete(notificationSettings), database.db.delete(approvalRequests)]);
  });

  it('a request mails each of its deciders the link to its page, and nobody else; outside text arrives inert', async () => {
    const request = await ask({ reason: '<script>alert(1)</script> \u001b[2J \u202Egnp.exe' });
    const mails = await send();
    expect(recipients(mails)).toEqual(owners.map((owner) => owner.email).sort());
    for (const mail of mails) {
      expect(mail.subject).toBe(`read access to ${fixture.app.name}`);
      expect(mail.links).toEqual([`${issuer}/central/requests/${request.id}`]);
      expect(mail.text).toContain(`${asker.email} asks for read access to /ledger/2026 in ${fixture.app.name}.`);
      // The agent's words: quoted, their escape and bidi characters shown, never obeyed; no markup in the HTML.
      expect(mail.text).toContain('“<script>alert(1)</script> \\x1B[2J ⟨U+202E⟩gnp.exe”');
      expect(mail.text).not.toMatch(/[\u001b\u202e]/);
      expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(mail.html).not.toContain('<script>');
    }
  });

  it('a policy’s deciders are the ones mailed; the person the request is for is not, even when among them', async () => {
    await policy({ deciders: 'people', userIds: [member.id, asker.id], quorum: 1 });
    await ask();
    expect(recipients(await send())).toEqual([member.email]);
  });

  it('keeps each person’s choice, except that the only decider of a root request always hears of it', async () => {
    await database.db.insert(notificationSettings).values([{ userId: owners[0]!.id, approvalRequests: false }, { userId: member.id, approvalRequests: false }]);
    await ask();
    expect(recipients(await send())).toEqual([owners[1]!.email]);
    await policy({ kind: 'root', deciders: 'people', userIds: [member.id] });
    await ask({ kind: 'root_access', resource: undefined, profile: undefined });
    expect(recipients(await send())).toEqual([member.email]);
  });

  it('a burst becomes a digest: four single mails in ten minutes, then one mail with the rest', async () => {
    await policy({ deciders: 'people', userIds: [member.id] });
    const requests = [];
    for (let index = 0; index < 7; index += 1) requests.push(await ask({ resource: `/ledger/${index}` }));
    const singles = await send();
    expect(singles).toHaveLength(4);
    expect(await runTicker(database.db, deps, new Date(Date.now() + 60_000))).toMatchObject({ digests: 0 });
    expect(await runTicker(database.db, deps, new Date(Date.now() + 3 * 60_000))).toMatchObject({ digests: 1 });
    const [digest] = await send();
    expect(digest!.to).toEqual([member.email]);
    expect(digest!.subject).toBe('3 notices from Portico');
    expect(digest!.links).toEqual(requests.slice(4).map((request) => `${issuer}/central/requests/${request.id}`));
    expect(await runTicker(database.db, deps, new Date(Date.now() + 4 * 60_000))).toMatchObject({ digests: 0 });
  });

  it('a human confirmation mails its person; an agent’s own call, the app’s operators', async () => {
    const store = postgresConfirmationStore(database.db, issuer, { appId: fixture.app.id, orgId: async () => fixture.orgId }, deps);
    const challenge = (subject: string, actor = '') => ({
      nonceHash: randomBytes(16).toString('hex'),
      binding: { tool: 'notes.delete', subject, actor, clientId: 'client-1', argumentsDigest: 'd' },
      expiresAt: new Date(Date.now() + 300_000),
      needsHuman: true,
      riskLevel: 'approval_required' as const,
      description: 'Deletes a note <b>for good</b>',
      warning: 'Cannot be undone \u202E',
      canonicalArguments: '{}',
    });
    const { confirmationUrl } = await store.save(challenge(asker.id));
    const [mail] = await send();
    expect(mail!.to).toEqual([asker.email]);
    expect(mail!.subject).toBe(`Confirm or deny: notes.delete on ${fixture.app.name}`);
    expect(mail!.links).toEqual([confirmationUrl]);
    expect(mail!.text).toContain('“Deletes a note <b>for good</b>”');
    expect(mail!.text).toContain('⟨U+202E⟩');
    expect(mail!.html).not.toContain('<b>');

    const agent = await createAgent(database.db, { orgId: fixture.orgId, name: 'Night shift', ownerUserId: owners[0]!.id });
    await store.save(challenge(agent.id));
    const operatorMails = await send();
    expect(recipients(operatorMails)).toEqual(owners.map((owner) => owner.email).sort());
    expect(operatorMails[0]!.text).toContain('The agent Night shift, acting on its own');
    // Audited, so that webhooks hear of it too.
    expect(await database.db.select({ n: count() }).from(auditEvents).where(eq(auditEvents.action, 'confirmation.requested'))).toEqual([{ n: 2 }]);
  });

  it('escalates once at its time, to the policy’s group, whichever instances tick', async () => {
    await policy({ deciders: 'owners', escalateAfterMinutes: 5, escalateTo: 'team', escalateTeamId: team });
    const request = await ask();
    await send();
    const created = request.createdAt.getTime();
    expect(await runTicker(database.db, deps, new Date(created + 4 * 60_000))).toMatchObject({ escalated: 0 });
    const at = new Date(created + 6 * 60_000);
    const reports = await Promise.all([runTicker(database.db, deps, at), runTicker(database.db, deps, at)]);
    expect(reports[0]!.escalated + reports[1]!.escalated).toBe(1);
    const mails = await send();
    expect(recipients(mails)).toEqual([member.email]);
    expect(mails[0]!.subject).toBe(`Escalated to you: read access to ${fixture.app.name}`);
    expect(await database.db.select({ n: count() }).from(auditEvents).where(and(eq(auditEvents.action, 'approval.escalated'), eq(auditEvents.subjectId, request.id)))).toEqual([{ n: 1 }]);
    expect((await runTicker(database.db, deps, new Date(created + 7 * 60_000))).escalated).toBe(0);
  });

  it('reminds those who have not decided once, then ends the request as expired without a grant', async () => {
    await policy({ deciders: 'owners', quorum: 2 });
    const request = await ask();
    await send();
    // One owner approved: the reminder goes to the other only.
    await decideApprovalRequest(database.db, { requestId: request.id, decision: 'approve', fingerprint: request.fingerprint, channel: 'central', decidedBy: owners[0]!.id, actor: { type: 'person', id: owners[0]!.id } });
    const expiry = request.expiresAt.getTime();
    expect(await runTicker(database.db, deps, new Date(expiry - 5 * 60_000))).toMatchObject({ reminded: 1, expired: 0 });
    const reminders = await send();
    expect(recipients(reminders)).toEqual([owners[1]!.email]);
    expect(reminders[0]!.subject).toBe(`Waiting for your decision: read access to ${fixture.app.name}`);
    expect(await runTicker(database.db, deps, new Date(expiry - 4 * 60_000))).toMatchObject({ reminded: 0 });

    const reports = await Promise.all([runTicker(database.db, deps, new Date(expiry + 1000)), runTicker(database.db, deps, new Date(expiry + 1000))]);
    expect(reports[0]!.expired + reports[1]!.expired).toBe(1);
    const [expired] = await database.db.select().from(approvalRequests).where(eq(approvalRequests.id, request.id));
    expect(expired).toMatchObject({ state: 'expired', decidedBy: 'expiry' });
    expect(await database.db.select().from(approvalGrants).where(eq(approvalGrants.requestId, request.id))).toEqual([]);
    expect(await database.db.select({ n: count() }).from(auditEvents).where(and(eq(auditEvents.action, 'approval.expired'), eq(auditEvents.subjectId, request.id)))).toEqual([{ n: 1 }]);
  });

  it('keeps the delivery log and the notice log for 30 days, then clears them', async () => {
    await ask();
    await send();
    const old = new Date(Date.now() + 31 * 86400_000);
    expect((await database.db.select({ n: count() }).from(notificationLog))[0]!.n).toBeGreaterThan(0);
    expect((await runTicker(database.db, deps, new Date(Date.now() + 29 * 86400_000))).purged).toBe(0);
    expect((await runTicker(database.db, deps, old)).purged).toBeGreaterThan(0);
    expect(await database.db.select({ n: count() }).from(notificationLog)).toEqual([{ n: 0 }]);
  });

  it('records an unanswered confirmation as expired once, and only then lets it be purged', async () => {
    await database.db.delete(confirmationChallenges);
    const store = postgresConfirmationStore(database.db, issuer, { appId: fixture.app.id, orgId: async () => fixture.orgId }, deps);
    const expiresAt = new Date(Date.now() + 300_000);
    await store.save({ nonceHash: randomBytes(16).toString('hex'), binding: { tool: 'notes.delete', subject: asker.id, actor: '', clientId: 'c', argumentsDigest: 'd' }, expiresAt, needsHuman: true, riskLevel: 'approval_required', description: 'Deletes', canonicalArguments: '{}' });
    const later = new Date(expiresAt.getTime() + 1000);
    expect(await store.purgeExpired(later)).toBe(0);
    const [saved] = await database.db.select().from(confirmationChallenges);
    expect(await runTicker(database.db, deps, later)).toMatchObject({ confirmationsExpired: 1 });
    expect(await runTicker(database.db, deps, later)).toMatchObject({ confirmationsExpired: 0 });
    expect(await database.db.select({ n: count() }).from(auditEvents).where(and(eq(auditEvents.action, 'confirmation.expired'), eq(auditEvents.subjectId, saved!.id)))).toEqual([{ n: 1 }]);
    // Its expiry recorded, it is no longer needed: the same round's sweep took it (lib/notifications/sweeper.ts).
    expect(await store.purgeExpired(later)).toBe(0);
    expect(await database.db.select().from(confirmationChallenges).where(sql`true`)).toEqual([]);
    expect(await database.db.select({ n: count() }).from(outboundDeliveries).where(eq(outboundDeliveries.channel, 'webhook'))).toEqual([{ n: 0 }]);
  });
});
