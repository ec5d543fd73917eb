// Sign-in to Portico's console (independent of any app's sign-in).
import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { isSignInErrorCode, signInErrorMessage } from '@/lib/oidc/sign-in-errors';
import { getT, requestLocale } from '@/app/_lib/i18n/server';
import { cookies } from 'next/headers';
import { pendingSecondStep, SECOND_STEP_COOKIE, secondFactorsOf } from '@/lib/accounts/sign-in-second-step';
import { db } from '@/lib/runtime';
import { typedEmail } from '../../auth/_lib/typed-email';
import { hasEnabledConnection } from '@/lib/identity/connections';
import { endedSecondStepMessage, PasswordSignInForm, secondFactorError, SecondFactorForm, SignInFrame } from '../../auth/app/_components/sign-in-frame';
import { currentConsoleSession } from '../_lib/session';
import { consoleReturnPath } from '@/lib/accounts/console-sign-in';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('consoleSignIn'))('pageTitle') };
}

export default async function ConsoleLoginPage(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { error, second_factor: secondFactor, method, next: nextParam, step } = await props.searchParams;
  const next = consoleReturnPath(nextParam);
  const t = await getT('consoleSignIn');
  if (await currentConsoleSession()) redirect(next);
  // The password was right and the account has a second factor: the code comes next.
  const pending = await pendingSecondStep(db(), (await cookies()).get(SECOND_STEP_COOKIE)?.value);
  if (pending?.continuation.surface === 'console') {
    return (
      <SignInFrame>
        <h1>{t('title')}</h1>
        <SecondFactorForm
          action="/console/session/second-factor"
          factors={await secondFactorsOf(db(), pending.user.id)}
          error={secondFactor === 'wrong' ? await secondFactorError('wrong') : undefined}
          recovery={method === 'recovery_code'}
        />
      </SignInFrame>
    );
  }
  return (
    <SignInFrame>
      <h1>{next === '/console' ? t('title') : t('confirmTitle')}</h1>
      <p>{next === '/console' ? t('intro') : t('confirmIntro')}</p>
      <PasswordSignInForm
        action="/console/session"
        recoverHref="/account/recover"
        error={isSignInErrorCode(error) ? signInErrorMessage(error, await requestLocale()) : await endedSecondStepMessage(secondFactor)}
        hidden={next === '/console' ? undefined : { next }}
        email={error || step === 'password' ? await typedEmail() : undefined}
        emailFirst={!error && step !== 'password' && (await hasEnabledConnection(db(), null))}
      />
    </SignInFrame>
  );
}
