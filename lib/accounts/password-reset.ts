// "Forgot password": a reset link by mail, single use, 30 minutes. The answer is the same — in status, body and
// time — whether or not the email has an account: the request does its work, then waits out a fixed floor, so
// that an account that exists (a link issued, a mail queued) cannot be told from one that does not. Limited per
// typed address (any string, existing or not) and per client address, in PostgreSQL (every instance counts).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database, Queryable } from '../db/client';
import { recordAuditEvent } from '../audit/events';
import { enqueueMail } from '../deliveries/channels/mail';
import { mailLocaleFor } from '../i18n/recipient';
import { passwordResetMail, ssoRequiredResetMail, type MailMessage } from '../mail/messages';
import { ssoRequiredFor } from '../identity/sso-required';
import { hitRateLimit, type RateLimitRule } from '../rate-limit/fixed-window';
import { ACCOUNT_LINK_TTL_SECONDS, accountLinkUrl, issueAccountLink } from './account-links';
import { findUserByEmail, normalizeEmail, type User } from './users';

export interface AccountMailContext {
  issuer: string;
  atRestKey: Uint8Array;
}

export const RESET_THROTTLE: { account: RateLimitRule; ip: RateLimitRule } = {
  account: { name: 'reset:account', limit: 3, windowSeconds: 15 * 60 },
  ip: { name: 'reset:ip', limit: 20, windowSeconds: 15 * 60, perClientNetwork: true },
};

/** Every answer to a reset request takes at least this long (a mail queued or not). */
export const RESET_ANSWER_FLOOR_MS = 400;

export type ResetRequestOutcome = { status: 'accepted' } | { status: 'throttled'; retryAfterSeconds: number };

/**
 * Issues a reset link for an account (a person's request or an admin's; it replaces any earlier one) and returns
 * the mail that carries it, for the caller to queue in the same transaction.
 */
export async function issuePasswordResetMail(
  db: Queryable,
  issuer: string,
  input: { user: Pick<User, 'id' | 'email'>; orgId?: string | null; organizationName?: string; requestedBy: 'person' | 'administrator' },
): Promise<MailMessage> {
  const { token } = await issueAccountLink(db, { purpose: 'reset', user: input.user, orgId: input.orgId });
  return passwordResetMail({
    to: input.user.email,
    locale: await mailLocaleFor(db, { email: input.user.email, orgId: input.orgId }),
      organization: input.organizationName,
    link: accountLinkUrl(issuer, 'reset', token),
    expiresInMinutes: ACCOUNT_LINK_TTL_SECONDS.reset / 60,
    requestedBy: input.requestedBy,
  });
}

export async function requestPasswordReset(
  db: Database,
  mail: AccountMailContext,
  input: { email: string; ip: string; orgId?: string | null; organizationName?: string },
): Promise<ResetRequestOutcome> {
  const started = performance.now();
  const email = normalizeEmail(input.email).slice(0, 320);
  const [perAccount, perIp] = await Promise.all([hitRateLimit(db, RESET_THROTTLE.account, email), hitRateLimit(db, RESET_THROTTLE.ip, input.ip)]);
  let outcome: ResetRequestOutcome;
  if (perAccount.limited || perIp.limited) {
    outcome = { status: 'throttled', retryAfterSeconds: Math.max(perAccount.limited ? perAccount.retryAfterSeconds : 0, perIp.limited ? perIp.retryAfterSeconds : 0) };
  } else {
    await db.transaction(async (tx) => {
      const user = await findUserByEmail(tx, email);
      // Where the organization requires its company sign-in, no password is chosen: the mail says where to sign in.
      const sso = user && !user.disabledAt ? await ssoRequiredFor(tx, user) : undefined;
      if (user && !user.disabledAt && sso) {
        const locale = await mailLocaleFor(tx, { email: user.email, orgId: sso.orgId });
        await enqueueMail(tx, mail.atRestKey, ssoRequiredResetMail({ to: user.email, locale, connection: sso.connectionName, signInLink: `${mail.issuer}/console/login` }));
      } else if (user && !user.disabledAt) {
        await enqueueMail(tx, mail.atRestKey, await issuePasswordResetMail(tx, mail.issuer, { user, orgId: input.orgId, organizationName: input.organizationName, requestedBy: 'person' }));
      }
      // The same event either way: the typed address, no person id (an admin reading the log learns nothing).
      await recordAuditEvent(tx, {
        orgId: input.orgId ?? null,
        actor: { type: 'person', label: email, ip: input.ip },
        action: 'password.reset_requested',
        subject: { type: 'email', id: email, label: email },
      });
    });
    outcome = { status: 'accepted' };
  }
  // A timer may fire a fraction of a millisecond early: wait again until the floor has truly passed.
  for (let elapsed = performance.now() - started; elapsed < RESET_ANSWER_FLOOR_MS; elapsed = performance.now() - started) await sleep(Math.ceil(RESET_ANSWER_FLOOR_MS - elapsed));
  return outcome;
}
