// A mail is in its recipient's language: their own choice, else the organization it is about, else the first
// organization they joined, else English; and the Portuguese mails say what the English ones say.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../lib/accounts/memberships';
import { createOrganization, setDefaultLocale } from '../../lib/accounts/organizations';
import { createUser } from '../../lib/accounts/users';
import { users } from '../../lib/db/schema';
import { mailLocaleFor } from '../../lib/i18n/recipient';
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
    expect(reset.text).toContain('— Portico, pelo Portico');

    const when = new Date('2026-12-03T14:05:00Z');
    expect(passwordChangedMail({ to: 'a@example.com', locale: 'pt-BR', when, how: 'changed', recoverLink: 'L' }).text).toContain('quinta-feira, 3 de dezembro de 2026');
    expect(passwordChangedMail({ to: 'a@example.com', locale: 'en', when, how: 'changed', recoverLink: 'L' }).text).toContain('Thursday, December 3, 2026');

    const factor = secondFactorChangedMail({ to: 'a@example.com', locale: 'pt-BR', when, change: 'removed', factor: 'passkey', accountLink: 'L' });
    expect(factor.subject).toBe('Chave de acesso removida da sua conta');
    expect(secondFactorChangedMail({ to: 'a@example.com', locale: 'en', when, change: 'added', factor: 'authenticator app', accountLink: 'L' }).subject).toBe('Authenticator app added to your account');
  });
});
