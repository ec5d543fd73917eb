// /auth/app/<uid>/recover – "Forgot password?" from an app's sign-in card, in the organization's brand.
import type { Metadata } from 'next';
import { getT } from '@/app/_lib/i18n/server';
import { headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { interactionPath, isInteractionUid } from '@/lib/oidc/interactions';
import { RecoveryCard } from '../../../../account/_components/recovery-card';
import { SignInFrame } from '../../_components/sign-in-frame';
import { signInOrganization } from '../../_lib/sign-in-organization';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('recovery'))('pageTitle') };
}

export default async function AppRecoverPage(props: { params: Promise<{ uid: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { uid } = await props.params;
  if (!isInteractionUid(uid)) notFound();
  const { sent, error } = await props.searchParams;
  const org = await signInOrganization(uid, (await headers()).get('cookie'));
  return (
    <SignInFrame org={org}>
      <RecoveryCard action={`${interactionPath(uid)}/recover/request`} sent={sent === '1'} invalidEmail={error === 'email'} back={{ href: interactionPath(uid), label: (await getT('recovery'))('backToSignIn') }} />
    </SignInFrame>
  );
}
