// The mail Portico sends: short, plain, and the same shape every time (a sentence, one link, what it is for, when it
// expires, what to do if it was not you). Each message has a text part and a simple HTML part; every value that came
// from outside (names, emails) is escaped for HTML. Branded with the organization's name where there is one.
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
  subject: string;
  /** Who the mail is from in words: an organization's name, or Portico. */
  sender: string;
  paragraphs: string[];
  action?: { label: string; link: string };
  footer: string;
}

function compose(layout: Layout): MailMessage {
  const text = [
    ...layout.paragraphs,
    ...(layout.action ? [`${layout.action.label}:\n${layout.action.link}`] : []),
    layout.footer,
    `— ${layout.sender}, through Portico`,
  ].join('\n\n');
  const html = [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#0f172a;max-width:560px">',
    ...layout.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    layout.action
      ? `<p><a href="${escapeHtml(layout.action.link)}" style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(layout.action.label)}</a></p><p style="font-size:13px;color:#475569">Or open this address: ${escapeHtml(layout.action.link)}</p>`
      : '',
    `<p style="font-size:13px;color:#475569">${escapeHtml(layout.footer)}</p>`,
    `<p style="font-size:13px;color:#475569">— ${escapeHtml(layout.sender)}, through Portico</p>`,
    '</body></html>',
  ].join('');
  return { to: layout.to, subject: layout.subject, text, html, link: layout.action?.link };
}

export function invitationMail(input: { to: string; organization: string; inviter?: string; link: string; expiresInDays: number }): MailMessage {
  const who = input.inviter ? `${input.inviter} invited you` : 'You are invited';
  return compose({
    to: input.to,
    subject: `Join ${input.organization} on Portico`,
    sender: input.organization,
    paragraphs: [
      `${who} to join ${input.organization}.`,
      'Open the link to accept. If you have no account yet, you will choose your own password there; if you have one, sign in with it.',
    ],
    action: { label: 'Accept the invitation', link: input.link },
    footer: `The link works once and expires in ${input.expiresInDays} day${input.expiresInDays === 1 ? '' : 's'}. If you did not expect this invitation, ignore this mail: nothing happens until you accept.`,
  });
}

export function passwordResetMail(input: { to: string; organization?: string; link: string; expiresInMinutes: number; requestedBy: 'person' | 'administrator' }): MailMessage {
  return compose({
    to: input.to,
    subject: 'Reset your password',
    sender: input.organization ?? 'Portico',
    paragraphs: [
      input.requestedBy === 'administrator'
        ? 'An administrator of your organization asked Portico to send you a link to choose a new password.'
        : 'Someone asked to reset the password of your account, perhaps you.',
      'Choosing a new password signs you out everywhere: every app will ask you to sign in again.',
    ],
    action: { label: 'Choose a new password', link: input.link },
    footer: `The link works once and expires in ${input.expiresInMinutes} minutes. If you did not ask for it, ignore this mail: your password stays as it is.`,
  });
}

export function verifyEmailMail(input: { to: string; link: string; expiresInHours: number }): MailMessage {
  return compose({
    to: input.to,
    subject: 'Confirm your email address',
    sender: 'Portico',
    paragraphs: ['Confirm that this address is yours, so that the apps you sign in to can rely on it.'],
    action: { label: 'Confirm my email address', link: input.link },
    footer: `The link works once and expires in ${input.expiresInHours} hours. If you did not ask for it, ignore this mail.`,
  });
}

export function passwordChangedMail(input: { to: string; when: Date; how: 'changed' | 'reset'; recoverLink: string }): MailMessage {
  return compose({
    to: input.to,
    subject: 'Your password was changed',
    sender: 'Portico',
    paragraphs: [
      `The password of your account was ${input.how === 'changed' ? 'changed' : 'reset with a link sent to this address'} on ${input.when.toUTCString()}.`,
      input.how === 'changed' ? 'Your other sessions were signed out.' : 'Every session was signed out.',
      'If this was not you, reset your password now and tell your organization’s administrators.',
    ],
    action: { label: 'Reset my password', link: input.recoverLink },
    footer: 'You receive this notice whenever your password changes.',
  });
}

/** A second factor was added to or removed from the account: the owner hears of it, whoever did it. */
export function secondFactorChangedMail(input: { to: string; when: Date; change: 'added' | 'removed'; factor: string; accountLink: string }): MailMessage {
  return compose({
    to: input.to,
    subject: `${input.factor.charAt(0).toUpperCase()}${input.factor.slice(1)} ${input.change} ${input.change === 'added' ? 'to' : 'from'} your account`,
    sender: 'Portico',
    paragraphs: [
      `${input.change === 'added' ? 'A new' : /^[aeiou]/.test(input.factor) ? 'An' : 'A'} ${input.factor} was ${input.change} ${input.change === 'added' ? 'to' : 'from'} your account on ${input.when.toUTCString()}.`,
      'If this was not you, sign in, check your account’s two-step sign-in and sessions, reset your password, and tell your organization’s administrators.',
    ],
    action: { label: 'Review my account', link: input.accountLink },
    footer: 'You receive this notice whenever a sign-in factor of your account changes.',
  });
}
