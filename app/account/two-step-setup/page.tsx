// Setting up a second factor in the middle of a sign-in that requires one (an organization's policy, or an app that
// asked for it with acr_values): after the password, before any session or code. An authenticator app or a passkey;
// the recovery codes are shown once; then the sign-in continues.
import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { totpEnrollmentOf } from '@/lib/accounts/factors/totp';
import { enrollmentSecret, pendingSecondStep, SECOND_STEP_COOKIE } from '@/lib/accounts/sign-in-second-step';
import { interactionPath } from '@/lib/oidc/interactions';
import { getT } from '@/app/_lib/i18n/server';
import { db, runtime } from '@/lib/runtime';
import { SignInFrame } from '../../auth/app/_components/sign-in-frame';
import { CardForm } from '../_components/card-form';
import { enrollAtSignInAction, enrollmentPasskeyOptionsAction, enrollPasskeyAtSignInAction } from './actions';
import { EnrollPasskey } from './enroll-passkey';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('account.twoStepSetup'))('title') };
}

export default async function TwoStepSetupPage() {
  const t = await getT('account.twoStepSetup');
  const token = (await cookies()).get(SECOND_STEP_COOKIE)?.value;
  const pending = await pendingSecondStep(db(), token);
  if (!pending?.continuation.enroll || !token) {
    return (
      <SignInFrame>
        <h1>{t('endedTitle')}</h1>
        <p data-testid="setup-ended">{t('endedBody')}</p>
      </SignInFrame>
    );
  }
  const { user, continuation } = pending;
  if ((continuation as { enrolled?: boolean }).enrolled) {
    const withPasskey = !((continuation as { enrolledAmr?: unknown }).enrolledAmr as string[] | undefined)?.includes('otp');
    return (
      <SignInFrame>
        <h1>{t('onTitle')}</h1>
        <p>{withPasskey ? t('onWithPasskey') : t('onWithApp')}</p>
        <form method="post" action={continuation.surface === 'app' ? `${interactionPath(continuation.uid)}/enrolled` : '/account/two-step-setup/continue'}>
          <button className="button" type="submit" data-testid="continue-sign-in">
            {t('continueTo', { surface: continuation.surface })}
          </button>
        </form>
      </SignInFrame>
    );
  }
  const { atRestKey } = runtime();
  const secret = await enrollmentSecret(db(), atRestKey, token);
  if (!secret) return null;
  const enrollment = await totpEnrollmentOf(secret, atRestKey, user);
  return (
    <SignInFrame>
      <h1>{t('title')}</h1>
      <p data-testid="setup-required">{t.rich('required', { surface: continuation.surface, email: user.email, strong: (chunks) => <strong>{chunks}</strong> })}</p>
      <h2 className="mt-4 text-base font-semibold">{t('appHeading')}</h2>
      <p>{t('scanStep')}</p>
      <img src={enrollment.qrCode} alt={t('qrAlt')} width={180} height={180} />
      <p className="text-sm">
        {t('key')} <code data-testid="totp-secret">{enrollment.secret.match(/.{1,4}/g)?.join(' ')}</code>
      </p>
      <p>{t('enterCodeStep')}</p>
      <CardForm
        action={enrollAtSignInAction}
        testId="setup-totp"
        submitLabel={t('turnOn')}
        fields={[{ name: 'code', label: t('codeFromApp'), autoComplete: 'one-time-code', required: true, maxLength: 8 }]}
      />
      <h2 className="mt-6 text-base font-semibold">{t('passkeyHeading')}</h2>
      <p className="text-sm">{t('passkeyIntro')}</p>
      <EnrollPasskey optionsAction={enrollmentPasskeyOptionsAction} registerAction={enrollPasskeyAtSignInAction} />
    </SignInFrame>
  );
}
