// Webhooks: an organization's events reach its endpoints signed per Standard Webhooks, verified here by the
// standardwebhooks library (not Portico's code), from the one outbound outbox over a real HTTPS receiver — retried
// when the receiver fails, delivered once across instances, never to a private address.
import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { addMember } from '../../lib/organizations/memberships';
import type { OrgOperationContext } from '../../lib/organizations/org-operation';
import { createOrganization } from '../../lib/organizations/organizations';
import { createUser, type User } from '../../lib/accounts/users';
import { recordAuditEvent } from '../../lib/audit/events';
import { drizzleFor, openRawDatabase, rowsOf, type Database } from '../../lib/db/client';
import { auditEvents, outboundDeliveries, webhookEndpoints } from '../../lib/db/schema';
import { deliverDue, makeDueNow, MAX_DELIVERY_ATTEMPTS } from '../../lib/deliveries/outbox';
import type { OutboundPolicy } from '../../lib/http/outbound';
import { WEBHOOK_EVENT_TYPES } from '../../lib/webhooks/events';
import { webhookDelivery } from '../../lib/deliveries/channels/webhook';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  displayUrlOf,
  redeliverWebhook,
  rotateWebhookSecret,
  MANUAL_DELIVERIES_PER_ORG,
  sendWebhookTest,
  updateWebhookEndpoint,
  type WebhookInput,
} from '../../lib/webhooks/webhook-commands';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const atRestKey = randomBytes(32);
const loopback: OutboundPolicy = { allowLoopback: true };

describe('webhooks', () => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  let orgId: string;
  let otherOrgId: string;
  let owner: User;

  beforeAll(async () => {
    [database, receiver] = await Promise.all([openTestDatabase(), startWebhookReceiver(inject('tlsDir'))]);
    orgId = (await createOrganization(database.db, { slug: 'hooks', name: 'Hooks & <Co>' })).id;
    otherOrgId = (await createOrganization(database.db, { slug: 'elsewhere', name: 'Elsewhere' })).id;
    owner = await createUser(database.db, { email: 'owner@hooks.test', name: 'Owner', passwordHash: null });
    await addMember(database.db, { orgId, userId: owner.id, role: 'owner' });
  });
  afterAll(async () => Promise.all([database.close(), receiver.close()]));
  beforeEach(async () => {
    await database.db.delete(webhookEndpoints);
    receiver.received.length = 0;
  });

  /** The organization-operation context a door would give: the transaction and the one audit event. */
  function inOrg<T>(work: (ctx: Pick<OrgOperationContext, 'tx' | 'audit'> & { orgId: string }) => Promise<T>, org = orgId): Promise<T> {
    return database.db.transaction((tx) =>
      work({ tx, orgId: org, audit: (record) => recordAuditEvent(tx, { ...record, orgId: org, actor: { type: 'person', id: owner.id, label: owner.email } }) }),
    );
  }

  const endpoint = (input: Partial<WebhookInput> = {}, policy = loopback) =>
    inOrg((ctx) => createWebhookEndpoint(ctx, { atRestKey, outbound: policy }, { url: `${receiver.origin}/portico`, format: 'standard', description: 'ops', events: ['member.*', 'approval.requested'], ...input }));

  const deliver = (db: Database = database.db, policy = loopback, now?: () => Date) => deliverDue(db, { webhook: webhookDelivery({ db: () => db, atRestKey, outbound: policy, now }) });

  const memberAdded = (org = orgId, db: Database = database.db) =>
    recordAuditEvent(db, { orgId: org, actor: { type: 'person', id: owner.id, label: owner.email, ip: '198.51.100.7' }, action: 'member.added', subject: { type: 'person', id: 'u-1', label: 'grace@hooks.test' }, details: { role: 'member' } });

  it('signs each event per Standard Webhooks; the secret is shown once and neither it nor the URL is stored in clear', async () => {
    const { endpoint: created, secret } = await endpoint({ url: `${receiver.origin}/portico?token=abc` });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const [row] = await database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    expect(JSON.stringify(row)).not.toContain('token=abc');
    expect(row!.displayUrl).toBe(`${receiver.origin}/portico`);
    // Only the path's first segment is ever shown: the rest may be a capability.
    expect(displayUrlOf(new URL('https://hooks.example.com/in/T0/B0/SECRET?x=1'), 'standard')).toBe('https://hooks.example.com/in/…');

    await memberAdded();
    expect(await deliver()).toEqual({ sent: 1, retrying: 0, failed: 0 });
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request!.path).toBe('/portico?token=abc');
    expect(request!.headers['content-type']).toBe('application/json');
    const event = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
    expect(event.type).toBe('member.added');
    expect(event.data).toMatchObject({ action: 'member.added', organization_id: orgId, actor: { type: 'person', id: owner.id, label: owner.email }, subject: { type: 'person', id: 'u-1', label: 'grace@hooks.test' }, details: { role: 'member' } });
    // The audit keeps the client address; the webhook does not carry it.
    expect(request!.body).not.toContain('198.51.100.7');
    // Another secret, or a changed body, does not verify: the check above could fail.
    expect(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(request!.body, request!.headers as Record<string, string>)).toThrow();
    expect(() => new Webhook(secret).verify(request!.body.replace('member.added', 'member.removed'), request!.headers as Record<string, string>)).toThrow();
    // The delivery log keeps the status.
    const [logged] = await database.db.select().from(outboundDeliveries).where(eq(outboundDeliveries.endpointId, created.id));
    expect(logged).toMatchObject({ lastStatus: 204, attempts: 1, eventType: 'member.added' });
    expect(logged!.deliveredAt).not.toBeNull();
  });

  it('sends only what an endpoint subscribed to, of its own organization, and nothing of a change that rolled back', async () => {
    await endpoint({ events: ['approval.requested'] });
    await memberAdded();
    await memberAdded(otherOrgId);
    await database.db
      .transaction(async (tx) => {
        await recordAuditEvent(tx, { orgId, actor: { type: 'system' }, action: 'approval.requested', subject: { type: 'approval_request', id: 'apr_rolled_back' } });
        throw new Error('rollback');
      })
      .catch(() => {});
    await recordAuditEvent(database.db, { orgId, actor: { type: 'system' }, action: 'approval.requested', subject: { type: 'approval_request', id: 'apr_kept' } });
    await deliver();
    expect(receiver.received.map((request) => JSON.parse(request.body).data.subject.id)).toEqual(['apr_kept']);
  });

  it('a person’s own security event reaches the organizations they belong to, and no other', async () => {
    const { secret } = await endpoint({ events: ['security.*'] });
    await inOrg(async (ctx) => createWebhookEndpoint(ctx, { atRestKey, outbound: loopback }, { url: `${receiver.origin}/other`, format: 'standard', description: '', events: ['*'] }), otherOrgId);
    await recordAuditEvent(database.db, { orgId: null, actor: { type: 'person', id: owner.id, label: owner.email }, action: 'second_factor.removed', subject: { type: 'person', id: owner.id, label: owner.email }, details: { kind: 'totp' } });
    await deliver();
    expect(receiver.received.map((request) => request.path)).toEqual(['/portico']);
    expect(new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers as Record<string, string>)).toMatchObject({ type: 'security.second_factor_removed' });
  });

  it('retries a failing receiver with backoff; the later success delivers once, with the same webhook-id', async () => {
    const { secret } = await endpoint();
    receiver.failNext(500, 503);
    await memberAdded();
    expect(await deliver()).toEqual({ sent: 0, retrying: 1, failed: 0 });
    const [waiting] = await database.db.select().from(outboundDeliveries).where(eq(outboundDeliveries.channel, 'webhook'));
    expect(waiting).toMatchObject({ attempts: 1, lastStatus: 500, lastError: 'the receiver answered 500' });
    // Not due yet: the backoff holds it back.
    expect(await deliver()).toEqual({ sent: 0, retrying: 0, failed: 0 });
    await makeDueNow(database.db, 'webhook');
    expect(await deliver()).toEqual({ sent: 0, retrying: 1, failed: 0 });
    await makeDueNow(database.db, 'webhook');
    expect(await deliver()).toEqual({ sent: 1, retrying: 0, failed: 0 });
    await makeDueNow(database.db, 'webhook');
    expect(await deliver()).toEqual({ sent: 0, retrying: 0, failed: 0 });
    expect(receiver.received.map((request) => request.status)).toEqual([500, 503, 204]);
    expect(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size).toBe(1);
    for (const request of receiver.received) new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
  });

  it('gives up after the last attempt, keeps the event for a redelivery with the same webhook-id, and does not double one still waiting', async () => {
    await endpoint();
    receiver.failNext(410);
    await memberAdded();
    await database.db.update(outboundDeliveries).set({ attempts: MAX_DELIVERY_ATTEMPTS - 1 });
    expect(await deliver()).toEqual({ sent: 0, retrying: 0, failed: 1 });
    const [failed] = await database.db.select().from(outboundDeliveries).where(eq(outboundDeliveries.channel, 'webhook'));
    expect(failed!.failedAt).not.toBeNull();
    expect(failed!.payload).toMatchObject({ type: 'member.added' });

    const copy = await inOrg((ctx) => redeliverWebhook(ctx, failed!.id));
    await expect(inOrg((ctx) => redeliverWebhook(ctx, copy))).rejects.toMatchObject({ code: 'still_waiting' });
    await expect(inOrg((ctx) => redeliverWebhook(ctx, failed!.id), otherOrgId)).rejects.toMatchObject({ code: 'not_found' });
    expect(await deliver()).toEqual({ sent: 1, retrying: 0, failed: 0 });
    expect(receiver.received.map((request) => request.headers['webhook-id'])).toEqual([failed!.messageId, failed!.messageId]);
    expect(await database.db.select({ n: sql<number>`count(*)::int` }).from(auditEvents).where(eq(auditEvents.action, 'webhook.redelivered'))).toEqual([{ n: 1 }]);
  });

  it('two instances draining the outbox at once deliver each event once', async () => {
    await endpoint();
    for (let index = 0; index < 12; index += 1) await memberAdded();
    // A second connection pool, as another instance has (PGlite has one connection: two dispatchers on it still race).
    const second = database.url ? await openRawDatabase({ databaseUrl: database.url, poolSize: 4 }) : undefined;
    try {
      const other = second ? drizzleFor(second) : database.db;
      const reports = await Promise.all([deliver(database.db), deliver(other), deliver(database.db), deliver(other)]);
      expect(reports.reduce((sum, report) => sum + report.sent, 0)).toBe(12);
    } finally {
      await second?.close();
    }
    const ids = receiver.received.map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
  });

  it('refuses an endpoint on a private or special address before connecting, at creation and at each delivery', async () => {
    for (const url of ['https://10.1.2.3/hook', 'https://169.254.169.254/latest', 'https://[::1]/hook', 'https://localhost/hook']) {
      await expect(endpoint({ url }, { allowLoopback: false })).rejects.toMatchObject({ code: 'invalid_url' });
    }
    const internal: OutboundPolicy = { allowLoopback: false, resolve: async () => [{ address: '10.20.30.40', family: 4 }] };
    await expect(endpoint({ url: 'https://hooks.internal.example/x' }, internal)).rejects.toMatchObject({ code: 'invalid_url' });
    await expect(endpoint({ url: 'http://hooks.example.com/x' })).rejects.toMatchObject({ code: 'invalid_url' });
    await expect(endpoint({ url: 'https://user:pw@hooks.example.com/x' })).rejects.toMatchObject({ code: 'invalid_url' });
    expect(await database.db.select().from(webhookEndpoints)).toEqual([]);

    // Saved while it resolved to the receiver; then the name moves to a private address: the delivery is refused
    // before any connection, and the receiver hears nothing.
    await endpoint();
    await memberAdded();
    expect(await deliver(database.db, { allowLoopback: false })).toEqual({ sent: 0, retrying: 1, failed: 0 });
    const [refused] = await database.db.select().from(outboundDeliveries).where(eq(outboundDeliveries.channel, 'webhook'));
    expect(refused!.lastError).toBe('the address is not a public internet address');
    expect(receiver.received).toEqual([]);
  });

  it('reaches an address the installation names one by one (PORTICO_OUTBOUND_ALLOWED_NETWORKS), and no wider network opens loopback', async () => {
    // The receiver listens on 127.0.0.1, and loopback is otherwise closed (no development switch).
    const url = `https://127.0.0.1:${new URL(receiver.origin).port}/portico`;
    const named: OutboundPolicy = { allowLoopback: false, allowedNetworks: { networks: ['127.0.0.1/32'], hosts: [] } };
    const wide: OutboundPolicy = { allowLoopback: false, allowedNetworks: { networks: ['127.0.0.0/8', '10.0.0.0/8'], hosts: ['localhost'] } };
    await expect(endpoint({ url }, wide)).rejects.toMatchObject({ code: 'invalid_url' });
    await expect(endpoint({ url: 'https://10.1.2.3/hook' }, { allowLoopback: false })).rejects.toMatchObject({ code: 'invalid_url', message: expect.stringContaining('PORTICO_OUTBOUND_ALLOWED_NETWORKS') });
    await endpoint({ url }, named);
    await memberAdded();
    expect(await deliver(database.db, named)).toEqual({ sent: 1, retrying: 0, failed: 0 });
    expect(receiver.received.map((request) => request.path)).toEqual(['/portico']);
    // The same endpoint under a policy that no longer names it: refused before connecting.
    await memberAdded();
    expect(await deliver(database.db, wide)).toEqual({ sent: 0, retrying: 1, failed: 0 });
    expect(receiver.received).toHaveLength(1);
  });

  it('a rotation signs with both secrets during the overlap, then with the new one only', async () => {
    const { endpoint: created, secret: old } = await endpoint();
    const { secret: fresh, previousValidUntil } = await inOrg((ctx) => rotateWebhookSecret(ctx, { atRestKey, outbound: loopback }, created.id, 1));
    await memberAdded();
    await deliver();
    const during = receiver.received.at(-1)!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    new Webhook(old).verify(during.body, during.headers as Record<string, string>);
    new Webhook(fresh).verify(during.body, during.headers as Record<string, string>);

    await memberAdded();
    // The signature's clock is past the overlap (the receiver's verifier is told the same time).
    const later = new Date(previousValidUntil!.getTime() + 1000);
    await deliver(database.db, loopback, () => later);
    const after = receiver.received.at(-1)!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(Number(after.headers['webhook-timestamp'])).toBe(Math.floor(later.getTime() / 1000));
    expect(() => new Webhook(old).verify(after.body, { ...(after.headers as Record<string, string>), 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) })).toThrow();
  });

  it('a Slack-compatible endpoint gets one line of text, its outside words made inert; its URL is never shown', async () => {
    const { endpoint: created } = await endpoint({ format: 'slack', url: `${receiver.origin}/services/T000/B000/XXXXSECRET`, events: ['*'] });
    expect(created.displayUrl).toBe(`${receiver.origin}/…`);
    await recordAuditEvent(database.db, { orgId, actor: { type: 'person', id: owner.id, label: '<!channel> \u202Eevil' }, action: 'member.removed', subject: { type: 'person', id: 'u-2', label: 'a&b@hooks.test' } });
    await deliver();
    const body = JSON.parse(receiver.received[0]!.body) as { text: string };
    expect(Object.keys(body)).toEqual(['text']);
    expect(body.text).toContain('[Hooks &amp; &lt;Co&gt;] member.removed by &lt;!channel&gt; ⟨U+202E⟩evil on person a&amp;b@hooks.test');
    expect(receiver.received[0]!.path).toBe('/services/T000/B000/XXXXSECRET');
  });

  it('a turned-off endpoint receives nothing but the test event; a deleted one takes its log with it', async () => {
    const { endpoint: created, secret } = await endpoint();
    await inOrg((ctx) => updateWebhookEndpoint(ctx, created.id, { enabled: false }));
    await memberAdded();
    const messageId = await inOrg((ctx) => sendWebhookTest(ctx, created.id));
    await deliver();
    expect(receiver.received).toHaveLength(1);
    expect(new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });
    expect(receiver.received[0]!.headers['webhook-id']).toBe(messageId);
    // Other organizations cannot touch it.
    await expect(inOrg((ctx) => deleteWebhookEndpoint(ctx, created.id), otherOrgId)).rejects.toMatchObject({ code: 'not_found' });
    await inOrg((ctx) => deleteWebhookEndpoint(ctx, created.id));
    expect(await database.db.select().from(outboundDeliveries).where(and(eq(outboundDeliveries.channel, 'webhook'), eq(outboundDeliveries.orgId, orgId)))).toEqual([]);
  });

  it('limits the test events and redeliveries an organization queues by hand (the outbox is shared with mail)', async () => {
    await database.db.execute(sql`delete from rate_limits`);
    const { endpoint: created } = await endpoint();
    for (let index = 0; index < MANUAL_DELIVERIES_PER_ORG.limit; index += 1) await inOrg((ctx) => sendWebhookTest(ctx, created.id));
    await expect(inOrg((ctx) => sendWebhookTest(ctx, created.id))).rejects.toMatchObject({ code: 'rate_limited' });
    // Another organization's budget is its own.
    const { endpoint: theirs } = await inOrg((ctx) => createWebhookEndpoint(ctx, { atRestKey, outbound: loopback }, { url: `${receiver.origin}/theirs`, format: 'standard', description: '', events: ['*'] }), otherOrgId);
    await inOrg((ctx) => sendWebhookTest(ctx, theirs.id), otherOrgId);
    await database.db.execute(sql`delete from rate_limits`);
  });

  it('refuses unknown events, an empty subscription and an overlong description, and writes nothing', async () => {
    await expect(endpoint({ events: ['approval.requested', 'nonsense.happened'] })).rejects.toMatchObject({ code: 'invalid_events' });
    await expect(endpoint({ events: [] })).rejects.toMatchObject({ code: 'invalid_events' });
    await expect(endpoint({ description: 'x'.repeat(201) })).rejects.toMatchObject({ code: 'invalid_description' });
    expect(await database.db.select().from(webhookEndpoints)).toEqual([]);
  });

  it('the database’s mapping of audit actions and the named event types agree', async () => {
    const expected: Record<string, string | null> = {
      'approval.requested': 'approval.requested',
      'approval.approved': 'approval.decided',
      'approval.denied': 'approval.decided',
      'approval.cancelled': 'approval.decided',
      'approval.expired': 'approval.expired',
      'approval.escalated': 'approval.escalated',
      'approval.grant_revoked': 'approval.grant_revoked',
      'mcp.tool_challenge_issued': null,
      'confirmation.requested': 'confirmation.requested',
      'mcp.tool_confirmed': 'confirmation.confirmed',
      'mcp.tool_denied': 'confirmation.denied',
      'confirmation.expired': 'confirmation.expired',
      'member.added': 'member.added',
      'member.removed': 'member.removed',
      'member.role_changed': 'member.role_changed',
      'invitation.sent': 'member.invitation_sent',
      'invitation.resent': 'member.invitation_resent',
      'invitation.accepted': 'member.invitation_accepted',
      'invitation.revoked': 'member.invitation_revoked',
      'second_factor.enrolled': 'security.second_factor_enrolled',
      'second_factor.removed': 'security.second_factor_removed',
      'second_factor.recovery_codes_replaced': 'security.second_factor_recovery_codes_replaced',
      'password.changed': 'security.password_changed',
      'password.set_up': 'security.password_set_up',
      'password.reset_requested': 'security.password_reset_requested',
      'password.reset_link_sent': 'security.password_reset_link_sent',
      'password.reset_completed': 'security.password_reset_completed',
      'password.reset_link_issued': 'security.password_reset_link_issued',
      'person.signed_out_everywhere': 'security.person_signed_out_everywhere',
      'person.session_ended': 'security.person_session_ended',
      'org.second_factor_policy_updated': 'security.org_second_factor_policy_updated',
      'client.revoked': 'security.client_revoked',
      'org.domain_added': 'security.org_domain_added',
      'org.domain_verified': 'security.org_domain_verified',
      'org.domain_removed': 'security.org_domain_removed',
      'org.domain_checked': null,
      'app.created': 'app.created',
      'gateway.server_added': 'gateway.server_added',
      'gateway.server_removed': 'gateway.server_removed',
      'gateway.server_disabled': 'gateway.server_disabled',
      'gateway.server_enabled': 'gateway.server_enabled',
      'gateway.tool_added': 'gateway.tool_added',
      'gateway.tool_changed': 'gateway.tool_changed',
      'gateway.tool_removed': 'gateway.tool_removed',
      'gateway.tool_approved': 'gateway.tool_approved',
      'gateway.tool_level_changed': 'gateway.tool_level_changed',
      // The gateway's calls are audited, not published (as Portico's own tool calls).
      'gateway.tool_permission_changed': 'gateway.tool_permission_changed',
      'gateway.server_credential_changed': 'gateway.server_credential_changed',
      'agent.disabled': 'agent.disabled',
      'agent.enabled': 'agent.enabled',
      'agent.suspended': 'agent.suspended',
      'agent.deleted': 'agent.deleted',
      'agent.key_added': 'agent.key_added',
      'agent.key_removed': 'agent.key_removed',
      'agent.jwks_uri_changed': 'agent.jwks_uri_changed',
      'agent.trust_rule_added': 'agent.trust_rule_added',
      'agent.trust_rule_removed': 'agent.trust_rule_removed',
      'agent.sponsor_changed': 'agent.sponsor_changed',
      // An agent's token issuance is audited, not published.
      'agent.token_issued': null,
      'gateway.tool_succeeded': null,
      'sign_in.succeeded': null,
      'mcp.tool_succeeded': null,
      'webhook.created': null,
    };
    for (const [action, type] of Object.entries(expected)) {
      const [row] = rowsOf<{ type: string | null }>(await database.db.execute(sql`select portico_webhook_event_type(${action}) as type`));
      expect([action, row!.type]).toEqual([action, type]);
    }
    const named = Object.values(expected).filter((type): type is string => type !== null && !type.startsWith('app.'));
    expect(new Set(named)).toEqual(new Set(WEBHOOK_EVENT_TYPES));
  });
});
