import type { Metadata } from 'next';
import { listMembers } from '@/lib/accounts/memberships';
import { listTeams } from '@/lib/accounts/teams';
import { listApps } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { ActionForm } from '../../_components/action-form';
import { Field, Select } from '../../_components/fields';
import { EmptyState, PageHeader } from '../../_components/page-header';
import { addTeamMemberAction, createTeamAction, grantTeamScopeAction, removeTeamMemberAction, revokeTeamScopeAction } from './actions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Teams' };

export default async function TeamsPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  if (!access.can('teams.manage')) return <PageHeader title="Teams" description="Only the organization’s owners and admins manage teams." />;
  const org = access.org.slug;
  const [teams, members, apps] = await Promise.all([listTeams(db(), access.org.id), listMembers(db(), access.org.id), listApps(db(), org)]);
  const memberOptions = members.map((m) => ({ value: m.userId, label: m.email }));
  const appOptions = apps.map((a) => ({ value: a.app.id, label: a.app.name }));
  return (
    <>
      <PageHeader title="Teams" description="A team grants scopes on the organization's apps to its members. Agents never inherit team grants." />
      <section className="panel mb-6">
        <ActionForm action={createTeamAction} org={org} submitLabel="Create team" inline testId="create-team">
          <Field label="Team name" name="name" required maxLength={60} />
        </ActionForm>
      </section>
      {teams.length === 0 ? <EmptyState title="No teams yet" /> : null}
      <div className="grid gap-4">
        {teams.map(({ team, members: teamMembers, grants }) => (
          <section key={team.id} className="panel" data-testid={`team-${team.name}`} aria-label={`Team ${team.name}`}>
            <h2 className="mb-3 text-lg font-semibold">{team.name}</h2>
            <div className="grid gap-6 md:grid-cols-2">
              <div>
                <h3 className="mb-2 text-sm font-semibold text-slate-700">Members</h3>
                <ul className="mb-3 grid gap-2">
                  {teamMembers.length === 0 ? <li className="text-sm text-slate-500">Nobody yet.</li> : null}
                  {teamMembers.map((member) => (
                    <li key={member.userId} className="flex items-center justify-between gap-2 text-sm">
                      {member.email}
                      <ActionForm action={removeTeamMemberAction} org={org} submitLabel="Remove" variant="secondary" inline confirm={`Remove ${member.email} from ${team.name}? They lose the team's grants.`} confirmLabel="Yes, remove">
                        <input type="hidden" name="teamId" value={team.id} />
                        <input type="hidden" name="userId" value={member.userId} />
                      </ActionForm>
                    </li>
                  ))}
                </ul>
                <ActionForm action={addTeamMemberAction} org={org} submitLabel="Add to team" inline>
                  <input type="hidden" name="teamId" value={team.id} />
                  <Select label="Member" id={`member-${team.id}`} name="userId" options={memberOptions} />
                </ActionForm>
              </div>
              <div>
                <h3 className="mb-2 text-sm font-semibold text-slate-700">Grants</h3>
                <ul className="mb-3 grid gap-2">
                  {grants.length === 0 ? <li className="text-sm text-slate-500">No grants.</li> : null}
                  {grants.map((grant) => (
                    <li key={`${grant.appId}-${grant.scope}`} className="flex items-center justify-between gap-2 text-sm">
                      <span>
                        {grant.appName}: <code>{grant.scope}</code>
                      </span>
                      <ActionForm action={revokeTeamScopeAction} org={org} submitLabel="Revoke" variant="secondary" inline confirm={`Revoke ${grant.scope} on ${grant.appName} from ${team.name}?`} confirmLabel="Yes, revoke">
                        <input type="hidden" name="teamId" value={team.id} />
                        <input type="hidden" name="appId" value={grant.appId} />
                        <input type="hidden" name="scope" value={grant.scope} />
                      </ActionForm>
                    </li>
                  ))}
                </ul>
                {appOptions.length > 0 ? (
                  <ActionForm action={grantTeamScopeAction} org={org} submitLabel="Grant" inline>
                    <input type="hidden" name="teamId" value={team.id} />
                    <Select label="App" id={`app-${team.id}`} name="appId" options={appOptions} />
                    <Field label="Scope" id={`scope-${team.id}`} name="scope" required placeholder="invoices:read" />
                  </ActionForm>
                ) : (
                  <p className="text-sm text-slate-500">Create an app to grant scopes on it.</p>
                )}
              </div>
            </div>
          </section>
        ))}
      </div>
    </>
  );
}
