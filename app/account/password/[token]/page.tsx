// /account/password/<token> – choosing a password through a single-use link: the first one (setup link), a new one
// (reset link, or the change required at sign-in). Opening the page spends nothing; saving the password does.
import type { Metadata } from 'next';
import { findOrganizationById } from '@/lib/organizations/organizations';
import { findAccountLink } from '@/lib/accounts/account-links';
import { minimumPasswordLength } from '@/lib/accounts/factors/password-policy';
import { isSignInReturnPath, PASSWORD_LINK_PURPOSES } from '@/lib/accounts/self-service';
import { organizationFrame } from '@/lib/clients/app-context';
import { getT } from '@/app/_lib/i18n/server';
import { db } from '@/lib/runtime';
import { CardForm } from '../../_components/card-form';
import { SignInFrame } from '../../../auth/app/_components/sign-in-frame';
import { setPasswordAction } from './actions';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('account.passwordLink'))('pageTitle'), referrer: 'no-referrer' };
}

export default async function PasswordLinkPage(props: { params: Promise<{ token: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { token } = await props.params;
  const returnPath = (await props.searchParams).return;
  const t = await getT('account.passwordLink');
  const link = await findAccountLink(db(), token, PASSWORD_LINK_PURPOSES);
  // Only password links are found here (never an email confirmation's).
  if (!link || link.purpose === 'verify_email') {
    return (
      <SignInFrame>
        <h1>{t('expiredTitle')}</h1>
        <p>{t('expiredBody')}</p>
        <p>
          <a href="/account/recover">{t('askNew')}</a>
        </p>
      </SignInFrame>
    );
  }
  const org = link.orgId ? await findOrganizationById(db(), link.orgId) : undefined;
  const purpose = link.purpose;
  return (
    <SignInFrame org={org ? organizationFrame(org) : undefined}>
      <h1>{t(`headings.${purpose}.title`)}</h1>
      <p>{t(`headings.${purpose}.lead`)}</p>
      <CardForm
        action={setPasswordAction}
        hidden={{ token, ...(isSignInReturnPath(returnPath) ? { return: returnPath } : {}) }}
        testId="set-password"
        submitLabel={t(`headings.${purpose}.submit`)}
        fields={[
          { name: 'email', label: t('email'), type: 'email', readOnly: true, defaultValue: link.email, autoComplete: 'username' },
          { name: 'password', label: t('newPassword'), type: 'password', autoComplete: 'new-password', required: true, newPasswordMinimum: minimumPasswordLength() },
        ]}
      />
    </SignInFrame>
  );
}
