// A mail is in its recipient's language: their own choice, else the organization it is about, else the first
// organization they joined, else English; and the Portuguese mails say what the English ones say.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../lib/organizations/memberships';
import { createOrganization, setDefaultLocale } from '../../lib/organizations/organizations';
import { createUser } from '../../lib/accounts/users';
import { users } from '../../lib/db/schema';
import { mailLocaleFor } from '../../lib/i18n/recipient';
import { inviteMemberCommand } from '../../lib/organizations/member-commands';
import { deliverDue } from '../../lib/deliveries/outbox';
import { enqueueMail } from '../../lib/deliveries/channels/mail';
import { createMailSender, mailDelivery } from '../../lib/deliveries/channels/mail';
import { startMailbox } from '../support/mailbox';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { invitationMail, passwordChangedMail, passwordResetMail, secondFactorChangedMail } from '../../lib/mail/messages';
import { openTestDatabase, type TestDatabase } from '../support/databases';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.close();
});

describe('the language of a mail', () => {
  it('follows the account’s choice, then the organization’s default, then the first organization joined, then English', async () => {
    const { db } = database;
    const brasil = await createOrganization(db, { slug: 'brasil-ltda', name: 'Brasil Ltda' });
    const world = await createOrganization(db, { slug: 'world-inc', name: 'World Inc' });
    await setDefaultLocale(db, brasil.id, 'pt-BR');
    const person = await createUser(db, { email: 'pessoa@example.com', name: 'Pessoa', passwordHash: null });

    expect(await mailLocaleFor(db, { email: 'pessoa@example.com' })).toBe('en');
    expect(await mailLocaleFor(db, { email: 'Pessoa@Example.com', orgId: brasil.id })).toBe('pt-BR');
    expect(await mailLocaleFor(db, { email: 'pessoa@example.com', orgId: world.id })).toBe('en');
    await addMember(db, { orgId: brasil.id, userId: person.id, role: 'member' });
    expect(await mailLocaleFor(db, { email: 'pessoa@example.com' })).toBe('pt-BR');

    await db.update(users).set({ locale: 'en' }).where(eq(users.id, person.id));
    expect(await mailLocaleFor(db, { email: 'pessoa@example.com', orgId: brasil.id })).toBe('en');
    // A value no catalog has any more is no choice.
    await db.update(users).set({ locale: 'tlh' }).where(eq(users.id, person.id));
    expect(await mailLocaleFor(db, { email: 'pessoa@example.com', orgId: brasil.id })).toBe('pt-BR');
    // Nobody with that address yet (an invitation): the inviting organization's.
    expect(await mailLocaleFor(db, { email: 'nova@example.com', orgId: brasil.id })).toBe('pt-BR');
    expect(await mailLocaleFor(db, { email: 'nova@example.com' })).toBe('en');
  });

  it('an organization whose default is the browser’s takes the language of the person who acted, never English by accident', async () => {
    const { db } = database;
    const browserDefault = await createOrganization(db, { slug: 'navegador-ltda', name: 'Navegador Ltda' });
    // Nobody with that address yet, no organization default: the inviter's language.
    expect(await mailLocaleFor(db, { email: 'convidada@example.com', orgId: browserDefault.id, actingLocale: 'pt-BR' })).toBe('pt-BR');
    expect(await mailLocaleFor(db, { email: 'convidada@example.com', orgId: browserDefault.id })).toBe('en');
    // A language no catalog has is no language.
    expect(await mailLocaleFor(db, { email: 'convidada@example.com', orgId: browserDefault.id, actingLocale: 'tlh' })).toBe('en');
    // The recipient's own choice, then the organization's default, come first.
    const chooser = await createUser(db, { email: 'escolheu@example.com', name: 'Escolheu', passwordHash: null });
    await db.update(users).set({ locale: 'en' }).where(eq(users.id, chooser.id));
    expect(await mailLocaleFor(db, { email: 'escolheu@example.com', orgId: browserDefault.id, actingLocale: 'pt-BR' })).toBe('en');
    const english = await createOrganization(db, { slug: 'english-co', name: 'English Co' });
    await setDefaultLocale(db, english.id, 'en');
    expect(await mailLocaleFor(db, { email: 'convidada@example.com', orgId: english.id, actingLocale: 'pt-BR' })).toBe('en');
  });

  it('an invitation from a Portuguese console in such an organization arrives in Portuguese, over real SMTP', async () => {
    const { db } = database;
    const mailbox = await startMailbox();
    try {
      const key = randomBytes(32);
      const org = await createOrganization(db, { slug: 'convite-ltda', name: 'Convite Ltda' });
      const admin = await createUser(db, { email: 'admin@convite.example', name: 'Ana', passwordHash: null });
      await db.transaction((tx) =>
        inviteMemberCommand(
          { tx, org, mayTransferOwnership: true, inviter: admin, issuer: 'https://id.example', invitationDays: 7, audit: async () => {}, queueMail: (message) => enqueueMail(tx, key, message, org.id), actingLocale: 'pt-BR' },
          { email: 'colega@convite.example', role: 'member' },
        ),
      );
      const send = createMailSender({ smtpUrl: mailbox.url, from: 'Portico <no-reply@id.example>', dataDir: tmpdir() });
      expect(await deliverDue(db, { mail: mailDelivery(key, send) })).toMatchObject({ sent: 1 });
      const received = await mailbox.waitFor('colega@convite.example');
      expect(received.subject).toBe('Participe de Convite Ltda no Portico');
      expect(received.text).toContain('Ana convidou você para participar de Convite Ltda.');
    } finally {
      await mailbox.close();
    }
  });

  it('is written in Portuguese, subject, text and HTML, with the values escaped', () => {
    const invitation = invitationMail({ to: 'a@example.com', locale: 'pt-BR', organization: 'Acme <b>', inviter: 'Ana', link: 'https://id.example/invite/x', expiresInDays: 1 });
    expect(invitation.subject).toBe('Participe de Acme <b> no Portico');
    expect(invitation.text).toContain('Ana convidou você para participar de Acme <b>.');
    expect(invitation.text).toContain('expira em 1 dia.');
    expect(invitation.html).toContain('lang="pt-BR"');
    expect(invitation.html).toContain('Acme &lt;b&gt;');
    expect(invitation.html).not.toContain('Acme <b>');
    expect(invitationMail({ to: 'a@example.com', locale: 'pt-BR', organization: 'Acme', link: 'L', expiresInDays: 7 }).text).toContain('expira em 7 dias.');

    const reset = passwordResetMail({ to: 'a@example.com', locale: 'pt-BR', link: 'L', expiresInMinutes: 30, requestedBy: 'administrator' });
    expect(reset.subject).toBe('Redefina sua senha');
    expect(reset.text).toContain('Um administrador da sua organização');
    // A mail of no organization is signed by Portico alone, never "— Portico, pelo Portico".
    expect(reset.text).toContain('— Portico');
    expect(reset.text).not.toContain('pelo Portico');

    const when = new Date('2026-12-03T14:05:00Z');
    expect(passwordChangedMail({ to: 'a@example.com', locale: 'pt-BR', when, how: 'changed', recoverLink: 'L' }).text).toContain('quinta-feira, 3 de dezembro de 2026');
    expect(passwordChangedMail({ to: 'a@example.com', locale: 'en', when, how: 'changed', recoverLink: 'L' }).text).toContain('Thursday, December 3, 2026');

    const factor = secondFactorChangedMail({ to: 'a@example.com', locale: 'pt-BR', when, change: 'removed', factor: 'passkey', accountLink: 'L' });
    expect(factor.subject).toBe('Chave de acesso removida da sua conta');
    expect(secondFactorChangedMail({ to: 'a@example.com', locale: 'en', when, change: 'added', factor: 'authenticator app', accountLink: 'L' }).subject).toBe('Authenticator app added to your account');
  });
});
