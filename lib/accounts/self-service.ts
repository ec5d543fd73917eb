// What a person does to their own account, without anyone else: accept an invitation (creating the account with
// their own password, or with the one they have), set a password through a link (setup, reset, forced change),
// change it from the account page, and verify their email. Each returns field errors in plain words for the form
// that asked; each change is one transaction with its audit event and its notice mail.
import { recordAuditEvent } from '../audit/events';
import type { Database } from '../db/client';
import { postgresErrorCode } from '../db/client';
import { enqueueMail } from '../deliveries/channels/mail';
import { localized, textIn, type LocalizedText } from '../i18n/catalogs';
import { mailTimeZoneFor } from '../i18n/time-zone';
import { mailLocaleFor } from '../i18n/recipient';
import { passwordChangedMail, verifyEmailMail } from '../mail/messages';
import { hitRateLimit, type RateLimitRule } from '../rate-limit/fixed-window';
import { ACCOUNT_LINK_TTL_SECONDS, accountLinkUrl, consumeAccountLink, findAccountLink, issueAccountLink, type AccountLinkPurpose } from './account-links';
import { markEmailVerified, setOwnPassword } from './credentials';
import { acceptInvitation, findOpenInvitation } from '../organizations/invitations';
import { listMembershipsOf } from '../organizations/memberships';
import { checkNewPassword } from './factors/password-policy';
import { hashPassword } from './factors/password';
import type { AccountMailContext } from './password-reset';
import { recordSignInRefusal, recordSignInSuccess } from './sign-in-events';
import { throttledPasswordCheck } from './factors/throttled-password-check';
import { hasSecondFactor } from './sign-in-second-step';
import { createUser, type User } from './users';
import { endPasswordProvenLinks } from '../identity/links';

export type SelfServiceField = 'name' | 'password' | 'currentPassword' | 'form';
/**
 * A refusal's words by field: `fieldTexts` are catalog keys, for the page to show in the person's language (only
 * app/ knows it); `fieldErrors` their English.
 */
export type SelfServiceResult<T> =
  | { ok: true; value: T }
  | { ok: false; fieldErrors: Partial<Record<SelfServiceField, string>>; fieldTexts: Partial<Record<SelfServiceField, LocalizedText>> };

const LINK_SPENT = localized('selfService.linkSpent');
export const PASSWORD_LINK_PURPOSES: readonly AccountLinkPurpose[] = ['setup', 'reset', 'change_required'];

function refused<T>(field: SelfServiceField, text: LocalizedText): SelfServiceResult<T> {
  return { ok: false, fieldErrors: { [field]: textIn(text) }, fieldTexts: { [field]: text } };
}

async function organizationNamesOf(db: Database, userId: string): Promise<string[]> {
  return (await listMembershipsOf(db, userId)).map((membership) => membership.name);
}

async function queueChangeNotice(db: Parameters<typeof enqueueMail>[0], mail: AccountMailContext, user: Pick<User, 'email'>, how: 'changed' | 'reset', linksEnded = 0): Promise<void> {
  const locale = await mailLocaleFor(db, { email: user.email });
  const timeZone = await mailTimeZoneFor(db, { email: user.email });
  await enqueueMail(db, mail.atRestKey, passwordChangedMail({ to: user.email, locale, timeZone, when: new Date(), how, linksEnded, recoverLink: `${mail.issuer}/account/recover` }));
}

/** Sets the password through a setup, reset or forced-change link, and ends every session and refresh token. */
export async function setPasswordWithLink(
  db: Database,
  mail: AccountMailContext,
  input: { token: unknown; password: string; ip: string },
): Promise<SelfServiceResult<{ user: User; purpose: AccountLinkPurpose }>> {
  const link = await findAccountLink(db, input.token, PASSWORD_LINK_PURPOSES);
  if (!link) return refused('form', LINK_SPENT);
  const verdict = checkNewPassword(input.password, { email: link.user.email, organizationNames: await organizationNamesOf(db, link.user.id), hasSecondFactor: await hasSecondFactor(db, link.user.id) });
  if (!verdict.ok) return refused('password', verdict.text);
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const spent = await consumeAccountLink(tx, input.token, PASSWORD_LINK_PURPOSES);
    if (!spent) return refused('form', LINK_SPENT);
    // Setup and reset links were mailed (or handed) to the address: using one proves it. A forced change does not.
    await setOwnPassword(tx, { user: spent.user, passwordHash, provenEmail: spent.purpose === 'change_required' ? undefined : spent.email });
    await recordAuditEvent(tx, {
      orgId: spent.orgId,
      actor: { type: 'person', id: spent.user.id, label: spent.user.email, ip: input.ip },
      action: spent.purpose === 'reset' ? 'password.reset_completed' : spent.purpose === 'setup' ? 'password.set_up' : 'password.changed',
      subject: { type: 'person', id: spent.user.id, label: spent.user.email },
      details: { via: spent.purpose },
    });
    // The mailbox proved more than the old password did: what only that password linked ends (lib/identity/links.ts).
    const linksEnded = spent.purpose === 'reset' ? await endPasswordProvenLinks(tx, spent.user, input.ip) : 0;
    if (spent.purpose !== 'setup') await queueChangeNotice(tx, mail, spent.user, spent.purpose === 'reset' ? 'reset' : 'changed', linksEnded);
    return { ok: true, value: { user: spent.user, purpose: spent.purpose } };
  });
}

/** The password change on the account page: the current password first; this browser's console session stays. */
export async function changeOwnPassword(
  db: Database,
  mail: AccountMailContext,
  input: { user: User; keepConsoleSessionHash: string; currentPassword: string; newPassword: string; ip: string },
): Promise<SelfServiceResult<null>> {
  if (!input.currentPassword) return refused('currentPassword', localized('selfService.enterCurrentPassword'));
  const check = await throttledPasswordCheck(db, input.user.email, input.currentPassword, input.ip);
  if (!check.ok) {
    return refused('currentPassword', check.reason === 'throttled' ? localized('selfService.tooManyWrongPasswords') : localized('selfService.notCurrentPassword'));
  }
  if (input.newPassword === input.currentPassword) return refused('password', localized('selfService.sameAsCurrent'));
  const verdict = checkNewPassword(input.newPassword, { email: input.user.email, organizationNames: await organizationNamesOf(db, input.user.id), hasSecondFactor: await hasSecondFactor(db, input.user.id) });
  if (!verdict.ok) return refused('password', verdict.text);
  const passwordHash = await hashPassword(input.newPassword);
  await db.transaction(async (tx) => {
    await setOwnPassword(tx, { user: input.user, passwordHash, keepConsoleSessionHash: input.keepConsoleSessionHash });
    await recordAuditEvent(tx, {
      orgId: null,
      actor: { type: 'person', id: input.user.id, label: input.user.email, ip: input.ip },
      action: 'password.changed',
      subject: { type: 'person', id: input.user.id, label: input.user.email },
      details: { via: 'account_page' },
    });
    await queueChangeNotice(tx, mail, input.user, 'changed');
  });
  return { ok: true, value: null };
}

const VERIFY_THROTTLE: RateLimitRule = { name: 'verify:account', limit: 3, windowSeconds: 15 * 60 };

export async function sendVerificationLink(db: Database, mail: AccountMailContext, user: User): Promise<{ status: 'sent' | 'throttled' | 'verified' }> {
  if (user.emailVerifiedAt) return { status: 'verified' };
  if ((await hitRateLimit(db, VERIFY_THROTTLE, user.id)).limited) return { status: 'throttled' };
  await db.transaction(async (tx) => {
    const { token } = await issueAccountLink(tx, { purpose: 'verify_email', user });
    const locale = await mailLocaleFor(tx, { email: user.email });
    await enqueueMail(tx, mail.atRestKey, verifyEmailMail({ to: user.email, locale, link: accountLinkUrl(mail.issuer, 'verify_email', token), expiresInHours: ACCOUNT_LINK_TTL_SECONDS.verify_email / 3600 }));
  });
  return { status: 'sent' };
}

export async function verifyEmailWithLink(db: Database, input: { token: unknown; ip: string }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const spent = await consumeAccountLink(tx, input.token, ['verify_email']);
    if (!spent || !(await markEmailVerified(tx, spent.user.id, spent.email))) return false;
    await recordAuditEvent(tx, {
      orgId: null,
      actor: { type: 'person', id: spent.user.id, label: spent.user.email, ip: input.ip },
      action: 'email.verified',
      subject: { type: 'person', id: spent.user.id, label: spent.user.email },
    });
    return true;
  });
}

const INVITATION_SPENT = localized('selfService.invitationSpent');

export interface AcceptedInvitation {
  user: User;
  orgSlug: string;
  /** The account's password was set by someone else before invitations existed: it must choose a new one now. */
  passwordChangeRequired: boolean;
}

/**
 * Accepts an invitation. For an email without an account (or an account still waiting for its first password), the
 * invitee chooses the password here; for an account with a password, the invitee proves it (the sign-in throttle
 * applies) and it stays as it is.
 */
export async function acceptInvitationWithPassword(
  db: Database,
  input: { token: unknown; password: string; name?: string; ip: string },
): Promise<SelfServiceResult<AcceptedInvitation>> {
  const view = await findOpenInvitation(db, input.token);
  if (!view) return refused('form', INVITATION_SPENT);
  const { invitation, organization, account } = view;
  const context = { surface: 'invitation' as const, ip: input.ip, orgId: organization.id, target: organization.name };
  if (account?.disabledAt) return refused('form', localized('selfService.accountDisabledContact'));

  if (account?.passwordHash) {
    const check = await throttledPasswordCheck(db, invitation.email, input.password, input.ip);
    if (!check.ok) {
      await recordSignInRefusal(db, context, invitation.email, check);
      return refused('password', check.reason === 'throttled' ? localized('selfService.tooManyWrongPasswords') : check.reason === 'account_disabled' ? localized('selfService.accountDisabled') : localized('selfService.notAccountPassword'));
    }
    return db.transaction(async (tx) => {
      const accepted = await acceptInvitation(tx, input.token, check.user);
      if (!accepted) return refused<AcceptedInvitation>('form', INVITATION_SPENT);
      await recordAuditEvent(tx, {
        orgId: organization.id,
        actor: { type: 'person', id: check.user.id, label: check.user.email, ip: input.ip },
        action: 'invitation.accepted',
        subject: { type: 'person', id: check.user.id, label: check.user.email },
        details: { role: accepted.role, account: 'existing' },
      });
      await recordSignInSuccess(tx, context, check.user);
      return { ok: true, value: { user: check.user, orgSlug: organization.slug, passwordChangeRequired: check.user.passwordChangeRequired } };
    });
  }

  const name = (input.name ?? '').trim();
  if (!account && name === '') return refused('name', localized('selfService.enterName'));
  if (name.length > 80) return refused('name', localized('selfService.nameTooLong'));
  const verdict = checkNewPassword(input.password, { email: invitation.email, organizationNames: [organization.name] });
  if (!verdict.ok) return refused('password', verdict.text);
  const passwordHash = await hashPassword(input.password);
  try {
    return await db.transaction(async (tx) => {
      const user = account
        ? { ...account, passwordHash }
        : await createUser(tx, { email: invitation.email, name, passwordHash, emailVerified: true });
      if (account) await setOwnPassword(tx, { user: account, passwordHash, provenEmail: invitation.email });
      const accepted = await acceptInvitation(tx, input.token, user);
      if (!accepted) throw new SpentInvitation();
      await recordAuditEvent(tx, {
        orgId: organization.id,
        actor: { type: 'person', id: user.id, label: user.email, ip: input.ip },
        action: 'invitation.accepted',
        subject: { type: 'person', id: user.id, label: user.email },
        details: { role: accepted.role, account: 'created' },
      });
      await recordSignInSuccess(tx, context, user);
      return { ok: true as const, value: { user, orgSlug: organization.slug, passwordChangeRequired: false } };
    });
  } catch (error) {
    if (error instanceof SpentInvitation) return refused('form', INVITATION_SPENT);
    // Two tabs creating the same account at once: the second finds the email taken.
    if (postgresErrorCode(error) === '23505') return refused('form', localized('selfService.emailTakenMeanwhile'));
    throw error;
  }
}

class SpentInvitation extends Error {}

/** Where a sign-in form may send the person back after a forced change: its own sign-in page, nothing else. */
export function isSignInReturnPath(value: unknown): value is string {
  return typeof value === 'string' && /^(\/console\/login|\/central|\/auth\/app\/[A-Za-z0-9_-]{1,64})$/.test(value);
}

/**
 * The person proved their password, but someone else once knew it: instead of a session, a single-use link
 * (15 minutes) to choose a new one, as a path on this Portico. The sign-in continues after the change.
 */
export async function requiredPasswordChangePath(db: Database, user: Pick<User, 'id' | 'email'>, returnPath: string): Promise<string> {
  const { token } = await issueAccountLink(db, { purpose: 'change_required', user });
  const path = new URL(accountLinkUrl('http://portico.invalid', 'change_required', token)).pathname;
  return isSignInReturnPath(returnPath) ? `${path}?return=${encodeURIComponent(returnPath)}` : path;
}
