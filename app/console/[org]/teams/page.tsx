import type { Metadata } from 'next';
import { listMembers } from '@/lib/accounts/memberships';
import { listTeams } from '@/lib/accounts/teams';
import { listApps } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { ActionForm } from '../../_components/action-form';
import { Field } from '../../_components/fields';
import { EmptyState, PageHeader } from '../../_components/page-header';
import { PeopleList } from '../../_components/people-list';
import { ScopeGrants } from '../../_components/scope-grants';
import { permissionPickerGroups } from '../../_lib/permission-choice';
import { addTeamMemberAction, createTeamAction, grantTeamScopeAction, removeTeamMemberAction, revokeTeamScopeAction } from './actions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Teams' };

export default async function TeamsPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  if (!access.can('teams.manage')) return <PageHeader title="Teams" description="Only the organization’s owners and admins manage teams." />;
  const org = access.org.slug;
  const [teams, members, apps] = await Promise.all([listTeams(db(), access.org.id), listMembers(db(), access.org.id), listApps(db(), org)]);
  const memberOptions = members.map((m) => ({ value: m.userId, label: m.email }));
  const catalogs = await permissionPickerGroups(db(), apps.map((a) => a.app));
  return (
    <>
      <PageHeader title="Teams" description="A team grants permissions of the organization's apps (from each app's catalog) to its members. Agents never inherit team grants." />
      <section className="panel mb-6">
        <ActionForm action={createTeamAction} org={org} submitLabel="Create team" inline testId="create-team">
          <Field label="Team name" name="name" required maxLength={60} />
        </ActionForm>
      </section>
      {teams.length === 0 ? (
        <EmptyState title="No teams yet">
          A team gives its members an app’s permissions together: grant “Read invoices” to Finance once, instead of to each person. Create the first
          team above, add members, then grant it permissions from an app’s catalog.
        </EmptyState>
      ) : null}
      <div className="grid gap-4">
        {teams.map(({ team, members: teamMembers, grants }) => (
          <section key={team.id} className="panel" data-testid={`team-${team.name}`} aria-label={`Team ${team.name}`}>
            <h2 className="mb-3 text-lg font-semibold">{team.name}</h2>
            <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
              <PeopleList
                org={org}
                title="Members"
                holder={{ field: 'teamId', id: team.id }}
                people={teamMembers}
                emptyText="Nobody yet."
                memberOptions={memberOptions}
                addLabel="Add to team"
                removeConsequence={(email) => `Remove ${email} from ${team.name}? They lose the team's grants.`}
                addAction={addTeamMemberAction}
                removeAction={removeTeamMemberAction}
              />
              <ScopeGrants
                org={org}
                title="Grants"
                holder={{ field: 'teamId', id: team.id, name: team.name }}
                grants={grants}
                catalogs={catalogs}
                emptyText="No grants."
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
