// A person's own changes to their sign-in factors, from their account page: turning on an authenticator app, removing
// it, replacing the recovery codes, removing a passkey (adding one: passkeyRegistrationAfterStepUp). Each asks for
// step-up with the strongest factor the person has now (a passkey made for this, else their authenticator's code,
// else their password): a session left open, even with a phished password, cannot bind its own authenticator or
// strip the account down to the password. Each change is audited and mailed to the owner, in its transaction.
// Removing a factor also ends the person's app sessions, which may have been opened with it (and the apps hear it).
import { and, eq, sql } from 'drizzle-orm';
import { recordAuditEvent } from '../../audit/events';
import type { Database } from '../../db/client';
import { localized } from '../../i18n/catalogs';
import { passkeys, recoveryCodes, totpFactors } from '../../db/schema';
import type { RelyingParty } from './factor';
import type { AccountMailContext } from '../password-reset';
import { afterFactorChange } from './factor-change';
import { personActor, personSubject, secondFactorStateOf } from './second-factors';
import { confirmTotpEnrollment, removeTotp } from './totp';
import { replaceRecoveryCodes } from './recovery-codes';
import { accountFactorsContext, verifyStepUp } from './step-up';
import { type StepUpProof } from './factor';
import type { User } from '../users';
import { secondFactorRefusal } from '../refusal-codes';

/** What every change needs: the person, the step-up proof, where it comes from, and what checks it. */
export interface OwnFactorChange {
  user: User;
  proof: StepUpProof;
  ip: string;
  keys: { atRestKey: Uint8Array; rp: RelyingParty };
}

/** The form field a step-up refusal stands next to on the account page. */
export const STEP_UP_FIELDS = { password: 'currentPassword', code: 'stepUpCode', passkey: 'form' } as const;

async function stepUp(db: Database, change: OwnFactorChange, addsFactor = false): Promise<void> {
  await verifyStepUp(db, change.keys.atRestKey, { user: change.user, proof: change.proof, ip: change.ip, rp: change.keys.rp, context: accountFactorsContext(change.user.id), addsFactor, fields: STEP_UP_FIELDS });
}

/** Turns on the authenticator waiting for its first code; answers the recovery codes, once. */
export async function confirmOwnTotp(db: Database, change: OwnFactorChange & { code: string; mail: AccountMailContext }): Promise<string[]> {
  await stepUp(db, change, true);
  return db.transaction(async (tx) => {
    const { recoveryCodes: codes } = await confirmTotpEnrollment(tx, change.keys.atRestKey, change.user, change.code);
    await afterFactorChange(tx, { user: change.user, ip: change.ip, mail: change.mail, change: 'added', factor: { kind: 'totp' } });
    return codes;
  });
}

export async function removeOwnTotp(db: Database, change: OwnFactorChange & { mail: AccountMailContext }): Promise<void> {
  await stepUp(db, change);
  await db.transaction(async (tx) => {
    if (!(await removeTotp(tx, change.user.id))) throw secondFactorRefusal(localized('account.refusals.noAuthenticator'), 'form');
    await afterFactorChange(tx, { user: change.user, ip: change.ip, mail: change.mail, change: 'removed', factor: { kind: 'totp' } });
  });
}

export async function replaceOwnRecoveryCodes(db: Database, change: OwnFactorChange): Promise<string[]> {
  await stepUp(db, change);
  return db.transaction(async (tx) => {
    const state = await secondFactorStateOf(tx, change.user.id);
    if (state.totp !== 'confirmed' && state.passkeys === 0) throw secondFactorRefusal(localized('account.refusals.noSecondFactorYet'), 'form');
    const codes = await replaceRecoveryCodes(tx, change.user.id);
    await recordAuditEvent(tx, { orgId: null, actor: personActor(change.user, change.ip), action: 'second_factor.recovery_codes_replaced', subject: personSubject(change.user) });
    return codes;
  });
}

/** Removes one of the person's passkeys; the recovery codes go with the last second factor. */
export async function removeOwnPasskey(db: Database, change: OwnFactorChange & { passkeyId: string; mail: AccountMailContext }): Promise<void> {
  await stepUp(db, change);
  await db.transaction(async (tx) => {
    const [removed] = await tx
      .delete(passkeys)
      .where(and(eq(passkeys.id, change.passkeyId), eq(passkeys.userId, change.user.id)))
      .returning({ name: passkeys.name, transports: passkeys.transports });
    if (!removed) throw secondFactorRefusal(localized('account.refusals.passkeyNotYoursOrRemoved'), 'form');
    await tx
      .delete(recoveryCodes)
      .where(
        and(
          eq(recoveryCodes.userId, change.user.id),
          sql`not exists (select 1 from ${passkeys} where ${passkeys.userId} = ${change.user.id})`,
          sql`not exists (select 1 from ${totpFactors} where ${totpFactors.userId} = ${change.user.id} and ${totpFactors.confirmedAt} is not null)`,
        ),
      );
    await afterFactorChange(tx, { user: change.user, ip: change.ip, mail: change.mail, change: 'removed', factor: { kind: 'passkey', name: removed.name, transports: removed.transports ?? [] } });
  });
}
