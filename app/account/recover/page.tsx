// /account/recover – "Forgot password?" for the console and the central.
import type { Metadata } from 'next';
import { getT } from '@/app/_lib/i18n/server';
import { RecoveryCard } from '../_components/recovery-card';
import { SignInFrame } from '../../auth/app/_components/sign-in-frame';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('recovery'))('pageTitle') };
}

export default async function RecoverPage(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { sent, error } = await props.searchParams;
  return (
    <SignInFrame>
      <RecoveryCard action="/account/recover/request" sent={sent === '1'} invalidEmail={error === 'email'} back={{ href: '/console/login', label: (await getT('recovery'))('backToSignIn') }} />
    </SignInFrame>
  );
}
