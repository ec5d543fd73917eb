// /account/verify/<token> – confirming an email address. Opening the link changes nothing (mail scanners open
// links too): the person confirms with a button.
import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { findAccountLink } from '@/lib/accounts/account-links';
import { verifyEmailWithLink } from '@/lib/accounts/self-service';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db } from '@/lib/runtime';
import { SignInFrame } from '../../../auth/app/_components/sign-in-frame';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Confirm your email', referrer: 'no-referrer' };

async function confirm(data: FormData): Promise<void> {
  'use server';
  const verified = await verifyEmailWithLink(db(), { token: data.get('token'), ip: clientIpFromHeaders(await headers()) });
  redirect(verified ? '/account/verify/done' : '/account/verify/expired');
}

export default async function VerifyPage(props: { params: Promise<{ token: string }> }) {
  const { token } = await props.params;
  if (token === 'done') {
    return (
      <SignInFrame>
        <h1>Email confirmed</h1>
        <div className="alert alert-success" role="status" data-testid="email-verified">
          Thank you: your address is confirmed. Apps you sign in to now see it as verified.
        </div>
        <p>
          <a href="/console/account">Your account</a>
        </p>
      </SignInFrame>
    );
  }
  const link = token === 'expired' ? undefined : await findAccountLink(db(), token, ['verify_email']);
  if (!link) {
    return (
      <SignInFrame>
        <h1>This link has expired</h1>
        <p>Confirmation links work once and for 24 hours. Ask for a new one on your account page.</p>
        <p>
          <a href="/console/account">Your account</a>
        </p>
      </SignInFrame>
    );
  }
  return (
    <SignInFrame>
      <h1>Confirm your email</h1>
      <p>
        Confirm that <strong>{link.email}</strong> is your address.
      </p>
      <form action={confirm}>
        <input type="hidden" name="token" value={token} />
        <button className="button" type="submit">
          Confirm my email address
        </button>
      </form>
    </SignInFrame>
  );
}
