// The mail Portico sends: short, plain, and the same shape every time (a sentence, one link, what it is for, when it
// expires, what to do if it was not you), in the recipient's language (lib/i18n/recipient.ts; the texts are in
// messages/*.json under mail). Each message has a text part and a simple HTML part; every value that came from
// outside (names, emails) is escaped for HTML. Branded with the organization's name where there is one.
import { translator } from '../i18n/catalogs';
import { escapeHtml } from '../oidc/provider-pages';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The message's one link, printed to the server log by the development outbox. */
  link?: string;
}

interface Layout {
  to: string;
  locale: string;
  subject: string;
  /** Who the mail is from in words: an organization's name, or Portico. */
  sender: string;
  paragraphs: string[];
  action?: { label: string; link: string };
  footer: string;
}

function compose(layout: Layout): MailMessage {
  const t = translator(layout.locale, 'mail');
  const signature = t('signature', { sender: layout.sender });
  const text = [...layout.paragraphs, ...(layout.action ? [`${layout.action.label}:\n${layout.action.link}`] : []), layout.footer, signature].join('\n\n');
  const html = [
    `<!doctype html><html lang="${escapeHtml(layout.locale)}"><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#0f172a;max-width:560px">`,
    ...layout.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    layout.action
      ? `<p><a href="${escapeHtml(layout.action.link)}" style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(layout.action.label)}</a></p><p style="font-size:13px;color:#475569">${escapeHtml(t('orOpen', { link: layout.action.link }))}</p>`
      : '',
    `<p style="font-size:13px;color:#475569">${escapeHtml(layout.footer)}</p>`,
    `<p style="font-size:13px;color:#475569">${escapeHtml(signature)}</p>`,
    '</body></html>',
  ].join('');
  return { to: layout.to, subject: layout.subject, text, html, link: layout.action?.link };
}

export function invitationMail(input: { to: string; locale: string; organization: string; inviter?: string; link: string; expiresInDays: number }): MailMessage {
  const t = translator(input.locale, 'mail.invitation');
  return compose({
    to: input.to,
    locale: input.locale,
    subject: t('subject', { organization: input.organization }),
    sender: input.organization,
    paragraphs: [input.inviter ? t('invitedBy', { inviter: input.inviter, organization: input.organization }) : t('invited', { organization: input.organization }), t('howTo')],
    action: { label: t('action'), link: input.link },
    footer: t('footer', { days: input.expiresInDays }),
  });
}

export function passwordResetMail(input: { to: string; locale: string; organization?: string; link: string; expiresInMinutes: number; requestedBy: 'person' | 'administrator' }): MailMessage {
  const t = translator(input.locale, 'mail.passwordReset');
  return compose({
    to: input.to,
    locale: input.locale,
    subject: t('subject'),
    sender: input.organization ?? 'Portico',
    paragraphs: [input.requestedBy === 'administrator' ? t('byAdministrator') : t('byPerson'), t('signsOut')],
    action: { label: t('action'), link: input.link },
    footer: t('footer', { minutes: input.expiresInMinutes }),
  });
}

export function verifyEmailMail(input: { to: string; locale: string; link: string; expiresInHours: number }): MailMessage {
  const t = translator(input.locale, 'mail.verifyEmail');
  return compose({
    to: input.to,
    locale: input.locale,
    subject: t('subject'),
    sender: 'Portico',
    paragraphs: [t('body')],
    action: { label: t('action'), link: input.link },
    footer: t('footer', { hours: input.expiresInHours }),
  });
}

export function passwordChangedMail(input: { to: string; locale: string; when: Date; how: 'changed' | 'reset'; recoverLink: string }): MailMessage {
  const t = translator(input.locale, 'mail.passwordChanged');
  return compose({
    to: input.to,
    locale: input.locale,
    subject: t('subject'),
    sender: 'Portico',
    paragraphs: [input.how === 'changed' ? t('changed', { when: input.when }) : t('reset', { when: input.when }), input.how === 'changed' ? t('othersSignedOut') : t('allSignedOut'), t('notYou')],
    action: { label: t('action'), link: input.recoverLink },
    footer: t('footer'),
  });
}

export type SecondFactorKind = 'authenticator app' | 'passkey';

/** A second factor was added to or removed from the account: the owner hears of it, whoever did it. */
export function secondFactorChangedMail(input: { to: string; locale: string; when: Date; change: 'added' | 'removed'; factor: SecondFactorKind; accountLink: string }): MailMessage {
  const t = translator(input.locale, 'mail.secondFactorChanged');
  const values = { change: input.change, factor: input.factor === 'passkey' ? 'passkey' : 'authenticator' };
  return compose({
    to: input.to,
    locale: input.locale,
    subject: t('subject', values),
    sender: 'Portico',
    paragraphs: [t('body', { ...values, when: input.when }), t('notYou')],
    action: { label: t('action'), link: input.accountLink },
    footer: t('footer'),
  });
}
