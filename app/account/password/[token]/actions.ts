'use server';
import { headers } from 'next/headers';
import { isSignInReturnPath, setPasswordWithLink } from '@/lib/accounts/self-service';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { getT } from '@/app/_lib/i18n/server';
import { db, runtime } from '@/lib/runtime';
import type { CardFormState } from '../../_lib/form-state';
import { fieldErrorsIn } from '../../_lib/refusal-words';

export async function setPasswordAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const t = await getT('account.passwordLink');
  const password = data.get('password');
  if (typeof password !== 'string' || password === '') return { status: 'error', fieldErrors: { password: t('enterPassword') } };
  const { env, atRestKey } = runtime();
  const result = await setPasswordWithLink(db(), { issuer: env.PORTICO_ISSUER, atRestKey }, { token: data.get('token'), password: password.slice(0, 1024), ip: clientIpFromHeaders(await headers()) });
  if (!result.ok) return { status: 'error', fieldErrors: await fieldErrorsIn(result.fieldTexts) };
  const returnPath = data.get('return');
  const next = isSignInReturnPath(returnPath) ? { href: returnPath, label: t('continueToSignIn') } : { href: '/console/login', label: t('signInToConsole') };
  return {
    status: 'done',
    message: result.value.purpose === 'setup' ? t('setupDone') : t('resetDone'),
    next,
  };
}
