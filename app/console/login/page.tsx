// Sign-in to Portico's console (independent of any app's sign-in).
import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { isSignInErrorCode, SIGN_IN_ERRORS } from '@/lib/oidc/sign-in-errors';
import { PasswordSignInForm, SignInFrame } from '../../auth/app/_components/sign-in-frame';
import { currentConsoleSession } from '../_lib/session';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Console sign-in' };

export default async function ConsoleLoginPage(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  if (await currentConsoleSession()) redirect('/console');
  const { error } = await props.searchParams;
  return (
    <SignInFrame>
      <h1>Sign in to the console</h1>
      <p>Manage your organization’s apps, members and audit log.</p>
      <PasswordSignInForm action="/console/session" recoverHref="/account/recover" error={isSignInErrorCode(error) ? SIGN_IN_ERRORS[error] : undefined} />
    </SignInFrame>
  );
}
