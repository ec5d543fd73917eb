// /account/recover – "Forgot password?" for the console and the central.
import type { Metadata } from 'next';
import { RecoveryCard } from '../_components/recovery-card';
import { SignInFrame } from '../../auth/app/_components/sign-in-frame';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Forgot your password?' };

export default async function RecoverPage(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { sent, error } = await props.searchParams;
  return (
    <SignInFrame>
      <RecoveryCard action="/account/recover/request" sent={sent === '1'} invalidEmail={error === 'email'} back={{ href: '/console/login', label: 'Back to sign-in' }} />
    </SignInFrame>
  );
}
