// /account/verify/<token> – confirming an email address. Opening the link changes nothing (mail scanners open
// links too): the person confirms with a button.
import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { findAccountLink } from '@/lib/accounts/account-links';
import { verifyEmailWithLink } from '@/lib/accounts/self-service';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { getT } from '@/app/_lib/i18n/server';
import { db } from '@/lib/runtime';
import { SignInFrame } from '../../../auth/app/_components/sign-in-frame';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('account.verify'))('title'), referrer: 'no-referrer' };
}

async function confirm(data: FormData): Promise<void> {
  'use server';
  const verified = await verifyEmailWithLink(db(), { token: data.get('token'), ip: clientIpFromHeaders(await headers()) });
  redirect(verified ? '/account/verify/done' : '/account/verify/expired');
}

export default async function VerifyPage(props: { params: Promise<{ token: string }> }) {
  const { token } = await props.params;
  const t = await getT('account.verify');
  if (token === 'done') {
    return (
      <SignInFrame>
        <h1>{t('doneTitle')}</h1>
        <div className="alert alert-success" role="status" data-testid="email-verified">
          {t('doneBody')}
        </div>
        <p>
          <a href="/console/account">{t('yourAccount')}</a>
        </p>
      </SignInFrame>
    );
  }
  const link = token === 'expired' ? undefined : await findAccountLink(db(), token, ['verify_email']);
  if (!link) {
    return (
      <SignInFrame>
        <h1>{t('expiredTitle')}</h1>
        <p>{t('expiredBody')}</p>
        <p>
          <a href="/console/account">{t('yourAccount')}</a>
        </p>
      </SignInFrame>
    );
  }
  return (
    <SignInFrame>
      <h1>{t('title')}</h1>
      <p>{t.rich('body', { email: link.email, strong: (chunks) => <strong>{chunks}</strong> })}</p>
      <form action={confirm}>
        <input type="hidden" name="token" value={token} />
        <button className="button" type="submit">
          {t('submit')}
        </button>
      </form>
    </SignInFrame>
  );
}
