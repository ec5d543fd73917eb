// The approval broker against real PostgreSQL: requests through Portico's MCP tools with every contract field, the
// state machine seen by the subject only, queue limits under concurrency, one grant per request whatever races,
// and nothing written by a refused decision.
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../lib/accounts/users';
import {
  approvalStatusFor,
  cancelApprovalRequest,
  createApprovalRequest,
  decideApprovalRequest,
  findActiveGrant,
  MAX_PENDING_PER_INSTALLATION,
  MAX_PENDING_PER_SUBJECT,
  revokeApprovalGrant,
  type NewApprovalRequest,
} from '../../lib/approvals/broker';
import type { AuditActor } from '../../lib/audit/events';
import { approvalGrants, approvalRequests, auditEvents, memberships } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { porticoApiToken, startMcpInstance, type McpInstance } from '../support/portico-mcp';
import { createMember, createOrgWithApp, startProviderHarness, type AppFixture, type Harness } from '../support/provider-harness';

const operator: AuditActor = { type: 'operator_cli', label: 'cli:test@host' };
const text = (result: unknown) => ((result as { content: { type: string; text: string }[] }).content[0]?.text ?? '');

describe('the approval broker', () => {
  let database: TestDatabase;
  let harness: Harness;
  let fixture: AppFixture;
  let person: User;
  let other: User;
  let owner: User;
  let instance: McpInstance;

  const request = (overrides: Partial<NewApprovalRequest> = {}) =>
    createApprovalRequest(
      database.db,
      { orgId: fixture.orgId, appId: fixture.app.id, subjectUserId: person.id, clientId: 'client-1', kind: 'sensitive_access', resource: '/finance/2026', profile: 'read', durationSeconds: 3600, reason: 'quarterly report', ...overrides },
      { type: 'person', id: overrides.subjectUserId ?? person.id },
    );
  const approve = (requestId: string, fingerprint: string, channel: 'central' | 'cli' = 'cli') =>
    // The central's decisions are a decider's (an owner here: their vote counts only while they may decide); the CLI's are the operator's.
    decideApprovalRequest(database.db, { requestId, decision: 'approve', fingerprint, channel, decidedBy: channel === 'central' ? owner.id : 'cli:test', actor: operator });

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    fixture = await createOrgWithApp(database, 'Approvals');
    person = await createMember(database, fixture.orgId, `asker-${randomBytes(3).toString('hex')}@approvals.test`);
    other = await createMember(database, fixture.orgId, `other-${randomBytes(3).toString('hex')}@approvals.test`);
    owner = await createMember(database, fixture.orgId, `owner-${randomBytes(3).toString('hex')}@approvals.test`, 'owner');
    instance = await startMcpInstance(database, harness);
  });
  afterAll(async () => {
    await instance?.close();
    await harness?.close();
    await database?.close();
  });

  it('takes a request through MCP and answers every contract field, never an approval', async () => {
    const token = await porticoApiToken(harness, database, person.email);
    const client = new Client({ name: 'approvals-test', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(instance.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const org = (await database.db.query.organizations.findFirst({ where: (row, { eq: equals }) => equals(row.id, fixture.orgId) }))!.slug;
    const answer = text(await client.callTool({ name: 'permissions.request_sensitive_access', arguments: { org, app: fixture.app.slug, resource: '/finance/2026', profile: 'read', duration_seconds: 3600, reason: 'quarterly report' } }));
    for (const field of ['approval_contract_version=1', 'approval_channel=central', 'operator_approval_url=', 'client_capabilities=', 'operator_authentication_required=true', 'operator_cli=', 'status_tool=permissions.approval_status', 'cancel_tool=permissions.cancel_approval', 'retry_after_seconds=3']) {
      expect(answer).toContain(field);
    }
    expect(answer).toContain('"elicitation"');
    const root = text(await client.callTool({ name: 'permissions.request_root_access', arguments: { org, app: fixture.app.slug, reason: 'reindex' } }));
    expect(root).toContain('approval_channel=cli');
    expect(root).not.toContain('operator_approval_url');
    expect(answer).not.toMatch(/confirm_|token=/);
    const requestId = /request_id=(apr_[A-Za-z0-9_-]+)/.exec(answer)![1]!;
    expect(text(await client.callTool({ name: 'permissions.approval_status', arguments: { request_id: requestId } }))).toContain('status=pending');

    // Nothing the client sends can approve: only the broker's decision does.
    const stored = (await database.db.select().from(approvalRequests).where(eq(approvalRequests.id, requestId)))[0]!;
    await approve(requestId, stored.fingerprint);
    const approved = text(await client.callTool({ name: 'permissions.approval_status', arguments: { request_id: requestId } }));
    expect(approved).toContain('status=approved');
    expect(approved).toContain('grant_expires_at=');
    await client.close();
  });

  it('shows a request to its own subject only', async () => {
    const created = await request();
    expect((await approvalStatusFor(database.db, created.id, person.id)).status).toBe('pending');
    expect((await approvalStatusFor(database.db, created.id, other.id)).status).toBe('unknown');
    expect((await approvalStatusFor(database.db, 'apr_not-a-request', person.id)).status).toBe('unknown');
  });

  it('walks every end: denied, cancelled, request expired, grant revoked, grant expired', async () => {
    const denied = await request();
    await decideApprovalRequest(database.db, { requestId: denied.id, decision: 'deny', fingerprint: denied.fingerprint, channel: 'central', decidedBy: owner.id, actor: operator });
    expect((await approvalStatusFor(database.db, denied.id, person.id)).status).toBe('denied');

    const cancelled = await request();
    await expect(cancelApprovalRequest(database.db, cancelled.id, other.id, operator)).rejects.toThrow(/no such request/);
    await cancelApprovalRequest(database.db, cancelled.id, person.id, operator);
    expect((await approvalStatusFor(database.db, cancelled.id, person.id)).status).toBe('cancelled');
    await expect(approve(cancelled.id, cancelled.fingerprint)).rejects.toThrow(/cancelled already/);

    const expired = await request();
    await database.db.update(approvalRequests).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(approvalRequests.id, expired.id));
    expect((await approvalStatusFor(database.db, expired.id, person.id)).status).toBe('request_expired');
    await expect(approve(expired.id, expired.fingerprint)).rejects.toThrow(/expired/);

    const revoked = await request();
    const { grant } = await approve(revoked.id, revoked.fingerprint, 'central');
    await revokeApprovalGrant(database.db, grant!.id, 'cli:test', operator);
    expect((await approvalStatusFor(database.db, revoked.id, person.id)).status).toBe('grant_revoked');
    await expect(revokeApprovalGrant(database.db, grant!.id, 'cli:test', operator)).rejects.toThrow(/revoked already/);

    const lapsed = await request();
    const lapsedGrant = (await approve(lapsed.id, lapsed.fingerprint)).grant!;
    await database.db.update(approvalGrants).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(approvalGrants.id, lapsedGrant.id));
    expect((await approvalStatusFor(database.db, lapsed.id, person.id)).status).toBe('grant_expired');
  });

  it('refuses a decision on a changed fingerprint, and permanent, broad or elevated requests in the central; nothing is written', async () => {
    const before = await database.db.select({ n: count() }).from(auditEvents);
    const specific = await request();
    await expect(approve(specific.id, `${specific.fingerprint}x`)).rejects.toThrow(/not the one that was shown/);
    for (const overrides of [{ durationSeconds: null }, { resource: '/' }, { resource: '/finance/*' }, { kind: 'root_access' as const, resource: undefined, profile: undefined }, { durationSeconds: 9 * 3600 }]) {
      const ineligible = await request(overrides);
      expect(ineligible.centralEligible).toBe(false);
      await expect(approve(ineligible.id, ineligible.fingerprint, 'central')).rejects.toThrow(/CLI only/);
    }
    // The requests were written (and audited); no decision and no grant was.
    const after = await database.db.select({ n: count() }).from(auditEvents);
    expect(after[0]!.n - before[0]!.n).toBe(6);
    expect(await database.db.select().from(approvalGrants).where(eq(approvalGrants.requestId, specific.id))).toEqual([]);
    // The CLI may grant the permanent one.
    const permanent = await request({ durationSeconds: null });
    expect((await approve(permanent.id, permanent.fingerprint, 'cli')).grant?.expiresAt).toBeNull();
  });

  it('answers the grant check for the same app, subject, agent and profile, on the granted path or below, while active', async () => {
    const asked = await request({ actor: 'agt_checker_0000000000001', resource: '/vault/2026' });
    const { grant } = await approve(asked.id, asked.fingerprint);
    const query = { appId: fixture.app.id, subjectUserId: person.id, actor: 'agt_checker_0000000000001', kind: 'sensitive_access' as const, profile: 'read' as const };
    expect((await findActiveGrant(database.db, { ...query, resource: '/vault/2026' }))?.id).toBe(grant!.id);
    expect((await findActiveGrant(database.db, { ...query, resource: '/vault/2026/q1.pdf' }))?.id).toBe(grant!.id);
    for (const mismatch of [{ resource: '/vault/2026x' }, { resource: '/vault' }, { resource: '/vault/2026/../2027' }, { resource: '/vault/2026', profile: 'work' as const }, { resource: '/vault/2026', actor: '' }, { resource: '/vault/2026', subjectUserId: other.id }]) {
      expect(await findActiveGrant(database.db, { ...query, ...mismatch }), JSON.stringify(mismatch)).toBeUndefined();
    }
    await revokeApprovalGrant(database.db, grant!.id, 'cli:test', operator);
    expect(await findActiveGrant(database.db, { ...query, resource: '/vault/2026' })).toBeUndefined();
  });

  it('grants once when 50 approvals of one request race', async () => {
    const raced = await request();
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, () => approve(raced.id, raced.fingerprint, 'central')));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled').length).toBe(1);
    const [{ n }] = (await database.db.select({ n: count() }).from(approvalGrants).where(eq(approvalGrants.requestId, raced.id))) as [{ n: number }];
    expect(n).toBe(1);
    const decisions = await database.db.select().from(auditEvents).where(sql`${auditEvents.subjectId} = ${raced.id} and ${auditEvents.action} = 'approval.approved'`);
    expect(decisions).toHaveLength(1);
  });

  it('keeps at most 64 pending requests a subject when 300 arrive at once; a cancellation frees a place', async () => {
    const asker = await createMember(database, fixture.orgId, `flood-${randomBytes(3).toString('hex')}@approvals.test`);
    const outcomes = await Promise.allSettled(Array.from({ length: 300 }, () => request({ subjectUserId: asker.id })));
    const created = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(created.length).toBe(MAX_PENDING_PER_SUBJECT);
    const refusal = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(String(refusal.reason)).toContain('64 pending requests');
    const [{ n }] = (await database.db.select({ n: count() }).from(approvalRequests).where(sql`${approvalRequests.subjectUserId} = ${asker.id} and ${approvalRequests.state} = 'pending'`)) as [{ n: number }];
    expect(n).toBe(MAX_PENDING_PER_SUBJECT);
    await cancelApprovalRequest(database.db, (created[0] as PromiseFulfilledResult<{ id: string }>).value.id, asker.id, operator);
    await expect(request({ subjectUserId: asker.id })).resolves.toMatchObject({ state: 'pending' });
    await expect(request({ subjectUserId: asker.id })).rejects.toThrow(/64 pending/);
  }, 120_000);

  it('keeps at most 256 pending requests an installation, across subjects', async () => {
    const busy = await createOrgWithApp(database, 'Busy');
    const askers = await Promise.all([0, 1, 2, 3, 4].map((n) => createMember(database, busy.orgId, `busy-${n}-${randomBytes(3).toString('hex')}@approvals.test`)));
    const ask = (subjectUserId: string) => request({ orgId: busy.orgId, appId: busy.app.id, subjectUserId });
    for (const asker of askers.slice(0, 4)) await Promise.all(Array.from({ length: MAX_PENDING_PER_SUBJECT }, () => ask(asker.id)));
    // The fifth person has nothing pending, but the app has 256: refused.
    await expect(ask(askers[4]!.id)).rejects.toThrow(/this app has 256 pending/);
    const [{ n }] = (await database.db.select({ n: count() }).from(approvalRequests).where(eq(approvalRequests.appId, busy.app.id))) as [{ n: number }];
    expect(n).toBe(MAX_PENDING_PER_INSTALLATION);
  }, 120_000);

  it('counts nothing for a person who left the organization: no decision on their request, no grant', async () => {
    const leaver = await createMember(database, fixture.orgId, `leaver-${randomBytes(3).toString('hex')}@approvals.test`);
    const granted = await request({ subjectUserId: leaver.id, resource: '/leaver/granted' });
    const { grant } = await approve(granted.id, granted.fingerprint);
    const pending = await request({ subjectUserId: leaver.id, resource: '/leaver/pending' });
    const query = { appId: fixture.app.id, subjectUserId: leaver.id, actor: '', kind: 'sensitive_access' as const, profile: 'read' as const, resource: '/leaver/granted' };
    expect((await findActiveGrant(database.db, query))?.id).toBe(grant!.id);
    await database.db.delete(memberships).where(and(eq(memberships.orgId, fixture.orgId), eq(memberships.userId, leaver.id)));
    expect(await findActiveGrant(database.db, query)).toBeUndefined();
    await expect(approve(pending.id, pending.fingerprint)).rejects.toThrow(/no longer an enabled member/);
  });
});
