// Setting up a second factor in the middle of a sign-in that requires one (an organization's policy, or an app that
// asked for it with acr_values): after the password, before any session or code. An authenticator app or a passkey;
// the recovery codes are shown once; then the sign-in continues.
import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { totpEnrollmentOf } from '@/lib/accounts/second-factors';
import { enrollmentSecret, pendingSecondStep, SECOND_STEP_COOKIE } from '@/lib/accounts/sign-in-second-step';
import { interactionPath } from '@/lib/oidc/interactions';
import { db, runtime } from '@/lib/runtime';
import { SignInFrame } from '../../auth/app/_components/sign-in-frame';
import { CardForm } from '../_components/card-form';
import { enrollAtSignInAction, enrollmentPasskeyOptionsAction, enrollPasskeyAtSignInAction } from './actions';
import { EnrollPasskey } from './enroll-passkey';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Set up two-step sign-in' };

const SURFACE_NAMES = { console: 'the console', central: 'the operator central', app: 'the app' } as const;

export default async function TwoStepSetupPage() {
  const token = (await cookies()).get(SECOND_STEP_COOKIE)?.value;
  const pending = await pendingSecondStep(db(), token);
  if (!pending?.continuation.enroll || !token) {
    return (
      <SignInFrame>
        <h1>This sign-in has ended</h1>
        <p data-testid="setup-ended">Setting up two-step sign-in takes at most 15 minutes after your password. Go back to where you were signing in and start again.</p>
      </SignInFrame>
    );
  }
  const { user, continuation } = pending;
  if ((continuation as { enrolled?: boolean }).enrolled) {
    const withPasskey = !((continuation as { enrolledAmr?: unknown }).enrolledAmr as string[] | undefined)?.includes('otp');
    return (
      <SignInFrame>
        <h1>Two-step sign-in is on</h1>
        <p>
          {withPasskey
            ? 'From now on your passkey signs you in on its own, or after your password.'
            : 'From now on, signing in asks for a code from your authenticator app after your password.'}
        </p>
        <form method="post" action={continuation.surface === 'app' ? `${interactionPath(continuation.uid)}/enrolled` : '/account/two-step-setup/continue'}>
          <button className="button" type="submit" data-testid="continue-sign-in">
            Continue to {SURFACE_NAMES[continuation.surface]}
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
      <h1>Set up two-step sign-in</h1>
      <p data-testid="setup-required">
        Signing in to {SURFACE_NAMES[continuation.surface]} as <strong>{user.email}</strong> needs a second factor: your organization requires it, or the app asked
        for it. Set up one now: an authenticator app, or a passkey on this device.
      </p>
      <h2 className="mt-4 text-base font-semibold">An authenticator app</h2>
      <p>1. Scan this code with an authenticator app (or type the key below into it).</p>
      <img src={enrollment.qrCode} alt="QR code to add Portico to your authenticator app" width={180} height={180} />
      <p className="text-sm">
        Key: <code data-testid="totp-secret">{enrollment.secret.match(/.{1,4}/g)?.join(' ')}</code>
      </p>
      <p>2. Enter the code it shows.</p>
      <CardForm
        action={enrollAtSignInAction}
        testId="setup-totp"
        submitLabel="Turn on two-step sign-in"
        fields={[{ name: 'code', label: 'Code from the app', autoComplete: 'one-time-code', required: true, maxLength: 8 }]}
      />
      <h2 className="mt-6 text-base font-semibold">Or a passkey</h2>
      <p className="text-sm">Your device (fingerprint, face, screen lock or a security key) keeps it; it also signs you in without a password.</p>
      <EnrollPasskey optionsAction={enrollmentPasskeyOptionsAction} registerAction={enrollPasskeyAtSignInAction} />
    </SignInFrame>
  );
}
