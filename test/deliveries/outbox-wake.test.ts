// The outbox is woken by the database's after-commit hook (lib/db/client.ts AfterCommitHooks), not by each door:
// a committed delivery wakes every channel, an audit event (fanned out to webhooks by the database) the webhook
// channel, and a transaction that rolled back nothing — on PostgreSQL and on the embedded database alike.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordAuditEvent } from '../../lib/audit/events';
import type { DeliveryChannel } from '../../lib/db/schema';
import { enqueueMail } from '../../lib/deliveries/channels/mail';
import { drizzleFor } from '../../lib/db/client';
import { deliverDue } from '../../lib/deliveries/outbox';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('the outbox wakes after a commit', () => {
  let database: TestDatabase;
  const wakes: Array<DeliveryChannel | 'all'> = [];
  const atRestKey = randomBytes(32);
  const mail = { to: 'someone@acme.test', subject: 'Hello', text: 'Hello', html: '<p>Hello</p>' };
  const audit = { orgId: null, actor: { type: 'system' as const, id: 'test', label: 'test' }, action: 'test.happened' };
  let stop: () => void;

  beforeAll(async () => {
    database = await openTestDatabase();
    stop = database.raw.afterCommit.onOutboxWrite((channel) => wakes.push(channel ?? 'all'));
  });
  afterAll(async () => {
    stop?.();
    await database?.close();
  });
  beforeEach(() => {
    wakes.length = 0;
  });

  const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

  it('wakes every channel once a delivery queued outside a transaction is written', async () => {
    await enqueueMail(database.db, atRestKey, mail);
    await settled();
    expect(wakes).toEqual(['all']);
  });

  it('wakes once, at the commit, for a transaction that queued deliveries', async () => {
    await database.db.transaction(async (tx) => {
      await enqueueMail(tx, atRestKey, mail);
      await enqueueMail(tx, atRestKey, mail);
      await recordAuditEvent(tx, audit);
      expect(wakes).toEqual([]);
    });
    await settled();
    expect(wakes).toEqual(['all']);
  });

  it('wakes only the webhook channel for an audit event, which the database fans out to webhook endpoints', async () => {
    await database.db.transaction(async (tx) => recordAuditEvent(tx, audit));
    await recordAuditEvent(database.db, audit);
    await settled();
    expect(wakes).toEqual(['webhook', 'webhook']);
  });

  it('wakes nothing for a transaction that rolled back, nor for one that queued nothing', async () => {
    await expect(
      database.db.transaction(async (tx) => {
        await enqueueMail(tx, atRestKey, mail);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await database.db.transaction(async (tx) => tx.execute('select 1'));
    await settled();
    expect(wakes).toEqual([]);
  });

  it('is not woken by a delivery round’s own writes on the outbox’s own handle, which would make it spin', async () => {
    await enqueueMail(database.db, atRestKey, mail);
    await settled();
    wakes.length = 0;
    const sent: string[] = [];
    const outboxDb = drizzleFor(database.raw, { wakesOutbox: false });
    const report = await deliverDue(outboxDb, { mail: async (delivery) => void sent.push(delivery.recipient) });
    await settled();
    expect(report.sent).toBeGreaterThan(0);
    expect(sent).toContain(mail.to);
    expect(wakes).toEqual([]);
  });
});
