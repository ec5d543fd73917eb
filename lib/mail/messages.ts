// The mail Portico sends: short, plain, and the same shape every time (a sentence, one link, what it is for, when it
// expires, what to do if it was not you), in the recipient's language (lib/i18n/recipient.ts; the texts are in
// messages/*.json under mail). Each message has a text part and a simple HTML part; every value that came from
// outside (names, emails) is escaped for HTML. Branded with the organization's name where there is one.
import { translator, type Translator } from '../i18n/catalogs';
import { escapeHtml } from '../util/html';
import { terminalText } from '../util/visible-text';

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
  /**
   * Words someone outside Portico wrote (an agent's reason, a tool's warning), shown as a quotation under its label:
   * their control and formatting characters made visible (terminalText), never obeyed, and escaped for HTML.
   */
  quotes?: { label: string; text: string }[];
  /** Lines of a list (a digest), each with its own link. */
  items?: { text: string; link: string }[];
  action?: { label: string; link: string };
  footer: string;
}

/** Outside text for a mail: one line, its controls and formatting characters visible, at most `max` characters. */
export function quoted(value: string, max = 500): string {
  const text = terminalText(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function compose(layout: Layout): MailMessage {
  const t = translator(layout.locale, 'mail');
  // A mail of no organization comes from Portico itself: "— Portico", never "— Portico, through Portico".
  const signature = layout.sender === 'Portico' ? t('signatureAlone') : t('signature', { sender: layout.sender });
  const quotes = layout.quotes ?? [];
  const items = layout.items ?? [];
  const text = [
    ...layout.paragraphs,
    ...quotes.map((quote) => `${quote.label}\n> “${quote.text}”`),
    ...(items.length > 0 ? [items.map((item) => `- ${item.text}\n  ${item.link}`).join('\n')] : []),
    ...(layout.action ? [`${layout.action.label}:\n${layout.action.link}`] : []),
    layout.footer,
    signature,
  ].join('\n\n');
  const html = [
    `<!doctype html><html lang="${escapeHtml(layout.locale)}"><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#0f172a;max-width:560px">`,
    ...layout.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    ...quotes.map((quote) => `<p style="margin-bottom:4px;font-size:13px;color:#475569">${escapeHtml(quote.label)}</p><blockquote style="margin:0 0 16px;padding:8px 12px;border-left:3px solid #94a3b8;background:#f1f5f9;white-space:pre-wrap">“${escapeHtml(quote.text)}”</blockquote>`),
    items.length > 0 ? `<ul>${items.map((item) => `<li><a href="${escapeHtml(item.link)}">${escapeHtml(item.text)}</a></li>`).join('')}</ul>` : '',
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

/**
 * A reset asked for an address whose organization requires its company sign-in (lib/identity/sso-required.ts): no
 * link to choose a password, but where to sign in instead. `connection` is the admin-given name of the connection.
 */
export function ssoRequiredResetMail(input: { to: string; locale: string; connection: string; signInLink: string }): MailMessage {
  const t = translator(input.locale, 'mail.ssoRequiredReset');
  return compose({
    to: input.to,
    locale: input.locale,
    subject: t('subject'),
    sender: 'Portico',
    paragraphs: [t('body', { connection: input.connection }), t('notYou')],
    action: { label: t('action'), link: input.signInLink },
    footer: t('footer'),
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

export function passwordChangedMail(input: { to: string; locale: string; timeZone?: string; when: Date; how: 'changed' | 'reset'; recoverLink: string; linksEnded?: number }): MailMessage {
  const t = translator(input.locale, 'mail.passwordChanged', input.timeZone);
  return compose({
    to: input.to,
    locale: input.locale,
    subject: t('subject'),
    sender: 'Portico',
    paragraphs: [
      input.how === 'changed' ? t('changed', { when: input.when }) : t('reset', { when: input.when }),
      input.how === 'changed' ? t('othersSignedOut') : t('allSignedOut'),
      ...(input.linksEnded ? [t('linksEnded', { count: input.linksEnded })] : []),
      t('notYou'),
    ],
    action: { label: t('action'), link: input.recoverLink },
    footer: t('footer'),
  });
}

export type SecondFactorKind = 'authenticator app' | 'passkey';

/** A second factor was added to or removed from the account: the owner hears of it, whoever did it. */
export function secondFactorChangedMail(input: { to: string; locale: string; timeZone?: string; when: Date; change: 'added' | 'removed'; factor: SecondFactorKind; accountLink: string }): MailMessage {
  const t = translator(input.locale, 'mail.secondFactorChanged', input.timeZone);
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

/** What an approval mail says about the request: the same facts in every approval mail. */
export interface ApprovalFacts {
  organization: string;
  app: string;
  askedBy: string;
  /** The agent asking for the person, if any (its name). */
  agent: string | null;
  kind: 'read' | 'write' | 'protected' | 'root' | 'permanent';
  resource: string | null;
  profile: string | null;
  durationSeconds: number | null;
  reason: string;
  expiresAt: Date;
  quorum: number;
  link: string;
}

function approvalParagraphs(t: Translator<'mail.approval'>, facts: ApprovalFacts): string[] {
  const who = facts.agent ? t('whoAgent', { agent: quoted(facts.agent, 80), person: quoted(facts.askedBy, 120) }) : t('whoPerson', { person: quoted(facts.askedBy, 120) });
  const what = facts.resource
    ? t('whatPath', { kind: facts.kind, profile: facts.profile ?? '', resource: quoted(facts.resource, 200), app: quoted(facts.app, 80) })
    : t('whatRoot', { kind: facts.kind, app: quoted(facts.app, 80) });
  const duration = facts.durationSeconds === null ? t('permanent') : t('duration', { minutes: Math.round(facts.durationSeconds / 60) });
  return [`${who} ${what}`, duration, t('until', { when: facts.expiresAt }), ...(facts.quorum > 1 ? [t('quorum', { quorum: facts.quorum })] : [])];
}

/** A request someone may decide: to each of its deciders (`moment`: when it arrived, a reminder, an escalation). */
export function approvalRequestMail(input: { to: string; locale: string; timeZone?: string; moment: 'requested' | 'reminder' | 'escalated'; facts: ApprovalFacts }): MailMessage {
  const t = translator(input.locale, 'mail.approval', input.timeZone);
  const { facts } = input;
  return compose({
    to: input.to,
    locale: input.locale,
    subject: t('subject', { moment: input.moment, app: quoted(facts.app, 80), kind: facts.kind }),
    sender: facts.organization,
    paragraphs: [...(input.moment === 'escalated' ? [t('escalated')] : input.moment === 'reminder' ? [t('reminder')] : []), ...approvalParagraphs(t, facts)],
    quotes: [{ label: t('reasonLabel'), text: quoted(facts.reason, 1000) }],
    action: { label: t('action'), link: facts.link },
    footer: t('footer'),
  });
}

/** Many notifications at once: one mail listing them. */
export function notificationDigestMail(input: { to: string; locale: string; items: { text: string; link: string }[] }): MailMessage {
  const t = translator(input.locale, 'mail.digest');
  return compose({
    to: input.to,
    locale: input.locale,
    subject: t('subject', { count: input.items.length }),
    sender: 'Portico',
    paragraphs: [t('body', { count: input.items.length })],
    items: input.items.map((item) => ({ text: quoted(item.text, 300), link: item.link })),
    footer: t('footer'),
  });
}

/** An agent's call waits for this person's confirmation (or, for an agent acting on its own, an operator's). */
export function confirmationRequestMail(input: {
  to: string;
  locale: string;
  /** The zone of the deadline it names (the recipient's, lib/i18n/time-zone.ts); UTC when not given. */
  timeZone?: string;
  organization: string | null;
  app: string;
  tool: string;
  risk: string;
  description: string;
  warning: string | null;
  agent: string | null;
  /** The person answers for themselves; an operator answers for an agent acting on its own. */
  forOperator: boolean;
  expiresAt: Date;
  link: string;
  /** A CIBA request (lib/oidc/ciba.ts): the app's backend asks; `description` is its binding message. */
  backchannel?: boolean;
}): MailMessage {
  const t = translator(input.locale, 'mail.confirmation', input.timeZone);
  if (input.backchannel) {
    return compose({
      to: input.to,
      locale: input.locale,
      subject: t('backchannelSubject', { app: quoted(input.app, 80) }),
      sender: input.organization ?? 'Portico',
      paragraphs: [t('backchannelBody', { app: quoted(input.app, 80), risk: input.risk }), t('backchannelUntil', { when: input.expiresAt })],
      quotes: [{ label: t('bindingMessageLabel'), text: quoted(input.description, 100) }],
      action: { label: t('backchannelAction'), link: input.link },
      footer: t('backchannelFooter'),
    });
  }
  return compose({
    to: input.to,
    locale: input.locale,
    subject: t('subject', { tool: quoted(input.tool, 80), app: quoted(input.app, 80) }),
    sender: input.organization ?? 'Portico',
    paragraphs: [
      input.forOperator
        ? t('bodyOperator', { agent: quoted(input.agent ?? '', 80), tool: quoted(input.tool, 80), app: quoted(input.app, 80), risk: input.risk })
        : input.agent
          ? t('bodyAgent', { agent: quoted(input.agent, 80), tool: quoted(input.tool, 80), app: quoted(input.app, 80), risk: input.risk })
          : t('body', { tool: quoted(input.tool, 80), app: quoted(input.app, 80), risk: input.risk }),
      t('until', { when: input.expiresAt }),
    ],
    quotes: [{ label: t('descriptionLabel'), text: quoted(input.description, 500) }, ...(input.warning ? [{ label: t('warningLabel'), text: quoted(input.warning, 500) }] : [])],
    action: { label: t('action'), link: input.link },
    footer: t('footer'),
  });
}

/**
 * An agent of the organization was suspended because its owner left and no sponsor team member remains: to the
 * organization's owners and admins, who may give it a new sponsor and turn it on again, or delete it.
 */
export function agentSuspendedMail(input: { to: string; locale: string; organization: string; agent: string; owner: string; link: string }): MailMessage {
  const t = translator(input.locale, 'mail.agentSuspended');
  return compose({
    to: input.to,
    locale: input.locale,
    subject: t('subject', { agent: quoted(input.agent, 80) }),
    sender: input.organization,
    paragraphs: [t('body', { agent: quoted(input.agent, 80), owner: quoted(input.owner, 200), organization: quoted(input.organization, 80) }), t('what')],
    action: { label: t('action'), link: input.link },
    footer: t('footer'),
  });
}
