import type { Metadata } from 'next';
import Link from 'next/link';
import { listAgents } from '@/lib/organizations/agents';
import { listMembers, listMembershipsOf } from '@/lib/organizations/memberships';
import { can } from '@/lib/organizations/permissions';
import { listGrantableApps } from '@/lib/clients/apps';
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
import { getT } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.agents'))('pageTitle') };
}

export default async function AgentsPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  const t = await getT('console.agents');
  if (!access.can('agents.manage')) return <PageHeader title={t('title')} description={t('notAllowed')} />;
  const org = access.org.slug;
  const [agents, members, apps, memberships] = await Promise.all([
    listAgents(db(), access.org.id),
    listMembers(db(), access.org.id),
    listGrantableApps(db(), access.org.id),
    listMembershipsOf(db(), access.user.id),
  ]);
  const memberOptions = members.map((m) => ({ value: m.userId, label: m.email }));
  const appOptions = apps.map((a) => ({ value: a.app.id, label: a.app.name }));
  const catalogs = await permissionPickerGroups(db(), apps.map((a) => a.app));
  const moveTargets = memberships.filter((m) => m.orgId !== access.org.id && can(m.role, 'agents.manage')).map((m) => ({ value: m.slug, label: m.name }));

  return (
    <>
      <PageHeader title={t('title')} description={t('description')} />
      <section className="panel mb-6">
        <ActionForm action={createAgentAction} org={org} submitLabel={t('create')} inline testId="create-agent">
          <Field label={t('name')} name="name" required maxLength={80} placeholder={t('namePlaceholder')} />
        </ActionForm>
      </section>
      {agents.length === 0 ? <EmptyState title={t('empty.title')}>{t.rich('empty.body', { code: (chunks) => <code>{chunks}</code> })}</EmptyState> : null}
      <div className="grid gap-4">
        {agents.map(({ agent, ownerEmail, users, grants, connections }) => (
          <section key={agent.id} className="panel" data-testid={`agent-${agent.name}`} aria-label={t('agentLabel', { name: agent.name })}>
            <div className="mb-3 flex flex-wrap items-baseline justify-between gap-2">
              <h2 className="text-lg font-semibold">
                {agent.name} {agent.disabledAt ? <span className="ml-2 text-sm font-normal text-red-700">{agent.suspendedReason === 'owner_left' ? t('suspended') : t('disabled')}</span> : null}
              </h2>
              <p className="text-sm text-slate-600">
                {t('owner', { email: ownerEmail })} · <code className="text-xs">{agent.id}</code> · <Link href={`/console/${org}/agents/${agent.id}`}>{t('explainLink')}</Link>
              </p>
            </div>
            <div className="grid grid-cols-1 gap-6 md:grid-cols-3">
              <PeopleList
                org={org}
                title={t('users.title')}
                holder={{ field: 'agentId', id: agent.id }}
                people={users}
                fixed={t('users.owner', { email: ownerEmail })}
                memberOptions={memberOptions}
                addLabel={t('users.allow')}
                removeConsequence={(email) => t('users.confirmRemove', { email, name: agent.name })}
                addAction={allowAgentUserAction}
                removeAction={disallowAgentUserAction}
              />
              <ScopeGrants
                org={org}
                title={t('grants.title')}
                holder={{ field: 'agentId', id: agent.id, name: agent.name }}
                grants={grants}
                catalogs={catalogs}
                emptyText={t('grants.none')}
                grantAction={grantAgentScopeAction}
                revokeAction={revokeAgentScopeAction}
              />
              <div>
                <h3 className="mb-2 text-sm font-semibold text-slate-700">{t('connections.title')}</h3>
                <ul className="mb-3 grid gap-2 text-sm">
                  {connections.length === 0 ? <li className="text-slate-500">{t('connections.none')}</li> : null}
                  {connections.map((connection) => (
                    <li key={connection.id} className="flex items-center justify-between gap-2" data-testid={`connection-${connection.appName}`}>
                      <span>
                        {connection.appName}: {connection.mode === 'own' ? t('connections.own') : t('connections.delegated', { email: String(connection.delegateEmail) })}
                      </span>
                      <ActionForm action={deleteConnectionAction} org={org} submitLabel={t('connections.remove')}
                        variant="secondary"
                        inline
                        confirm={t('connections.confirmRemove', { name: agent.name, app: connection.appName })}
                        confirmLabel={t('connections.confirmRemoveLabel')}
                      >
                        <input type="hidden" name="agentId" value={agent.id} />
                        <input type="hidden" name="connectionId" value={connection.id} />
                      </ActionForm>
                    </li>
                  ))}
                </ul>
                {appOptions.length > 0 ? (
                  <ActionForm action={createConnectionAction} org={org} submitLabel={t('connect.submit')} testId={`connect-${agent.name}`}>
                    <input type="hidden" name="agentId" value={agent.id} />
                    <Select label={t('connect.app')} id={`connect-app-${agent.id}`} name="appId" options={appOptions} />
                    <fieldset className="grid gap-1 text-sm">
                      <legend className="font-medium text-slate-800">{t('connect.mode')}</legend>
                      <label className="flex gap-2">
                        <input type="radio" name="mode" value="own" /> {t('connect.own')}
                      </label>
                      <label className="flex gap-2">
                        <input type="radio" name="mode" value="delegated" /> {t('connect.delegated')}
                      </label>
                    </fieldset>
                    <Select label={t('connect.person')} id={`delegate-${agent.id}`} name="delegateUserId" options={[{ value: '', label: '—' }, ...memberOptions]} />
                    <PermissionPicker
                      id={`narrow-${agent.id}`}
                      name="narrowedTo"
                      label={t('connect.narrow')}
                      catalogs={catalogs}
                      multiple
                      hint={t('connect.narrowHint')}
                    />
                  </ActionForm>
                ) : null}
              </div>
            </div>
            <div className="mt-4 flex flex-wrap items-end gap-3 border-t border-slate-200 pt-4">
              <ActionForm action={renameAgentAction} org={org} submitLabel={t('rename')} variant="secondary" inline>
                <input type="hidden" name="agentId" value={agent.id} />
                <Field label={t('renameLabel')} id={`name-${agent.id}`} name="name" required maxLength={80} defaultValue={agent.name} />
              </ActionForm>
              <ActionForm
                action={setAgentDisabledAction}
                org={org}
                submitLabel={agent.disabledAt ? t('enable') : t('disable')}
                variant="secondary"
                inline
                confirm={agent.disabledAt ? t('confirmEnable', { name: agent.name }) : t('confirmDisable', { name: agent.name })}
                confirmLabel={agent.disabledAt ? t('confirmEnableLabel') : t('confirmDisableLabel')}
              >
                <input type="hidden" name="agentId" value={agent.id} />
                <input type="hidden" name="disabled" value={agent.disabledAt ? 'no' : 'yes'} />
              </ActionForm>
              {moveTargets.length > 0 ? (
                <ActionForm
                  action={moveAgentAction}
                  org={org}
                  submitLabel={t('move')}
                  variant="secondary"
                  inline
                  confirm={t('confirmMove', { name: agent.name, org: access.org.name })}
                  confirmLabel={t('confirmMoveLabel')}
                >
                  <input type="hidden" name="agentId" value={agent.id} />
                  <Select label={t('moveTo')} id={`move-${agent.id}`} name="targetOrg" options={moveTargets} />
                </ActionForm>
              ) : null}
              <ActionForm action={deleteAgentAction} org={org} submitLabel={t('delete')} variant="danger" inline confirm={t('confirmDelete', { name: agent.name })} confirmLabel={t('confirmDeleteLabel')}>
                <input type="hidden" name="agentId" value={agent.id} />
              </ActionForm>
            </div>
          </section>
        ))}
      </div>
    </>
  );
}
