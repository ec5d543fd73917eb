'use server';
import { headers } from 'next/headers';
import { isSignInReturnPath, setPasswordWithLink } from '@/lib/accounts/self-service';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db, runtime } from '@/lib/runtime';
import type { CardFormState } from '../../_lib/form-state';

export async function setPasswordAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const password = data.get('password');
  if (typeof password !== 'string' || password === '') return { status: 'error', fieldErrors: { password: 'Enter a password.' } };
  const { env, atRestKey } = runtime();
  const result = await setPasswordWithLink(db(), { issuer: env.PORTICO_ISSUER, atRestKey }, { token: data.get('token'), password: password.slice(0, 1024), ip: clientIpFromHeaders(await headers()) });
  if (!result.ok) return { status: 'error', fieldErrors: result.fieldErrors };
  runtime().mail.kick();
  const returnPath = data.get('return');
  const next = isSignInReturnPath(returnPath) ? { href: returnPath, label: 'Continue to sign in' } : { href: '/console/login', label: 'Sign in to the console' };
  return {
    status: 'done',
    message:
      result.value.purpose === 'setup'
        ? 'Your password is set. Sign in with it from any app of your organization, or from the console.'
        : 'Your password is changed and every session was signed out. Sign in again with the new password, in the console or from your apps.',
    next,
  };
}
