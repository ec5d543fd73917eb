import type { Metadata } from 'next';
import { listMembers } from '@/lib/organizations/memberships';
import { listTeams } from '@/lib/organizations/teams';
import { listGrantableApps } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { ActionForm } from '../../_components/action-form';
import { Field } from '../../_components/fields';
import { EmptyState, PageHeader } from '../../_components/page-header';
import { PeopleList } from '../../_components/people-list';
import { ScopeGrants } from '../../_components/scope-grants';
import { permissionPickerGroups } from '../../_lib/permission-choice';
import { addTeamMemberAction, createTeamAction, grantTeamScopeAction, removeTeamMemberAction, revokeTeamScopeAction } from './actions';
import { getT } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.teams'))('pageTitle') };
}

export default async function TeamsPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  const t = await getT('console.teams');
  if (!access.can('teams.manage')) return <PageHeader title={t('title')} description={t('notAllowed')} />;
  const org = access.org.slug;
  const [teams, members, apps] = await Promise.all([listTeams(db(), access.org.id), listMembers(db(), access.org.id), listGrantableApps(db(), access.org.id)]);
  const memberOptions = members.map((m) => ({ value: m.userId, label: m.email }));
  const catalogs = await permissionPickerGroups(db(), apps.map((a) => a.app));
  return (
    <>
      <PageHeader title={t('title')} description={t('description')} />
      <section className="panel mb-6">
        <ActionForm action={createTeamAction} org={org} submitLabel={t('create')} inline testId="create-team">
          <Field label={t('name')} name="name" required maxLength={60} />
        </ActionForm>
      </section>
      {teams.length === 0 ? <EmptyState title={t('empty.title')}>{t('empty.body')}</EmptyState> : null}
      <div className="grid gap-4">
        {teams.map(({ team, members: teamMembers, grants }) => (
          <section key={team.id} className="panel" data-testid={`team-${team.name}`} aria-label={t('teamLabel', { name: team.name })}>
            <h2 className="mb-3 text-lg font-semibold">{team.name}</h2>
            <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
              <PeopleList
                org={org}
                title={t('members')}
                holder={{ field: 'teamId', id: team.id }}
                people={teamMembers}
                emptyText={t('nobody')}
                memberOptions={memberOptions}
                addLabel={t('add')}
                removeConsequence={(email) => t('confirmRemove', { email, team: team.name })}
                addAction={addTeamMemberAction}
                removeAction={removeTeamMemberAction}
              />
              <ScopeGrants
                org={org}
                title={t('grants')}
                holder={{ field: 'teamId', id: team.id, name: team.name }}
                grants={grants}
                catalogs={catalogs}
                emptyText={t('noGrants')}
                grantAction={grantTeamScopeAction}
                revokeAction={revokeTeamScopeAction}
              />
            </div>
          </section>
        ))}
      </div>
    </>
  );
}
