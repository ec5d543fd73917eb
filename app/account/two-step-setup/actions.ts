'use server';
// Setting up a second factor in the middle of a sign-in that requires one: an authenticator app (its first code turns
// it on) or a passkey (its registration, with user verification); the recovery codes are shown once; the sign-in then
// continues (./continue).
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { cookies, headers } from 'next/headers';
import { parseRegistrationResponse, PasskeyRefusal, relyingPartyOf } from '@/lib/accounts/passkeys';
import { SecondFactorRefusal } from '@/lib/accounts/second-factors';
import { enrollAtSignIn, enrollmentPasskeyOptions, enrollPasskeyAtSignIn, SECOND_STEP_COOKIE, TWO_STEP_SETUP_PATH } from '@/lib/accounts/sign-in-second-step';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db, runtime } from '@/lib/runtime';
import type { CardFormState } from '../_lib/form-state';

export async function enrollAtSignInAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const code = data.get('code');
  if (typeof code !== 'string' || code.trim() === '') return { status: 'error', fieldErrors: { code: 'Enter the 6 digits your authenticator app shows.' } };
  const { env, atRestKey } = runtime();
  try {
    const codes = await enrollAtSignIn(db(), atRestKey, {
      token: (await cookies()).get(SECOND_STEP_COOKIE)?.value,
      code: code.slice(0, 32),
      ip: clientIpFromHeaders(await headers()),
      mail: { issuer: env.PORTICO_ISSUER, atRestKey },
    });
    runtime().mail.kick();
    return {
      status: 'done',
      message: 'Two-step sign-in is on. Store these recovery codes somewhere safe — each works once, if you lose your phone. They are shown only now.',
      codes,
      next: { href: TWO_STEP_SETUP_PATH, label: 'I have stored them' },
    };
  } catch (error) {
    if (error instanceof SecondFactorRefusal) return { status: 'error', fieldErrors: { [error.field === 'form' ? 'form' : 'code']: error.message } };
    throw error;
  }
}

/** Options for the browser to create this sign-in's passkey (bound to this pending sign-in only). */
export async function enrollmentPasskeyOptionsAction(): Promise<{ ok: true; options: PublicKeyCredentialCreationOptionsJSON } | { ok: false; message: string }> {
  try {
    return { ok: true, options: await enrollmentPasskeyOptions(db(), relyingPartyOf(runtime().env.PORTICO_ISSUER), (await cookies()).get(SECOND_STEP_COOKIE)?.value) };
  } catch (error) {
    if (error instanceof SecondFactorRefusal || error instanceof PasskeyRefusal) return { ok: false, message: error.message };
    throw error;
  }
}

export async function enrollPasskeyAtSignInAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
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
    runtime().mail.kick();
    return {
      status: 'done',
      message: 'Your passkey is added and two-step sign-in is on. Store these recovery codes somewhere safe — each works once, if you lose your passkey. They are shown only now.',
      codes,
      next: { href: TWO_STEP_SETUP_PATH, label: 'I have stored them' },
    };
  } catch (error) {
    if (error instanceof SecondFactorRefusal) return { status: 'error', fieldErrors: { [error.field === 'name' ? 'name' : 'form']: error.message } };
    if (error instanceof PasskeyRefusal) return { status: 'error', fieldErrors: { form: error.message } };
    throw error;
  }
}
