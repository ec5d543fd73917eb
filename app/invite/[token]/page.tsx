// /invite/<token> – an invitation to join an organization. Opening the link changes nothing (mail scanners open
// links too); accepting is a POST with a password: a new one the invitee chooses, or the one they already have.
import type { Metadata } from 'next';
import { findOpenInvitation } from '@/lib/organizations/invitations';
import { minimumPasswordLength } from '@/lib/accounts/factors/password-policy';
import { getT } from '@/app/_lib/i18n/server';
import { db } from '@/lib/runtime';
import { CardForm } from '../../account/_components/card-form';
import { SignInFrame } from '../../auth/app/_components/sign-in-frame';
import { organizationFrame } from '@/lib/clients/app-context';
import { acceptInvitationAction } from './actions';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('invite'))('pageTitle'), referrer: 'no-referrer' };
}

export default async function InvitationPage(props: { params: Promise<{ token: string }> }) {
  const { token } = await props.params;
  const t = await getT('invite');
  const view = await findOpenInvitation(db(), token);
  if (!view) {
    return (
      <SignInFrame>
        <h1>{t('invalidTitle')}</h1>
        <p>{t('invalidBody')}</p>
        <p>
          <a href="/console/login">{t('signInToConsole')}</a>
        </p>
      </SignInFrame>
    );
  }
  const { invitation, organization, account } = view;
  const orgName = organization.brandDisplayName ?? organization.name;
  const hasPassword = Boolean(account?.passwordHash);
  return (
    <SignInFrame org={organizationFrame(organization)}>
      <h1>{t('title', { org: orgName })}</h1>
      <p>{t.rich('invitedAs', { role: invitation.role, email: invitation.email, strong: (chunks) => <strong>{chunks}</strong> })}</p>
      {hasPassword ? (
        <>
          <p>{t('hasAccount')}</p>
          <CardForm
            action={acceptInvitationAction}
            hidden={{ token }}
            testId="accept-invitation"
            submitLabel={t('signInAndJoin', { org: orgName })}
            fields={[
              { name: 'email', label: t('email'), type: 'email', readOnly: true, defaultValue: invitation.email, autoComplete: 'username' },
              { name: 'password', label: t('password'), type: 'password', autoComplete: 'current-password', required: true },
            ]}
            footer={
              <div className="form-links">
                <a href="/account/recover">{t('forgotPassword')}</a>
              </div>
            }
          />
        </>
      ) : (
        <>
          <p>{t('createIntro')}</p>
          <CardForm
            action={acceptInvitationAction}
            hidden={{ token }}
            testId="accept-invitation"
            submitLabel={t('createAndJoin', { org: orgName })}
            fields={[
              { name: 'email', label: t('email'), type: 'email', readOnly: true, defaultValue: invitation.email, autoComplete: 'username' },
              ...(account ? [] : [{ name: 'name', label: t('name'), autoComplete: 'name', required: true, maxLength: 80 }]),
              { name: 'password', label: t('choosePassword'), type: 'password', autoComplete: 'new-password', required: true, newPasswordMinimum: minimumPasswordLength() },
            ]}
          />
        </>
      )}
    </SignInFrame>
  );
}
