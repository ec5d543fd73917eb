// A member's page: what they may do in each app of the organization, and why; for those who manage members, their
// membership (role, a password reset link, removal: one form each, here rather than on every row of the members
// list) and their direct grants, chosen from the apps' catalogs.
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { listDirectPersonGrants } from '@/lib/organizations/effective-permissions';
import { findMembershipRole } from '@/lib/organizations/memberships';
import { findUserById } from '@/lib/accounts/users';
import { listGrantableApps } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { isUuid } from '@/lib/util/uuid';
import { requireOrgAccess } from '../../../_lib/access';
import { permissionPickerGroups } from '../../../_lib/permission-choice';
import { SubjectPermissionsPage } from '../../../_lib/subject-permissions';
import { Section } from '../../../_components/page-header';
import { ScopeGrants } from '../../../_components/scope-grants';
import { ActionForm, ConfirmedAction } from '../../../_components/action-form';
import { Select } from '../../../_components/fields';
import { changeRoleAction, grantPersonPermissionAction, removeMemberAction, revokePersonPermissionAction, sendPasswordResetAction } from '../actions';
import { getT } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.member'))('pageTitle') };
}

export default async function MemberPage(props: { params: Promise<{ org: string; userId: string }> }) {
  const { org, userId } = await props.params;
  if (!isUuid(userId)) notFound();
  const access = await requireOrgAccess(org);
  const manage = access.can('members.manage');
  const [role, user] = await Promise.all([findMembershipRole(db(), access.org.id, userId), findUserById(db(), userId)]);
  if (!role || !user) notFound();
  const [grants, catalogs] = manage
    ? await Promise.all([listDirectPersonGrants(db(), { orgId: access.org.id, userId }), listGrantableApps(db(), access.org.id).then((apps) => permissionPickerGroups(db(), apps.map((a) => a.app)))])
    : [[], []];
  const t = await getT('console');
  const roleOptions = (['member', 'admin', 'owner'] as const).map((value) => ({ value, label: t(`members.roleOptions.${value}`) }));
  return (
    <SubjectPermissionsPage orgSlug={org} subject={userId} back={{ href: `/console/${org}/members`, label: t('member.back') }}>
      {manage ? (
        <Section id="membership" title={t('member.membership')}>
          <div className="grid gap-4" data-testid="membership" data-email={user.email}>
            <p className="text-sm">{t('member.currentRole', { role })}</p>
            <ActionForm action={changeRoleAction} org={access.org.slug} submitLabel={t('members.list.changeRole')} variant="secondary" inline testId="change-role">
              <input type="hidden" name="userId" value={userId} />
              <Select label={t('members.list.newRole')} id="member-role" name="role" options={roleOptions} defaultValue={role} />
            </ActionForm>
            <div className="flex flex-wrap gap-4">
              <ConfirmedAction
                action={sendPasswordResetAction}
                org={access.org.slug}
                label={t('members.list.sendReset')}
                confirm={t('members.list.confirmReset', { email: user.email })}
                confirmLabel={t('members.list.confirmResetLabel')}
                fields={{ userId }}
              />
              <ConfirmedAction
                action={removeMemberAction}
                org={access.org.slug}
                label={t('members.list.remove')}
                confirm={t('members.list.confirmRemove', { email: user.email })}
                confirmLabel={t('members.list.confirmRemoveLabel')}
                fields={{ userId }}
              />
            </div>
          </div>
        </Section>
      ) : null}
      {manage ? (
        <Section id="direct-grants" title={t('member.directGrants')}>
          <div data-testid="direct-grants">
            <ScopeGrants
              org={access.org.slug}
              title={t('member.grantsTitle')}
              holder={{ field: 'userId', id: userId, name: user.email }}
              grants={grants}
              catalogs={catalogs}
              emptyText={t('member.none')}
              grantAction={grantPersonPermissionAction}
              revokeAction={revokePersonPermissionAction}
            />
          </div>
        </Section>
      ) : null}
    </SubjectPermissionsPage>
  );
}
