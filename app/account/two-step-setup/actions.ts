'use server';
// Setting up an authenticator in the middle of a sign-in that requires one: the first code turns it on and shows the
// recovery codes once; the sign-in then continues (./continue).
import { cookies, headers } from 'next/headers';
import { SecondFactorRefusal } from '@/lib/accounts/second-factors';
import { enrollAtSignIn, SECOND_STEP_COOKIE, TWO_STEP_SETUP_PATH } from '@/lib/accounts/sign-in-second-step';
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
