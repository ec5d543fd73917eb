'use server';
// Accepting an invitation: the invitee's own password (a new account) or their existing one; then the console.
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { acceptInvitationWithPassword, requiredPasswordChangePath } from '@/lib/accounts/self-service';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { getT } from '@/app/_lib/i18n/server';
import { db, runtime } from '@/lib/runtime';
import { beginSecondStep, ENROLLMENT_SECONDS, SECOND_STEP_COOKIE, SECOND_STEP_SECONDS, stepAfterPassword, TWO_STEP_SETUP_PATH } from '@/lib/accounts/sign-in-second-step';
import type { CardFormState } from '../../account/_lib/form-state';
import { fieldErrorsIn } from '../../account/_lib/refusal-words';
import { startConsoleSession } from '../../console/_lib/session';

export async function acceptInvitationAction(_previous: CardFormState, data: FormData): Promise<CardFormState> {
  const requestHeaders = await headers();
  const ip = clientIpFromHeaders(requestHeaders);
  const password = data.get('password');
  const name = data.get('name');
  if (typeof password !== 'string' || password === '') return { status: 'error', fieldErrors: { password: (await getT('invite'))('enterPassword') } };
  const result = await acceptInvitationWithPassword(db(), {
    token: data.get('token'),
    password: password.slice(0, 1024),
    name: typeof name === 'string' ? name : undefined,
    ip,
  });
  if (!result.ok) return { status: 'error', fieldErrors: await fieldErrorsIn(result.fieldTexts) };
  const { user, orgSlug, passwordChangeRequired } = result.value;
  if (passwordChangeRequired) {
    // Someone else once knew this password: the invitee chooses a new one before anything else.
    redirect(await requiredPasswordChangePath(db(), user, '/console/login'));
  }
  // An account with a second factor signs in with it here too: the code comes next, on the console's sign-in page.
  // An organization that requires one: it is set up now, before the console opens.
  const step = await stepAfterPassword(db(), user.id, {});
  if (step !== 'none') {
    const token = await beginSecondStep(db(), { userId: user.id, continuation: { surface: 'console', events: { surface: 'console', ip }, ...(step === 'enroll' ? { enroll: true } : {}) } });
    (await cookies()).set(SECOND_STEP_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: runtime().env.issuerIsHttps, path: '/', maxAge: step === 'enroll' ? ENROLLMENT_SECONDS : SECOND_STEP_SECONDS });
    redirect(step === 'enroll' ? TWO_STEP_SETUP_PATH : '/console/login');
  }
  await startConsoleSession(user, { ip, userAgent: requestHeaders.get('user-agent') ?? undefined });
  redirect(`/console/${orgSlug}/apps`);
}
