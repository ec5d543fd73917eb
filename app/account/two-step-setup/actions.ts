'use server';
// Setting up a second factor in the middle of a sign-in that requires one: an authenticator app (its first code turns
// it on) or a passkey (its registration, with user verification); the recovery codes are shown once; the sign-in then
// continues (./continue).
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { cookies, headers } from 'next/headers';
import { parseRegistrationResponse, relyingPartyOf } from '@/lib/accounts/factors/passkeys';
import { enrollAtSignIn, enrollmentPasskeyOptions, enrollPasskeyAtSignIn, SECOND_STEP_COOKIE, TWO_STEP_SETUP_PATH } from '@/lib/accounts/sign-in-second-step';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { getT } from '@/app/_lib/i18n/server';
import { db, runtime } from '@/lib/runtime';
import type { CardFormState } from '../_lib/form-state';
import { refusalAnswer } from '../_lib/refusal-words';

export async function enrollAtSignInAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const t = await getT('account.twoStepSetup');
  const code = data.get('code');
  if (typeof code !== 'string' || code.trim() === '') return { status: 'error', fieldErrors: { code: t('enterSixDigits') } };
  const { env, atRestKey } = runtime();
  try {
    const codes = await enrollAtSignIn(db(), atRestKey, {
      token: (await cookies()).get(SECOND_STEP_COOKIE)?.value,
      code: code.slice(0, 32),
      ip: clientIpFromHeaders(await headers()),
      mail: { issuer: env.PORTICO_ISSUER, atRestKey },
    });
    return {
      status: 'done',
      message: t('totpOn'),
      codes,
      next: { href: TWO_STEP_SETUP_PATH, label: t('storedThem') },
    };
  } catch (error) {
    const refused = await refusalAnswer(error);
    return { status: 'error', fieldErrors: { [refused.field === 'form' ? 'form' : 'code']: refused.message } };
  }
}

/** Options for the browser to create this sign-in's passkey (bound to this pending sign-in only). */
export async function enrollmentPasskeyOptionsAction(): Promise<{ ok: true; options: PublicKeyCredentialCreationOptionsJSON } | { ok: false; message: string }> {
  try {
    return { ok: true, options: await enrollmentPasskeyOptions(db(), relyingPartyOf(runtime().env.PORTICO_ISSUER), (await cookies()).get(SECOND_STEP_COOKIE)?.value) };
  } catch (error) {
    return { ok: false, message: (await refusalAnswer(error)).message };
  }
}

export async function enrollPasskeyAtSignInAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const t = await getT('account.twoStepSetup');
  const name = data.get('name');
  const { env, atRestKey } = runtime();
  try {
    const codes = await enrollPasskeyAtSignIn(db(), relyingPartyOf(env.PORTICO_ISSUER), {
      token: (await cookies()).get(SECOND_STEP_COOKIE)?.value,
      name: typeof name === 'string' ? name.slice(0, 200) : '',
      response: parseRegistrationResponse(data.get('response')),
      ip: clientIpFromHeaders(await headers()),
      mail: { issuer: env.PORTICO_ISSUER, atRestKey },
    });
    return {
      status: 'done',
      message: t('passkeyOn'),
      codes,
      next: { href: TWO_STEP_SETUP_PATH, label: t('storedThem') },
    };
  } catch (error) {
    const refused = await refusalAnswer(error);
    return { status: 'error', fieldErrors: { [refused.field === 'name' ? 'name' : 'form']: refused.message } };
  }
}
