'use server';
// The person's own account: change the password (current + new), ask for an email confirmation link, two-step sign-in.
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { revalidatePath } from 'next/cache';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { accountFactorsContext, passkeyRegistrationAfterStepUp, stepUpPasskeyOptions } from '@/lib/accounts/factors/step-up';
import { parseRegistrationResponse, registerOwnPasskey, relyingPartyOf } from '@/lib/accounts/factors/passkeys';
import { isUuid } from '@/lib/util/uuid';
import { startTotpEnrollment } from '@/lib/accounts/factors/totp';
import { confirmOwnTotp, removeOwnPasskey, removeOwnTotp, replaceOwnRecoveryCodes, STEP_UP_FIELDS, type OwnFactorChange } from '@/lib/accounts/factors/own-factors';
import type { User } from '@/lib/accounts/users';
import { changeOwnPassword, sendVerificationLink } from '@/lib/accounts/self-service';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { getT } from '@/app/_lib/i18n/server';
import { db, runtime } from '@/lib/runtime';
import type { CardFormState } from '../../account/_lib/form-state';
import { fieldErrorsIn, refusalAnswer } from '../../account/_lib/refusal-words';
import { currentConsoleSession } from '../_lib/session';
import { NOTICE_SETTINGS, saveNoticeSettings, type NoticeSettings } from '@/lib/notifications/settings';
import { endLinkedIdentity } from '@/lib/identity/links';
import { saveOwnTimeZone } from '@/lib/i18n/time-zone';

/** Where notices of account changes are queued (the outbox) and what they link to. */
const accountMail = () => ({ issuer: runtime().env.PORTICO_ISSUER, atRestKey: runtime().atRestKey });

/** A change of the person's own factors, with the step-up the form carried (password, code, or a passkey's answer). */
async function ownFactorChange(user: User, data: FormData): Promise<OwnFactorChange> {
  const text = (name: string, max: number) => {
    const value = data.get(name);
    return typeof value === 'string' && value !== '' ? value.slice(0, max) : undefined;
  };
  const { env, atRestKey } = runtime();
  return {
    user,
    proof: { password: text('currentPassword', 1024), code: text('stepUpCode', 16), passkey: text('stepUpPasskey', 16 * 1024) },
    ip: clientIpFromHeaders(await headers()),
    keys: { atRestKey, rp: relyingPartyOf(env.PORTICO_ISSUER) },
  };
}

async function sessionEnded(): Promise<CardFormState> {
  return { status: 'error', fieldErrors: { form: (await getT('account.actions'))('sessionEnded') } };
}

export async function changePasswordAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const session = await currentConsoleSession();
  if (!session) return sessionEnded();
  const t = await getT('account.actions');
  const currentPassword = data.get('currentPassword');
  const newPassword = data.get('password');
  if (typeof newPassword !== 'string' || newPassword === '') return { status: 'error', fieldErrors: { password: t('enterNewPassword') } };
  const { env, atRestKey } = runtime();
  const result = await changeOwnPassword(db(), { issuer: env.PORTICO_ISSUER, atRestKey }, {
    user: session.user,
    keepConsoleSessionHash: session.tokenHash,
    currentPassword: typeof currentPassword === 'string' ? currentPassword.slice(0, 1024) : '',
    newPassword: newPassword.slice(0, 1024),
    ip: clientIpFromHeaders(await headers()),
  });
  if (!result.ok) return { status: 'error', fieldErrors: await fieldErrorsIn(result.fieldTexts) };
  return { status: 'done', message: t('passwordChanged'), next: { href: '/console/account', label: t('backToAccount') } };
}

export async function sendVerificationAction(_previous: CardFormState): Promise<CardFormState> {
  const session = await currentConsoleSession();
  if (!session) return sessionEnded();
  const t = await getT('account.actions');
  const { env, atRestKey } = runtime();
  const outcome = await sendVerificationLink(db(), { issuer: env.PORTICO_ISSUER, atRestKey }, session.user);
  if (outcome.status === 'throttled') return { status: 'error', fieldErrors: { form: t('linkThrottled') } };
  return { status: 'done', message: outcome.status === 'verified' ? t('emailAlreadyConfirmed') : t('linkSent', { email: session.user.email }) };
}

// Two-step sign-in: set up an authenticator app (confirmed by a first code), remove it or replace the recovery codes
// (both with the password again).
export async function startTotpAction(): Promise<void> {
  const session = await currentConsoleSession();
  if (!session) redirect('/console/login');
  try {
    await startTotpEnrollment(db(), runtime().atRestKey, session.user);
  } catch (error) {
    // A refusal (an authenticator on already) leaves the page as it is; anything else is thrown on.
    await refusalAnswer(error);
  }
  // The page shows the key and the QR code now (the enrollment waits for its first code).
  revalidatePath('/console/account');
  redirect('/console/account');
}

export async function confirmTotpAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const session = await currentConsoleSession();
  if (!session) return sessionEnded();
  const t = await getT('account.actions');
  const code = data.get('code');
  if (typeof code !== 'string' || code.trim() === '') return { status: 'error', fieldErrors: { code: t('enterSixDigits') } };
  try {
    const codes = await confirmOwnTotp(db(), { ...(await ownFactorChange(session.user, data)), code: code.slice(0, 32), mail: accountMail() });
    return {
      status: 'done',
      message: t('totpOn'),
      codes,
      next: { href: '/console/account?done=two-step#two-step', label: t('storedThem') },
    };
  } catch (error) {
    // Each refusal stands next to the field it is about.
    const refused = await refusalAnswer(error);
    return { status: 'error', fieldErrors: { [refused.field]: refused.message } };
  }
}

export async function removeTotpAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const session = await currentConsoleSession();
  if (!session) return sessionEnded();
  const t = await getT('account.actions');
  try {
    await removeOwnTotp(db(), { ...(await ownFactorChange(session.user, data)), mail: accountMail() });
    return { status: 'done', message: t('totpOff'), next: { href: '/console/account?done=two-step#two-step', label: t('backToAccount') } };
  } catch (error) {
    const refused = await refusalAnswer(error);
    return { status: 'error', fieldErrors: { [refused.field]: refused.message } };
  }
}

export async function replaceRecoveryCodesAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const session = await currentConsoleSession();
  if (!session) return sessionEnded();
  const t = await getT('account.actions');
  try {
    const codes = await replaceOwnRecoveryCodes(db(), await ownFactorChange(session.user, data));
    return { status: 'done', message: t('newRecoveryCodes'), codes, next: { href: '/console/account?done=two-step#two-step', label: t('storedThem') } };
  } catch (error) {
    const refused = await refusalAnswer(error);
    return { status: 'error', fieldErrors: { [refused.field]: refused.message } };
  }
}

/** A passkey step-up for a change of the person's own factors (adding a passkey), when a passkey is their strongest. */
export async function accountStepUpOptionsAction(): Promise<{ ok: true; options: PublicKeyCredentialRequestOptionsJSON } | { ok: false; message: string }> {
  const session = await currentConsoleSession();
  if (!session) return { ok: false, message: (await getT('account.actions'))('sessionEnded') };
  try {
    return { ok: true, options: await stepUpPasskeyOptions(db(), relyingPartyOf(runtime().env.PORTICO_ISSUER), { user: session.user, context: accountFactorsContext(session.user.id) }) };
  } catch (error) {
    return { ok: false, message: (await refusalAnswer(error)).message };
  }
}

/** Step one of adding a passkey: step-up with the strongest factor, then the browser's registration options. */
export async function passkeyRegistrationOptionsAction(proof: { password?: string; code?: string; passkey?: string }): Promise<{ ok: true; options: PublicKeyCredentialCreationOptionsJSON } | { ok: false; field: string; message: string }> {
  const session = await currentConsoleSession();
  if (!session) return { ok: false, field: 'form', message: (await getT('account.actions'))('sessionEnded') };
  const text = (value: unknown, max: number) => (typeof value === 'string' && value !== '' ? value.slice(0, max) : undefined);
  const { env, atRestKey } = runtime();
  try {
    const options = await passkeyRegistrationAfterStepUp(db(), atRestKey, relyingPartyOf(env.PORTICO_ISSUER), {
      user: session.user,
      proof: { password: text(proof?.password, 1024), code: text(proof?.code, 16), passkey: text(proof?.passkey, 16 * 1024) },
      ip: clientIpFromHeaders(await headers()),
      fields: STEP_UP_FIELDS,
    });
    return { ok: true, options };
  } catch (error) {
    return { ok: false, ...(await refusalAnswer(error)) };
  }
}

/** Step two: the browser's answer, with the name the person gave it. */
export async function registerPasskeyAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const session = await currentConsoleSession();
  if (!session) return sessionEnded();
  const t = await getT('account.actions');
  const name = data.get('name');
  try {
    const { recoveryCodes } = await registerOwnPasskey(db(), relyingPartyOf(runtime().env.PORTICO_ISSUER), {
      user: session.user,
      name: typeof name === 'string' ? name.slice(0, 200) : '',
      response: parseRegistrationResponse(data.get('response')),
      ip: clientIpFromHeaders(await headers()),
      mail: accountMail(),
    });
    return recoveryCodes
      ? {
          status: 'done',
          message: t('passkeyAddedWithCodes'),
          codes: recoveryCodes,
          next: { href: '/console/account?done=passkey#passkeys', label: t('storedThem') },
        }
      : { status: 'done', message: t('passkeyAdded'), next: { href: '/console/account?done=passkey#passkeys', label: t('backToAccount') } };
  } catch (error) {
    const refused = await refusalAnswer(error);
    return { status: 'error', fieldErrors: { [refused.field]: refused.message } };
  }
}

export async function removePasskeyAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const session = await currentConsoleSession();
  if (!session) return sessionEnded();
  const t = await getT('account.actions');
  const passkeyId = data.get('passkeyId');
  if (typeof passkeyId !== 'string' || !isUuid(passkeyId)) return { status: 'error', fieldErrors: { form: t('passkeyNotYours') } };
  try {
    await removeOwnPasskey(db(), { ...(await ownFactorChange(session.user, data)), passkeyId, mail: accountMail() });
    return { status: 'done', message: t('passkeyRemoved'), next: { href: '/console/account?done=passkey#passkeys', label: t('backToAccount') } };
  } catch (error) {
    const refused = await refusalAnswer(error);
    return { status: 'error', fieldErrors: { [refused.field]: refused.message } };
  }
}

/** Ends one of the person's own links to a company identity provider's subject (lib/identity/links.ts). */
export async function removeLinkAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const session = await currentConsoleSession();
  if (!session) return sessionEnded();
  const t = await getT('account.actions');
  const linkId = data.get('linkId');
  if (typeof linkId !== 'string' || !isUuid(linkId)) return { status: 'error', fieldErrors: { form: t('linkNotYours') } };
  const ip = clientIpFromHeaders(await headers());
  const ended = await db().transaction((tx) => endLinkedIdentity(tx, { userId: session.user.id }, linkId, { actor: { id: session.user.id, label: session.user.email, ip } }));
  if (!ended) return { status: 'error', fieldErrors: { form: t('linkNotYours') } };
  revalidatePath('/console/account');
  return { status: 'done', message: t('linkRemoved'), next: { href: '/console/account#links', label: t('backToAccount') } };
}

/** Which notices reach the person by mail (every box sent is on; one not sent is off). */
export async function saveNotificationSettingsAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const session = await currentConsoleSession();
  if (!session) return sessionEnded();
  const settings = Object.fromEntries(NOTICE_SETTINGS.map((name) => [name, data.get(name) === 'on'])) as NoticeSettings;
  await saveNoticeSettings(db(), session.user.id, settings);
  revalidatePath('/console/account');
  return { status: 'done', message: (await getT('account.notifications'))('saved') };
}

/** The person's own time zone (lib/i18n/time-zone.ts): a zone of the list, or '' for their browser's. */
export async function saveTimeZoneAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const session = await currentConsoleSession();
  if (!session) return sessionEnded();
  const t = await getT('account.timeZone');
  const value = data.get('timeZone');
  const saved = await saveOwnTimeZone(db(), session.user.id, typeof value === 'string' ? value.slice(0, 100) : '\u0000');
  if (!saved.ok) return { status: 'error', fieldErrors: { timeZone: t('invalid') } };
  revalidatePath('/console/account');
  return { status: 'done', message: saved.zone ? t('saved', { zone: saved.zone.replaceAll('_', ' ') }) : t('savedBrowser') };
}
