import type { Metadata } from 'next';
import { listMembers } from '@/lib/accounts/memberships';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { ActionForm } from '../../_components/action-form';
import { Field, Select } from '../../_components/fields';
import { EmptyState, PageHeader, ReadOnlyNotice } from '../../_components/page-header';
import { addMemberAction, changeRoleAction, removeMemberAction } from './actions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Members' };

const ROLE_OPTIONS = [
  { value: 'member', label: 'Member' },
  { value: 'admin', label: 'Admin' },
  { value: 'owner', label: 'Owner' },
] as const;

export default async function MembersPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  const members = await listMembers(db(), access.org.id);
  const manage = access.can('members.manage');
  const org = access.org.slug;
  return (
    <>
      <PageHeader title="Members" description="People of this organization sign in to its apps with their Portico account." />
      {manage ? null : <ReadOnlyNotice />}
      {manage ? (
        <section className="panel mb-6" aria-labelledby="add-heading">
          <h2 id="add-heading" className="mb-3 font-semibold">
            Add a person
          </h2>
          <ActionForm action={addMemberAction} org={org} submitLabel="Add member" inline testId="add-member">
            <Field label="Email" name="email" type="email" required />
            <Field label="Name (for a new account)" name="name" />
            <Select label="Role" name="role" options={ROLE_OPTIONS} defaultValue="member" />
          </ActionForm>
        </section>
      ) : null}
      {members.length === 0 ? (
        <EmptyState title="No members" />
      ) : (
        <div className="panel overflow-x-auto p-0">
          <table className="table" data-testid="members">
            <thead>
              <tr>
                <th scope="col">Person</th>
                <th scope="col">Role</th>
                {manage ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {members.map((member) => (
                <tr key={member.userId} data-email={member.email}>
                  <td>
                    <div className="font-medium">{member.email}</div>
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
                      <ActionForm
                        action={removeMemberAction}
                        org={org}
                        submitLabel="Remove"
                        variant="secondary"
                        confirm={`Remove ${member.email}? Sign-in to this organization's apps is closed at once and their refresh tokens are revoked; access tokens already issued end within 10 minutes.`}
                        confirmLabel="Yes, remove"
                      >
                        <input type="hidden" name="userId" value={member.userId} />
                      </ActionForm>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
