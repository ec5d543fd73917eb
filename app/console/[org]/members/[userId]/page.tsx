// A member's page: what they may do in each app of the organization, and why; their direct grants, chosen from the
// apps' catalogs, for those who manage members.
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
import { grantPersonPermissionAction, revokePersonPermissionAction } from '../actions';
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
  const t = await getT('console.member');
  return (
    <SubjectPermissionsPage orgSlug={org} subject={userId} back={{ href: `/console/${org}/members`, label: t('back') }}>
      {manage ? (
        <Section id="direct-grants" title={t('directGrants')}>
          <div data-testid="direct-grants">
            <ScopeGrants
              org={access.org.slug}
              title={t('grantsTitle')}
              holder={{ field: 'userId', id: userId, name: user.email }}
              grants={grants}
              catalogs={catalogs}
              emptyText={t('none')}
              grantAction={grantPersonPermissionAction}
              revokeAction={revokePersonPermissionAction}
            />
          </div>
        </Section>
      ) : null}
    </SubjectPermissionsPage>
  );
}
