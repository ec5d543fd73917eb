// /account/password/<token> – choosing a password through a single-use link: the first one (setup link), a new one
// (reset link, or the change required at sign-in). Opening the page spends nothing; saving the password does.
import type { Metadata } from 'next';
import { findOrganizationById } from '@/lib/accounts/organizations';
import { findAccountLink } from '@/lib/accounts/account-links';
import { minimumPasswordLength } from '@/lib/accounts/password-policy';
import { isSignInReturnPath, PASSWORD_LINK_PURPOSES } from '@/lib/accounts/self-service';
import { organizationFrame } from '@/lib/clients/app-context';
import { db } from '@/lib/runtime';
import { CardForm } from '../../_components/card-form';
import { SignInFrame } from '../../../auth/app/_components/sign-in-frame';
import { setPasswordAction } from './actions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Choose a password', referrer: 'no-referrer' };

const HEADINGS = {
  setup: { title: 'Set up your account', lead: 'Choose the password for your Portico account. Nobody else ever sees it.', submit: 'Save my password' },
  reset: { title: 'Choose a new password', lead: 'Saving it signs you out everywhere: every app will ask you to sign in again.', submit: 'Save the new password' },
  change_required: {
    title: 'Choose a new password',
    lead: 'Your current password was set by someone else, before Portico let every person choose their own. Choose a new one to continue.',
    submit: 'Save the new password',
  },
  verify_email: { title: '', lead: '', submit: '' },
} as const;

export default async function PasswordLinkPage(props: { params: Promise<{ token: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { token } = await props.params;
  const returnPath = (await props.searchParams).return;
  const link = await findAccountLink(db(), token, PASSWORD_LINK_PURPOSES);
  if (!link) {
    return (
      <SignInFrame>
        <h1>This link has expired</h1>
        <p>Password links work once and for a short time. Ask for a new one: use “Forgot password?” on any sign-in form.</p>
        <p>
          <a href="/account/recover">Ask for a new link</a>
        </p>
      </SignInFrame>
    );
  }
  const org = link.orgId ? await findOrganizationById(db(), link.orgId) : undefined;
  const heading = HEADINGS[link.purpose];
  return (
    <SignInFrame org={org ? organizationFrame(org) : undefined}>
      <h1>{heading.title}</h1>
      <p>{heading.lead}</p>
      <CardForm
        action={setPasswordAction}
        hidden={{ token, ...(isSignInReturnPath(returnPath) ? { return: returnPath } : {}) }}
        testId="set-password"
        submitLabel={heading.submit}
        fields={[
          { name: 'email', label: 'Email', type: 'email', readOnly: true, defaultValue: link.email, autoComplete: 'username' },
          { name: 'password', label: 'New password', type: 'password', autoComplete: 'new-password', required: true, newPasswordMinimum: minimumPasswordLength() },
        ]}
      />
    </SignInFrame>
  );
}
