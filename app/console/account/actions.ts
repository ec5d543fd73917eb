'use server';
// The person's own account: change the password (current + new), ask for an email confirmation link.
import { headers } from 'next/headers';
import { changeOwnPassword, sendVerificationLink } from '@/lib/accounts/self-service';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db, runtime } from '@/lib/runtime';
import type { CardFormState } from '../../account/_lib/form-state';
import { currentConsoleSession } from '../_lib/session';

const SESSION_ENDED: CardFormState = { status: 'error', fieldErrors: { form: 'Your console session has ended. Sign in again.' } };

export async function changePasswordAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const session = await currentConsoleSession();
  if (!session) return SESSION_ENDED;
  const currentPassword = data.get('currentPassword');
  const newPassword = data.get('password');
  if (typeof newPassword !== 'string' || newPassword === '') return { status: 'error', fieldErrors: { password: 'Enter a new password.' } };
  const { env, atRestKey } = runtime();
  const result = await changeOwnPassword(db(), { issuer: env.PORTICO_ISSUER, atRestKey }, {
    user: session.user,
    keepConsoleSessionHash: session.tokenHash,
    currentPassword: typeof currentPassword === 'string' ? currentPassword.slice(0, 1024) : '',
    newPassword: newPassword.slice(0, 1024),
    ip: clientIpFromHeaders(await headers()),
  });
  if (!result.ok) return { status: 'error', fieldErrors: result.fieldErrors };
  runtime().mail.kick();
  return { status: 'done', message: 'Your password is changed. Every other session and every app sign-in has ended; a notice was mailed to you.', next: { href: '/console/account', label: 'Back to your account' } };
}

export async function sendVerificationAction(_previous: CardFormState): Promise<CardFormState> {
  const session = await currentConsoleSession();
  if (!session) return SESSION_ENDED;
  const { env, atRestKey } = runtime();
  const outcome = await sendVerificationLink(db(), { issuer: env.PORTICO_ISSUER, atRestKey }, session.user);
  if (outcome.status === 'throttled') return { status: 'error', fieldErrors: { form: 'A link was sent a short while ago. Wait a few minutes before asking again.' } };
  runtime().mail.kick();
  return { status: 'done', message: outcome.status === 'verified' ? 'Your email is already confirmed.' : `A confirmation link is on its way to ${session.user.email}. It works once, for 24 hours.` };
}
