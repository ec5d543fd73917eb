// /invite/<token> – an invitation to join an organization. Opening the link changes nothing (mail scanners open
// links too); accepting is a POST with a password: a new one the invitee chooses, or the one they already have.
import type { Metadata } from 'next';
import { findOpenInvitation } from '@/lib/accounts/invitations';
import { minimumPasswordLength } from '@/lib/accounts/password-policy';
import { db } from '@/lib/runtime';
import { CardForm } from '../../account/_components/card-form';
import { SignInFrame } from '../../auth/app/_components/sign-in-frame';
import { organizationFrame } from '@/lib/clients/app-context';
import { acceptInvitationAction } from './actions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Invitation', referrer: 'no-referrer' };

export default async function InvitationPage(props: { params: Promise<{ token: string }> }) {
  const { token } = await props.params;
  const view = await findOpenInvitation(db(), token);
  if (!view) {
    return (
      <SignInFrame>
        <h1>This invitation is no longer valid</h1>
        <p>It has expired, was revoked, or was already accepted. Ask the organization that invited you to send a new one.</p>
        <p>
          <a href="/console/login">Sign in to the console</a>
        </p>
      </SignInFrame>
    );
  }
  const { invitation, organization, account } = view;
  const orgName = organization.brandDisplayName ?? organization.name;
  const hasPassword = Boolean(account?.passwordHash);
  return (
    <SignInFrame org={organizationFrame(organization)}>
      <h1>Join {orgName}</h1>
      <p>
        You are invited as <strong>{invitation.role}</strong> for <strong>{invitation.email}</strong>.
      </p>
      {hasPassword ? (
        <>
          <p>This address already has a Portico account. Sign in with its password to accept; your password stays as it is.</p>
          <CardForm
            action={acceptInvitationAction}
            hidden={{ token }}
            testId="accept-invitation"
            submitLabel={`Sign in and join ${orgName}`}
            fields={[
              { name: 'email', label: 'Email', type: 'email', readOnly: true, defaultValue: invitation.email, autoComplete: 'username' },
              { name: 'password', label: 'Password', type: 'password', autoComplete: 'current-password', required: true },
            ]}
            footer={
              <div className="form-links">
                <a href="/account/recover">Forgot your password?</a>
              </div>
            }
          />
        </>
      ) : (
        <>
          <p>Create your account: choose your own password. Nobody else ever sees it.</p>
          <CardForm
            action={acceptInvitationAction}
            hidden={{ token }}
            testId="accept-invitation"
            submitLabel={`Create my account and join ${orgName}`}
            fields={[
              { name: 'email', label: 'Email', type: 'email', readOnly: true, defaultValue: invitation.email, autoComplete: 'username' },
              ...(account ? [] : [{ name: 'name', label: 'Your name', autoComplete: 'name', required: true, maxLength: 80 }]),
              { name: 'password', label: 'Choose a password', type: 'password', autoComplete: 'new-password', required: true, newPasswordMinimum: minimumPasswordLength() },
            ]}
          />
        </>
      )}
    </SignInFrame>
  );
}
