// The times in a mail are in its recipient's zone, named (issue 56, item 3): their own choice, else the default of
// the organization the mail is about, else of the first organization they joined with one, else UTC.
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterFactorChange } from '../../lib/accounts/factors/factor-change';
import { addMember } from '../../lib/organizations/memberships';
import { createOrganization, setDefaultTimeZone } from '../../lib/organizations/organizations';
import { createUser, findUserById } from '../../lib/accounts/users';
import { users } from '../../lib/db/schema';
import { deliverDue } from '../../lib/deliveries/outbox';
import { mailTimeZoneFor, saveOwnTimeZone, supportedTimeZone } from '../../lib/i18n/time-zone';
import { approvalRequestMail, confirmationRequestMail } from '../../lib/mail/messages';
import { createMailSender, mailDelivery } from '../../lib/deliveries/channels/mail';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { startMailbox } from '../support/mailbox';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.close();
});

describe('the time zone of a mail', () => {
  it('follows the account’s choice, then the organization’s default, then the first organization joined, then UTC', async () => {
    const { db } = database;
    const recife = await createOrganization(db, { slug: 'recife-ltda', name: 'Recife Ltda' });
    const lisboa = await createOrganization(db, { slug: 'lisboa-lda', name: 'Lisboa Lda' });
    await setDefaultTimeZone(db, recife.id, 'America/Recife');
    await setDefaultTimeZone(db, lisboa.id, 'Europe/Lisbon');
    const person = await createUser(db, { email: 'fuso@example.com', name: 'Fuso', passwordHash: null });

    expect(await mailTimeZoneFor(db, { email: 'fuso@example.com' })).toBe('UTC');
    expect(await mailTimeZoneFor(db, { email: 'Fuso@Example.com', orgId: lisboa.id })).toBe('Europe/Lisbon');
    await addMember(db, { orgId: recife.id, userId: person.id, role: 'member' });
    expect(await mailTimeZoneFor(db, { email: 'fuso@example.com' })).toBe('America/Recife');
    expect(await mailTimeZoneFor(db, { email: 'fuso@example.com', orgId: lisboa.id })).toBe('Europe/Lisbon');

    expect(await saveOwnTimeZone(db, person.id, 'Asia/Tokyo')).toEqual({ ok: true, zone: 'Asia/Tokyo' });
    expect(await mailTimeZoneFor(db, { email: 'fuso@example.com', orgId: lisboa.id })).toBe('Asia/Tokyo');
    // A value the runtime does not know is refused, and the saved one stays.
    for (const bad of ['Mars/Olympus_Mons', 'asia/tokyo', 'UTC; drop table users', ' Asia/Tokyo']) expect(await saveOwnTimeZone(db, person.id, bad)).toEqual({ ok: false });
    expect((await findUserById(db, person.id))?.timeZone).toBe('Asia/Tokyo');
    // A stored value the runtime no longer knows is no choice.
    await db.update(users).set({ timeZone: 'Atlantis/Capital' }).where(eq(users.id, person.id));
    expect(await mailTimeZoneFor(db, { email: 'fuso@example.com' })).toBe('America/Recife');
    // '' goes back to none.
    expect(await saveOwnTimeZone(db, person.id, '')).toEqual({ ok: true, zone: null });
    expect(supportedTimeZone('UTC')).toBe('UTC');
  });

  it('names the zone of every deadline, in the recipient’s zone and language', () => {
    const expiresAt = new Date('2026-12-03T18:05:00Z');
    const facts = { organization: 'Acme', app: 'Folha', askedBy: 'ana@example.com', agent: null, kind: 'read' as const, resource: '/rh', profile: 'read', durationSeconds: 3600, reason: 'r', expiresAt, quorum: 1, link: 'L' };
    expect(approvalRequestMail({ to: 'a@example.com', locale: 'pt-BR', timeZone: 'America/Sao_Paulo', moment: 'requested', facts }).text).toContain('Pode ser decidido até 3 de dez. de 2026, 15:05 BRT.');
    expect(approvalRequestMail({ to: 'a@example.com', locale: 'en', moment: 'requested', facts }).text).toContain('It can be decided until Dec 3, 2026, 6:05 PM UTC.');
    const confirmation = { to: 'a@example.com', organization: 'Acme', app: 'Folha', tool: 'pay', risk: 'approval_required', description: 'd', warning: null, agent: null, forOperator: false, expiresAt, link: 'L' };
    expect(confirmationRequestMail({ ...confirmation, locale: 'en', timeZone: 'Asia/Tokyo' }).text).toContain('until Dec 4, 2026, 3:05 AM GMT+9;');
    expect(confirmationRequestMail({ ...confirmation, locale: 'pt-BR', timeZone: 'Asia/Tokyo', backchannel: true }).text).toContain('até 4 de dez. de 2026, 03:05 GMT+9;');
  });

  it('a second factor added: the notice arrives over real SMTP with the time in the person’s saved zone', async () => {
    const { db } = database;
    const mailbox = await startMailbox();
    try {
      const key = randomBytes(32);
      const person = await createUser(db, { email: 'tokyo@example.com', name: 'Tokyo', passwordHash: null });
      await saveOwnTimeZone(db, person.id, 'Asia/Tokyo');
      const user = (await findUserById(db, person.id))!;
      await db.transaction((tx) => afterFactorChange(tx, { user, ip: '192.0.2.7', mail: { issuer: 'https://id.example', atRestKey: key }, change: 'added', factor: { kind: 'totp' } }));
      const send = createMailSender({ smtpUrl: mailbox.url, from: 'Portico <no-reply@id.example>', dataDir: tmpdir() });
      expect(await deliverDue(db, { mail: mailDelivery(key, send) })).toMatchObject({ sent: 1 });
      const received = await mailbox.waitFor('tokyo@example.com');
      // The time of the change, with Tokyo's offset named (the notice is written at the change: GMT+9 whatever the hour).
      expect(received.text).toMatch(/GMT\+9/);
      expect(received.text).not.toMatch(/\bUTC\b/);
    } finally {
      await mailbox.close();
    }
  });
});
