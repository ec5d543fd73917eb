import type { Metadata } from 'next';
import { When } from '@/app/_components/when';
import Link from 'next/link';
import { listOpenInvitations } from '@/lib/accounts/invitations';
import { listMembers } from '@/lib/accounts/memberships';
import { listTeams } from '@/lib/accounts/teams';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { ActionForm, ConfirmedAction } from '../../_components/action-form';
import { Field, Select } from '../../_components/fields';
import { columnLabels, DataTable, EmptyState, PageHeader, ReadOnlyNotice } from '../../_components/page-header';
import { changeRoleAction, inviteMemberAction, removeMemberAction, resendInvitationAction, revokeInvitationAction, sendPasswordResetAction } from './actions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Members' };

const ROLE_OPTIONS = [
  { value: 'member', label: 'Member' },
  { value: 'admin', label: 'Admin' },
  { value: 'owner', label: 'Owner' },
] as const;


export default async function MembersPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  const manage = access.can('members.manage');
  const [members, invitations, teams] = await Promise.all([
    listMembers(db(), access.org.id),
    manage ? listOpenInvitations(db(), access.org.id) : Promise.resolve([]),
    manage ? listTeams(db(), access.org.id) : Promise.resolve([]),
  ]);
  const teamName = new Map(teams.map(({ team }) => [team.id, team.name]));
  const org = access.org.slug;
  return (
    <>
      <PageHeader title="Members" description="People of this organization sign in to its apps with their own Portico account, and join by accepting an invitation." />
      {manage ? null : <ReadOnlyNotice />}
      {manage ? (
        <section className="panel mb-6" aria-labelledby="invite-heading">
          <h2 id="invite-heading" className="mb-1 font-semibold">
            Invite a person
          </h2>
          <p className="mb-3 text-sm text-slate-600">
            Portico mails them a link. They join when they accept it, with the account they have or one they create with their own password. Nobody else ever sees or sets it.
          </p>
          <ActionForm action={inviteMemberAction} org={org} submitLabel="Send invitation" testId="invite-member">
            <div className="flex flex-wrap items-end gap-2">
              <Field label="Email" name="email" type="email" required maxLength={320} autoComplete="off" />
              <Select label="Role" name="role" options={ROLE_OPTIONS} defaultValue="member" />
            </div>
            {teams.length > 0 ? (
              <fieldset className="grid gap-1">
                <legend className="text-sm font-medium text-slate-800">Teams (optional)</legend>
                <div className="flex flex-wrap gap-4">
                  {teams.map(({ team }) => (
                    <label key={team.id} className="flex items-center gap-2 text-sm">
                      <input type="checkbox" name="teamIds" value={team.id} />
                      {team.name}
                    </label>
                  ))}
                </div>
              </fieldset>
            ) : null}
          </ActionForm>
        </section>
      ) : null}
      {manage && invitations.length > 0 ? (
        <section className="panel mb-6 overflow-x-auto" aria-labelledby="pending-heading">
          <h2 id="pending-heading" className="mb-3 font-semibold">
            Pending invitations
          </h2>
          <table className="table" data-testid="pending-invitations" style={columnLabels(['Email', 'Role and teams', 'Link', 'Actions'])}>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role and teams</th>
                <th scope="col">Link</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {invitations.map((invitation) => (
                <tr key={invitation.id} data-email={invitation.email}>
                  <td className="font-medium">{invitation.email}</td>
                  <td>
                    {invitation.role}
                    {invitation.teamIds.length > 0 ? <div className="text-xs text-slate-500">{invitation.teamIds.map((id) => teamName.get(id) ?? 'a deleted team').join(', ')}</div> : null}
                  </td>
                  <td className="text-sm">
                    {invitation.expired ? (
                      <span className="badge">Expired</span>
                    ) : (
                      <>
                        Sent <When value={invitation.lastSentAt} />, valid until <When value={invitation.expiresAt} relative={false} />
                      </>
                    )}
                  </td>
                  <td className="grid gap-2">
                    <ActionForm action={resendInvitationAction} org={org} submitLabel="Resend" variant="secondary" inline>
                      <input type="hidden" name="invitationId" value={invitation.id} />
                    </ActionForm>
                    <ConfirmedAction
                      action={revokeInvitationAction}
                      org={org}
                      label="Revoke"
                      confirm={`Revoke the invitation to ${invitation.email}? Its link stops working at once.`}
                      confirmLabel="Yes, revoke"
                      fields={{ invitationId: invitation.id }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      {members.length === 0 ? (
        <EmptyState title="No members" />
      ) : (
        <DataTable testId="members" columns={['Person', 'Role']} actions={manage}>
          {members.map((member) => (
            <tr key={member.userId} data-email={member.email}>
              <td>
                <div className="font-medium">
                  <Link href={`/console/${org}/members/${member.userId}`} aria-label={`Permissions of ${member.email}`}>
                    {member.email}
                  </Link>
                </div>
                <div className="text-xs text-slate-500">
                  {member.name}
                  {member.disabled ? ' · disabled' : ''}
                </div>
              </td>
              <td>{member.role}</td>
              {manage ? (
                <td className="grid gap-2">
                  <ActionForm action={changeRoleAction} org={org} submitLabel="Change role" variant="secondary" inline>
                    <input type="hidden" name="userId" value={member.userId} />
                    <Select label="New role" id={`role-${member.userId}`} name="role" options={ROLE_OPTIONS} defaultValue={member.role} />
                  </ActionForm>
                  <ConfirmedAction
                    action={sendPasswordResetAction}
                    org={org}
                    label="Send password reset link"
                    confirm={`Mail ${member.email} a link to choose a new password? You will not see the link or the password. Using it signs them out everywhere.`}
                    confirmLabel="Yes, send the link"
                    fields={{ userId: member.userId }}
                  />
                  <ConfirmedAction
                    action={removeMemberAction}
                    org={org}
                    label="Remove"
                    confirm={`Remove ${member.email}? Sign-in to this organization's apps is closed at once and their refresh tokens are revoked; access tokens already issued end within 10 minutes.`}
                    confirmLabel="Yes, remove"
                    fields={{ userId: member.userId }}
                  />
                </td>
              ) : null}
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}
