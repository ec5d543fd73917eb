// An agent's page, for those who manage agents: whether it runs, who answers for it, when it was last used. Names
// came from people: shown as text, invisible formatting made visible.
import Link from 'next/link';
import type { Agent } from '@/lib/organizations/agents';
import { visibleText } from '@/lib/util/visible-text';
import { getT } from '@/app/_lib/i18n/server';
import { When } from '@/app/_components/when';
import { ActionForm } from '../../../_components/action-form';
import { Select } from '../../../_components/fields';
import { Section } from '../../../_components/page-header';
import {
  setAgentDisabledAction,
  setAgentSponsorAction,
} from '../actions';

/** Enabled or not; suspended because its owner left (what to do about it); its owner, sponsor team and last use. */
export async function StatusSection(props: { org: string; agent: Agent; ownerEmail: string; teams: { id: string; name: string }[] }) {
  const { agent, org } = props;
  const t = await getT('console.agent');
  const suspended = agent.disabledAt !== null && agent.suspendedReason === 'owner_left';
  return (
    <Section id="status" title={t('status.title')}>
      {suspended ? (
        <div className="alert alert-warning" role="status" data-testid="agent-suspended">
          <p className="font-semibold">{t('status.suspendedTitle')}</p>
          <p>{t.rich('status.suspended', { name: visibleText(agent.name), link: (chunks) => <Link href={`/console/${org}/agents`}>{chunks}</Link> })}</p>
        </div>
      ) : null}
      <dl className="mb-4 grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]" data-testid="agent-status">
        <dt className="font-medium text-slate-700">{t('status.state')}</dt>
        <dd data-testid="agent-state" data-enabled={agent.disabledAt ? 'no' : 'yes'}>
          {agent.disabledAt ? t('status.disabled') : t('status.enabled')}
        </dd>
        <dt className="font-medium text-slate-700">{t('status.owner')}</dt>
        <dd className="wrap-anywhere">{visibleText(props.ownerEmail)}</dd>
        <dt className="font-medium text-slate-700">{t('status.lastUsed')}</dt>
        <dd>{agent.lastUsedAt ? <When value={agent.lastUsedAt} /> : t('status.never')}</dd>
      </dl>
      <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
        <div className="min-w-0">
          <p className="mb-2 text-sm text-slate-600">{t('status.sponsorHint')}</p>
          <ActionForm action={setAgentSponsorAction} org={org} submitLabel={t('status.saveSponsor')} variant="secondary" keepValues testId="agent-sponsor">
            <input type="hidden" name="agentId" value={agent.id} />
            <Select
              id="agent-sponsor-team"
              label={t('status.sponsor')}
              name="teamId"
              defaultValue={agent.sponsorTeamId ?? ''}
              options={[{ value: '', label: t('status.noSponsor') }, ...props.teams.map((team) => ({ value: team.id, label: visibleText(team.name) }))]}
            />
          </ActionForm>
        </div>
        <div className="min-w-0">
          <ActionForm
            action={setAgentDisabledAction}
            org={org}
            submitLabel={agent.disabledAt ? t('status.enable') : t('status.disable')}
            variant="secondary"
            confirm={agent.disabledAt ? t('status.confirmEnable', { name: agent.name }) : t('status.confirmDisable', { name: agent.name })}
            confirmLabel={agent.disabledAt ? t('status.confirmEnableLabel') : t('status.confirmDisableLabel')}
            testId="agent-enabled"
          >
            <input type="hidden" name="agentId" value={agent.id} />
            <input type="hidden" name="disabled" value={agent.disabledAt ? 'no' : 'yes'} />
          </ActionForm>
        </div>
      </div>
    </Section>
  );
}
