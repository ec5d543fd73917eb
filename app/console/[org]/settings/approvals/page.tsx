// Settings → Approvals: the organization's approval policies — who decides each kind of request, how many of them,
// what happens when nobody decides, the longest grant — and a form to set one (owners only).
import type { Metadata } from 'next';
import { requireOrgAccess } from '../../../_lib/access';
import { DataTable, EmptyState, PageHeader, Section } from '../../../_components/page-header';
import { ActionForm, ConfirmedAction } from '../../../_components/action-form';
import { Field, FieldError, Select } from '../../../_components/fields';
import { APPROVAL_POLICY_KINDS, listApprovalPolicies, MAX_QUORUM, POLICY_DECIDERS } from '@/lib/approvals/policies';
import { listApps } from '@/lib/clients/apps';
import { listMembers } from '@/lib/organizations/memberships';
import { listTeams } from '@/lib/organizations/teams';
import { db } from '@/lib/runtime';
import { getT } from '@/app/_lib/i18n/server';
import { SettingsTabs } from '../settings-tabs';
import { removePolicyAction, setPolicyAction } from './actions';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.policies'))('pageTitle') };
}

export default async function ApprovalPoliciesPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  const t = await getT('console.policies');
  const settings = await getT('console.settings');
  if (!access.can('approvals.policy')) return <PageHeader title={t('title')} description={t('notAllowed')} />;
  const [policies, apps, teams, members] = await Promise.all([listApprovalPolicies(db(), access.org.id), listApps(db(), access.org.slug), listTeams(db(), access.org.id), listMembers(db(), access.org.id)]);
  const org = access.org.slug;
  const teamOptions = [{ value: '', label: t('form.noTeam') }, ...teams.map(({ team }) => ({ value: team.id, label: team.name }))];
  const columns = [t('columns.scope'), t('columns.kind'), t('columns.deciders'), t('columns.escalation'), t('columns.maxGrant')];
  return (
    <>
      <PageHeader title={settings('title')} description={settings('description')} />
      <SettingsTabs access={access} />
      <p className="mb-4 max-w-3xl text-sm text-slate-600">{t('intro')}</p>
      {policies.length === 0 ? (
        <EmptyState title={t('empty.title')}>{t('empty.body')}</EmptyState>
      ) : (
        <DataTable testId="approval-policies" columns={columns} actions>
          {policies.map((policy) => (
            <tr key={policy.id} data-kind={policy.kind}>
              <td>{policy.appName ?? t('everyApp')}</td>
              <td>{t(`kinds.${policy.kind}`)}</td>
              <td className="text-sm">
                {t('decidersText', { deciders: policy.deciders, team: policy.teamName ?? '—', people: policy.userIds.length })}
                {policy.deciders === 'people' ? <span className="block break-all text-xs text-slate-600">{policy.peopleEmails.join(', ')}</span> : null}
                <span className="block text-xs text-slate-600">
                  {t('quorumText', { quorum: policy.quorum })}
                  {policy.quorum > 1 && !policy.anyDenyEnds ? ` · ${t('denialWaits')}` : ''}
                </span>
              </td>
              <td className="text-sm">{policy.escalateAfterMinutes ? t('escalationText', { minutes: policy.escalateAfterMinutes, to: policy.escalateTo ?? 'owners', team: policy.escalateTeamName ?? '—' }) : t('none')}</td>
              <td className="text-sm">{policy.maxGrantSeconds ? t('minutes', { minutes: Math.round(policy.maxGrantSeconds / 60) }) : t('asAsked')}</td>
              <td>
                <ConfirmedAction
                  action={removePolicyAction}
                  org={org}
                  label={t('remove')}
                  confirm={t('removeConfirm', { kind: t(`kinds.${policy.kind}`), scope: policy.appName ?? t('everyApp') })}
                  confirmLabel={t('removeConfirmLabel')}
                  fields={{ policyId: policy.id }}
                />
              </td>
            </tr>
          ))}
        </DataTable>
      )}

      <Section id="set-policy" title={t('form.title')} className="mt-8">
        <p className="mb-3 max-w-3xl text-sm text-slate-600">{t('form.intro')}</p>
        <ActionForm action={setPolicyAction} org={org} submitLabel={t('form.submit')} testId="set-policy">
          <div className="grid gap-3 sm:grid-cols-2">
            <Select label={t('form.scope')} name="appId" defaultValue="" options={[{ value: '', label: t('everyApp') }, ...apps.map((listing) => ({ value: listing.app.id, label: listing.app.name }))]} />
            <Select label={t('form.kind')} name="kind" defaultValue="root" options={APPROVAL_POLICY_KINDS.map((kind) => ({ value: kind, label: t(`kindOptions.${kind}`) }))} />
          </div>
          <fieldset className="grid min-w-0 gap-3 rounded-md border border-slate-200 p-3">
            <legend className="px-1 text-sm font-medium text-slate-800">{t('form.whoDecides')}</legend>
            <Select label={t('form.deciders')} name="deciders" defaultValue="owners" options={POLICY_DECIDERS.map((value) => ({ value, label: t(`deciderOptions.${value}`) }))} />
            <Select label={t('form.team')} name="teamId" defaultValue="" options={teamOptions} />
            <fieldset className="grid min-w-0 gap-1" aria-describedby="policy-people-hint policy-people-error">
              <legend className="text-sm font-medium text-slate-800">{t('form.people')}</legend>
              <p id="policy-people-hint" className="text-xs text-slate-500">
                {t('form.peopleHint')}
              </p>
              <FieldError name="userIds" id="policy-people-error" />
              <ul className="grid gap-1 sm:grid-cols-2">
                {members.map((member) => (
                  <li key={member.userId}>
                    <label className="flex min-w-0 items-center gap-2 text-sm">
                      <input type="checkbox" name="userIds" value={member.userId} />
                      <span className="truncate">{member.email}</span>
                    </label>
                  </li>
                ))}
              </ul>
            </fieldset>
            <Field label={t('form.quorum')} name="quorum" type="number" min={1} max={MAX_QUORUM} defaultValue={1} hint={t('form.quorumHint')} />
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" name="anyDenyEnds" value="on" defaultChecked />
              {t('form.anyDenyEnds')}
            </label>
          </fieldset>
          <fieldset className="grid min-w-0 gap-3 rounded-md border border-slate-200 p-3">
            <legend className="px-1 text-sm font-medium text-slate-800">{t('form.whenNobodyDecides')}</legend>
            <Field label={t('form.escalateAfter')} name="escalateAfterMinutes" type="number" min={1} max={29} hint={t('form.escalateAfterHint')} />
            <div className="grid gap-3 sm:grid-cols-2">
              <Select label={t('form.escalateTo')} name="escalateTo" defaultValue="owners" options={[{ value: 'owners', label: t('escalateOptions.owners') }, { value: 'team', label: t('escalateOptions.team') }]} />
              <Select label={t('form.escalateTeam')} name="escalateTeamId" defaultValue="" options={teamOptions} />
            </div>
          </fieldset>
          <Field label={t('form.maxGrant')} name="maxGrantMinutes" type="number" min={1} max={43200} hint={t('form.maxGrantHint')} />
        </ActionForm>
      </Section>
    </>
  );
}
