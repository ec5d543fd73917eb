// /central – the operator central: its own sign-in, then the pending requests this operator may decide (live), and
// a way to open any request by its id.
import type { Metadata } from 'next';
import { listCentralRequests } from '@/lib/approvals/central';
import { isSignInErrorCode, signInErrorMessage } from '@/lib/oidc/sign-in-errors';
import { getT, requestLocale } from '@/app/_lib/i18n/server';
import { db } from '@/lib/runtime';
import { cookies } from 'next/headers';
import { pendingSecondStep, SECOND_STEP_COOKIE, secondFactorsOf } from '@/lib/accounts/sign-in-second-step';
import { typedEmail } from '../auth/_lib/typed-email';
import { hasEnabledConnection } from '@/lib/identity/connections';
import { endedSecondStepMessage, PasswordSignInForm, secondFactorError, SecondFactorForm, SignInFrame } from '../auth/app/_components/sign-in-frame';
import { currentCentralSession } from './_lib/central';
import { CentralFrame } from './_components/central-frame';
import { LiveRequests } from './_components/live-requests';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('centralSignIn'))('pageTitle') };
}

export default async function CentralHome(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const session = await currentCentralSession();
  const t = await getT('centralSignIn');
  const { error, next, second_factor: secondFactor, method, step } = await props.searchParams;
  // The password was right and the account has a second factor: the code comes next.
  const pending = session ? undefined : await pendingSecondStep(db(), (await cookies()).get(SECOND_STEP_COOKIE)?.value);
  if (pending?.continuation.surface === 'central') {
    return (
      <SignInFrame>
        <h1>{t('title')}</h1>
        <SecondFactorForm
          action="/central/session/second-factor"
          factors={await secondFactorsOf(db(), pending.user.id)}
          error={secondFactor === 'wrong' ? await secondFactorError('wrong') : undefined}
          recovery={method === 'recovery_code'}
        />
      </SignInFrame>
    );
  }
  if (!session) {
    return (
      <SignInFrame>
        <h1>{t('title')}</h1>
        <p>{t('intro')}</p>
        <PasswordSignInForm
          action="/central/session"
          recoverHref="/account/recover"
          error={isSignInErrorCode(error) ? signInErrorMessage(error, await requestLocale()) : await endedSecondStepMessage(secondFactor)}
          hidden={typeof next === 'string' ? { next } : undefined}
          email={error || step === 'password' ? await typedEmail() : undefined}
          emailFirst={!error && step !== 'password' && (await hasEnabledConnection(db(), null))}
        />
      </SignInFrame>
    );
  }
  const requests = await listCentralRequests(db(), session.user);
  return <PendingRequests email={session.user.email} requests={requests} />;
}

/** The signed-in central: the pending requests (live), and a request opened by its id. */
async function PendingRequests({ email, requests }: { email: string; requests: Awaited<ReturnType<typeof listCentralRequests>> }) {
  const t = await getT('central.home');
  return (
    <CentralFrame email={email}>
      <section className="panel mb-6" aria-labelledby="pending-heading">
        <h1 id="pending-heading" className="mb-3 text-xl font-semibold">
          {t('pendingHeading')}
        </h1>
        <LiveRequests initial={requests} />
      </section>
      <section className="panel" aria-labelledby="open-heading">
        <h2 id="open-heading" className="mb-2 font-semibold">
          {t('openHeading')}
        </h2>
        <form method="get" action="/central/requests" className="flex gap-2">
          <input name="id" aria-label={t('requestIdLabel')} placeholder="apr_…" className="flex-1 rounded-md border border-slate-300 px-3 py-2" required pattern="apr_[A-Za-z0-9_\-]{24}" />
          <button type="submit" className="btn btn-secondary">
            {t('open')}
          </button>
        </form>
      </section>
    </CentralFrame>
  );
}
