import type { Metadata } from 'next';
import Link from 'next/link';
import { listAgents } from '@/lib/accounts/agents';
import { listMembers, listMembershipsOf } from '@/lib/accounts/memberships';
import { can } from '@/lib/accounts/permissions';
import { listApps } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { ActionForm } from '../../_components/action-form';
import { Field, Select } from '../../_components/fields';
import { EmptyState, PageHeader } from '../../_components/page-header';
import { PeopleList } from '../../_components/people-list';
import { PermissionPicker, ScopeGrants } from '../../_components/scope-grants';
import { permissionPickerGroups } from '../../_lib/permission-choice';
import {
  allowAgentUserAction,
  createAgentAction,
  createConnectionAction,
  deleteAgentAction,
  deleteConnectionAction,
  disallowAgentUserAction,
  grantAgentScopeAction,
  moveAgentAction,
  renameAgentAction,
  revokeAgentScopeAction,
  setAgentDisabledAction,
} from './actions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Agents' };

export default async function AgentsPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  if (!access.can('agents.manage')) return <PageHeader title="Agents" description="Only the organization’s owners and admins manage agents." />;
  const org = access.org.slug;
  const [agents, members, apps, memberships] = await Promise.all([
    listAgents(db(), access.org.id),
    listMembers(db(), access.org.id),
    listApps(db(), org),
    listMembershipsOf(db(), access.user.id),
  ]);
  const memberOptions = members.map((m) => ({ value: m.userId, label: m.email }));
  const appOptions = apps.map((a) => ({ value: a.app.id, label: a.app.name }));
  const catalogs = await permissionPickerGroups(db(), apps.map((a) => a.app));
  const moveTargets = memberships.filter((m) => m.orgId !== access.org.id && can(m.role, 'agents.manage')).map((m) => ({ value: m.slug, label: m.name }));

  return (
    <>
      <PageHeader
        title="Agents"
        description="Agents act in the organization's apps without a password or secret of their own. In own mode an agent is the token's subject and can do only what is granted to it here — no role and no team grant reaches it. In delegated mode it acts for one person (act), with that person's permissions."
      />
      <section className="panel mb-6">
        <ActionForm action={createAgentAction} org={org} submitLabel="Create agent" inline testId="create-agent">
          <Field label="Agent name" name="name" required maxLength={80} placeholder="Release bot" />
        </ActionForm>
      </section>
      {agents.length === 0 ? (
        <EmptyState title="No agents yet">
          An agent is software that acts for people here, with its own name in every token (<code>act</code>) and only the permissions you give it. Create
          one above, choose who may use it, then grant it permissions; people connect it from their MCP client.
        </EmptyState>
      ) : null}
      <div className="grid gap-4">
        {agents.map(({ agent, ownerEmail, users, grants, connections }) => (
          <section key={agent.id} className="panel" data-testid={`agent-${agent.name}`} aria-label={`Agent ${agent.name}`}>
            <div className="mb-3 flex flex-wrap items-baseline justify-between gap-2">
              <h2 className="text-lg font-semibold">
                {agent.name} {agent.disabledAt ? <span className="ml-2 text-sm font-normal text-red-700">disabled</span> : null}
              </h2>
              <p className="text-sm text-slate-600">
                Owner {ownerEmail} · <code className="text-xs">{agent.id}</code> · <Link href={`/console/${org}/agents/${agent.id}`}>What it may do, and why</Link>
              </p>
            </div>
            <div className="grid grid-cols-1 gap-6 md:grid-cols-3">
              <PeopleList
                org={org}
                title="People who may use it"
                holder={{ field: 'agentId', id: agent.id }}
                people={users}
                fixed={`${ownerEmail} (owner)`}
                memberOptions={memberOptions}
                addLabel="Allow"
                removeConsequence={(email) => `${email} will no longer be able to use ${agent.name}; delegations to them end.`}
                addAction={allowAgentUserAction}
                removeAction={disallowAgentUserAction}
              />
              <ScopeGrants
                org={org}
                title="Direct grants"
                holder={{ field: 'agentId', id: agent.id, name: agent.name }}
                grants={grants}
                catalogs={catalogs}
                emptyText="None: in own mode it can do nothing."
                grantAction={grantAgentScopeAction}
                revokeAction={revokeAgentScopeAction}
              />
              <div>
                <h3 className="mb-2 text-sm font-semibold text-slate-700">Connections</h3>
                <ul className="mb-3 grid gap-2 text-sm">
                  {connections.length === 0 ? <li className="text-slate-500">Not connected to any app.</li> : null}
                  {connections.map((connection) => (
                    <li key={connection.id} className="flex items-center justify-between gap-2" data-testid={`connection-${connection.appName}`}>
                      <span>
                        {connection.appName}: {connection.mode === 'own' ? 'own mode (acts as itself)' : `delegated, for ${connection.delegateEmail}`}
                      </span>
                      <ActionForm action={deleteConnectionAction} org={org} submitLabel="Remove" variant="secondary" inline confirm={`Disconnect ${agent.name} from ${connection.appName}?`} confirmLabel="Yes, disconnect">
                        <input type="hidden" name="agentId" value={agent.id} />
                        <input type="hidden" name="connectionId" value={connection.id} />
                      </ActionForm>
                    </li>
                  ))}
                </ul>
                {appOptions.length > 0 ? (
                  <ActionForm action={createConnectionAction} org={org} submitLabel="Connect" testId={`connect-${agent.name}`}>
                    <input type="hidden" name="agentId" value={agent.id} />
                    <Select label="App" id={`connect-app-${agent.id}`} name="appId" options={appOptions} />
                    <fieldset className="grid gap-1 text-sm">
                      <legend className="font-medium text-slate-800">Mode (required)</legend>
                      <label className="flex gap-2">
                        <input type="radio" name="mode" value="own" /> Own: the agent acts as itself, with its direct grants only
                      </label>
                      <label className="flex gap-2">
                        <input type="radio" name="mode" value="delegated" /> Delegated: it acts for the person below, with their permissions
                      </label>
                    </fieldset>
                    <Select label="Person (delegated mode)" id={`delegate-${agent.id}`} name="delegateUserId" options={[{ value: '', label: '—' }, ...memberOptions]} />
                    <PermissionPicker
                      id={`narrow-${agent.id}`}
                      name="narrowedTo"
                      label="Only these permissions (delegated mode, optional)"
                      catalogs={catalogs}
                      multiple
                      hint="Leave empty to act with all the person’s permissions. It never gets more than the person holds."
                    />
                  </ActionForm>
                ) : null}
              </div>
            </div>
            <div className="mt-4 flex flex-wrap items-end gap-3 border-t border-slate-200 pt-4">
              <ActionForm action={renameAgentAction} org={org} submitLabel="Rename" variant="secondary" inline>
                <input type="hidden" name="agentId" value={agent.id} />
                <Field label="Name" id={`name-${agent.id}`} name="name" required maxLength={80} defaultValue={agent.name} />
              </ActionForm>
              <ActionForm
                action={setAgentDisabledAction}
                org={org}
                submitLabel={agent.disabledAt ? 'Enable' : 'Disable'}
                variant="secondary"
                inline
                confirm={agent.disabledAt ? `Enable ${agent.name} again?` : `Disable ${agent.name}? Its access ends at once.`}
                confirmLabel={agent.disabledAt ? 'Yes, enable' : 'Yes, disable'}
              >
                <input type="hidden" name="agentId" value={agent.id} />
                <input type="hidden" name="disabled" value={agent.disabledAt ? 'no' : 'yes'} />
              </ActionForm>
              {moveTargets.length > 0 ? (
                <ActionForm action={moveAgentAction} org={org} submitLabel="Move" variant="secondary" inline confirm={`Move ${agent.name} out of ${access.org.name}? It loses every grant, connection and user here.`} confirmLabel="Yes, move">
                  <input type="hidden" name="agentId" value={agent.id} />
                  <Select label="To organization" id={`move-${agent.id}`} name="targetOrg" options={moveTargets} />
                </ActionForm>
              ) : null}
              <ActionForm action={deleteAgentAction} org={org} submitLabel="Delete" variant="danger" inline confirm={`Delete ${agent.name}? Its access ends at once.`} confirmLabel="Yes, delete">
                <input type="hidden" name="agentId" value={agent.id} />
              </ActionForm>
            </div>
          </section>
        ))}
      </div>
    </>
  );
}
