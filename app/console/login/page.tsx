// Sign-in to Portico's console (independent of any app's sign-in).
import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { isSignInErrorCode, SIGN_IN_ERRORS } from '@/lib/oidc/sign-in-errors';
import { cookies } from 'next/headers';
import { pendingSecondStep, SECOND_STEP_COOKIE, secondFactorsOf } from '@/lib/accounts/sign-in-second-step';
import { db } from '@/lib/runtime';
import { typedEmail } from '../../auth/_lib/typed-email';
import { endedSecondStepMessage, PasswordSignInForm, SECOND_FACTOR_ERRORS, SecondFactorForm, SignInFrame } from '../../auth/app/_components/sign-in-frame';
import { currentConsoleSession } from '../_lib/session';
import { consoleReturnPath } from '@/lib/accounts/console-sign-in';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Console sign-in' };

export default async function ConsoleLoginPage(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { error, second_factor: secondFactor, method, next: nextParam } = await props.searchParams;
  const next = consoleReturnPath(nextParam);
  if (await currentConsoleSession()) redirect(next);
  // The password was right and the account has a second factor: the code comes next.
  const pending = await pendingSecondStep(db(), (await cookies()).get(SECOND_STEP_COOKIE)?.value);
  if (pending?.continuation.surface === 'console') {
    return (
      <SignInFrame>
        <h1>Sign in to the console</h1>
        <SecondFactorForm
          action="/console/session/second-factor"
          factors={await secondFactorsOf(db(), pending.user.id)}
          error={secondFactor === 'wrong' ? SECOND_FACTOR_ERRORS.wrong : undefined}
          recovery={method === 'recovery_code'}
        />
      </SignInFrame>
    );
  }
  return (
    <SignInFrame>
      <h1>{next === '/console' ? 'Sign in to the console' : 'Sign in to Portico'}</h1>
      <p>{next === '/console' ? 'Manage your organization’s apps, members and audit log.' : 'Sign in to confirm or deny what an agent asked to do for you.'}</p>
      <PasswordSignInForm
        action="/console/session"
        recoverHref="/account/recover"
        error={isSignInErrorCode(error) ? SIGN_IN_ERRORS[error] : endedSecondStepMessage(secondFactor)}
        hidden={next === '/console' ? undefined : { next }}
        email={error ? await typedEmail() : undefined}
      />
    </SignInFrame>
  );
}
