// What follows any change of a person's second factors, written once: the audit event, the notice mailed to the owner,
// the Shared Signals CAEP credential-change event to the apps they use, and, for a removal, the end of their sessions
// (which may have been opened with that factor; the apps hear it). The fourth outside review found the copies
// drifting apart: an authenticator app set up during sign-in queued no credential-change event while a passkey set up
// there did. Every place that adds or removes a factor — the account page (own-factors.ts), a passkey's registration
// (passkeys.ts), an authenticator set up at sign-in (sign-in-second-step.ts) — calls this in its own transaction.
import { recordAuditEvent } from '../../audit/events';
import type { Queryable } from '../../db/client';
import { enqueueMail } from '../../deliveries/channels/mail';
import { endSessions } from '../../grants';
import { mailTimeZoneFor } from '../../i18n/time-zone';
import { mailLocaleFor } from '../../i18n/recipient';
import { secondFactorChangedMail } from '../../mail/messages';
import { queueCredentialChange } from '../../ssf/events';
import type { AccountMailContext } from '../password-reset';
import { personActor, personSubject, secondFactorCount } from './second-factors';
import type { User } from '../users';

export type ChangedFactor = { kind: 'totp' } | { kind: 'passkey'; name: string; transports: readonly string[] };

export async function afterFactorChange(
  tx: Queryable,
  input: { user: User; ip: string; mail: AccountMailContext; change: 'added' | 'removed'; factor: ChangedFactor; during?: 'sign_in' },
): Promise<void> {
  const { user, factor, change } = input;
  await recordAuditEvent(tx, {
    orgId: null,
    actor: personActor(user, input.ip),
    action: change === 'added' ? 'second_factor.enrolled' : 'second_factor.removed',
    subject: personSubject(user),
    details: { ...(factor.kind === 'totp' ? { kind: 'totp' } : { kind: 'passkey', name: factor.name }), ...(input.during ? { during: input.during } : {}) },
  });
  // The owner hears of every change, in the change's transaction (lost with it, never without it).
  const locale = await mailLocaleFor(tx, { email: user.email });
  const timeZone = await mailTimeZoneFor(tx, { email: user.email });
  await enqueueMail(tx, input.mail.atRestKey, secondFactorChangedMail({ to: user.email, locale, timeZone, when: new Date(), change, factor: factor.kind === 'totp' ? 'authenticator app' : 'passkey', accountLink: `${input.mail.issuer}/console/account` }));
  const factors = await secondFactorCount(tx, user.id);
  const added = change === 'added' ? 1 : -1;
  await queueCredentialChange(tx, {
    userId: user.id,
    credentialType: factor.kind === 'totp' ? 'app' : factor.transports.includes('internal') ? 'fido2-platform' : 'fido2-roaming',
    changeType: change === 'added' ? 'create' : 'delete',
    ...(factor.kind === 'passkey' ? { friendlyName: factor.name } : {}),
    secondFactorsBefore: factors - added,
    secondFactorsAfter: factors,
  });
  if (change === 'removed') await endSessions(tx, user.id, 'second_factor_removed');
}
