// The mail outbox over real SMTP (smtp-server in this process): queued in the change's transaction, delivered
// after, sealed at rest, retried on refusal, never sent twice by two dispatchers at once.
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundDeliveries as mailOutbox } from '../../lib/db/schema';
import { deliverDue, MAX_DELIVERY_ATTEMPTS } from '../../lib/deliveries/outbox';
import { enqueueMail } from '../../lib/deliveries/channels/mail';
import { invitationMail } from '../../lib/mail/messages';
import { createMailSender, mailDelivery, type SendMail } from '../../lib/deliveries/channels/mail';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { startMailbox, type Mailbox } from '../support/mailbox';

let database: TestDatabase;
let mailbox: Mailbox;
const key = randomBytes(32);

beforeAll(async () => {
  [database, mailbox] = await Promise.all([openTestDatabase(), startMailbox()]);
});
afterAll(async () => {
  await Promise.all([database.close(), mailbox.close()]);
});

/** The outbox's mail channel alone, as the CLI's process would run it. */
function deliverDueMail(db: TestDatabase['db'], atRestKey: Uint8Array, send: SendMail, limit?: number) {
  return deliverDue(db, { mail: mailDelivery(atRestKey, send) }, limit);
}

function invitation(to: string) {
  return invitationMail({ to, locale: 'en', organization: 'Acme <script>', inviter: 'Ada', link: 'https://id.example/invite/abc', expiresInDays: 7 });
}

describe('mail outbox', () => {
  it('delivers over SMTP after the transaction commits, sealed at rest, and deletes what it sent', async () => {
    const send = createMailSender({ smtpUrl: mailbox.url, from: 'Portico <no-reply@id.example>', dataDir: tmpdir() });
    await database.db.transaction(async (tx) => enqueueMail(tx, key, invitation('ada@example.test')));
    // A rolled-back change queues nothing.
    await database.db
      .transaction(async (tx) => {
        await enqueueMail(tx, key, invitation('rolled-back@example.test'));
        throw new Error('rollback');
      })
      .catch(() => {});
    const [row] = await database.db.select().from(mailOutbox);
    expect(row?.recipient).toBe('ada@example.test');
    expect(row?.sealedPayload).not.toContain('invite/abc');
    expect(row?.sealedPayload?.split('.')).toHaveLength(5); // a compact JWE

    expect(await deliverDueMail(database.db, key, send)).toEqual({ sent: 1, retrying: 0, failed: 0 });
    const received = await mailbox.waitFor('ada@example.test');
    expect(received.subject).toBe('Join Acme <script> on Portico');
    expect(received.from).toBe('no-reply@id.example');
    expect(received.links).toEqual(['https://id.example/invite/abc']);
    expect(received.html).toContain('Acme &lt;script&gt;');
    expect(received.html).not.toContain('<script>');
    expect(mailbox.messages.some((message) => message.to.includes('rolled-back@example.test'))).toBe(false);
    expect(await database.db.select().from(mailOutbox)).toHaveLength(0);
  });

  it('retries a refused message with backoff, then gives up and wipes it', async () => {
    const send = createMailSender({ smtpUrl: mailbox.url, from: 'no-reply@id.example', dataDir: tmpdir() });
    mailbox.refuse.add('bounce@example.test');
    await enqueueMail(database.db, key, invitation('bounce@example.test'));
    expect(await deliverDueMail(database.db, key, send)).toEqual({ sent: 0, retrying: 1, failed: 0 });
    const [retrying] = await database.db.select().from(mailOutbox);
    expect(retrying?.attempts).toBe(1);
    expect(retrying?.lastError).toMatch(/550|mailbox unavailable/);
    // Not due yet: the backoff holds it back.
    expect(await deliverDueMail(database.db, key, send)).toEqual({ sent: 0, retrying: 0, failed: 0 });
    await database.db.update(mailOutbox).set({ attempts: MAX_DELIVERY_ATTEMPTS - 1, nextAttemptAt: sql`now()` });
    expect(await deliverDueMail(database.db, key, send)).toEqual({ sent: 0, retrying: 0, failed: 1 });
    const [failed] = await database.db.select().from(mailOutbox);
    expect(failed?.failedAt).not.toBeNull();
    expect(failed?.sealedPayload).toBe('');
    await database.db.delete(mailOutbox);
    mailbox.refuse.clear();
  });

  it('two dispatchers draining the same queue at once send each message exactly once', async () => {
    const send = createMailSender({ smtpUrl: mailbox.url, from: 'no-reply@id.example', dataDir: tmpdir() });
    const recipients = Array.from({ length: 12 }, (_, index) => `parallel-${index}@example.test`);
    for (const to of recipients) await enqueueMail(database.db, key, invitation(to));
    const before = mailbox.messages.length;
    const reports = await Promise.all([deliverDueMail(database.db, key, send, 12), deliverDueMail(database.db, key, send, 12)]);
    expect(reports[0]!.sent + reports[1]!.sent).toBe(12);
    const delivered = mailbox.messages.slice(before).flatMap((message) => message.to);
    expect(delivered.sort()).toEqual([...recipients].sort());
  });

  it('without SMTP, writes each message to the data folder (owner-only) and prints its link', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'portico-outbox-'));
    const lines: string[] = [];
    const send = createMailSender({ from: 'no-reply@localhost', dataDir, log: (line) => lines.push(line) });
    await enqueueMail(database.db, key, invitation('local\u001b[2J@example.test'));
    await deliverDueMail(database.db, key, send);
    const [file] = readdirSync(path.join(dataDir, 'outbox'));
    const full = path.join(dataDir, 'outbox', file!);
    expect(statSync(full).mode & 0o777).toBe(0o600);
    expect(readFileSync(full, 'utf8')).toContain('Subject: Join Acme <script> on Portico');
    expect(lines.join('\n')).toContain('link: https://id.example/invite/abc');
    // The recipient came from outside: its escape sequence is printed visibly, not to the terminal.
    expect(lines.join('\n')).not.toContain('\u001b');
  });
});
