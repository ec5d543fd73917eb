// An agent's page, for those who manage agents: whether it runs and who answers for it, and how a workload gets a
// token as it — its own client's keys (private_key_jwt), the trust rules that admit other issuers' tokens (workload
// identity federation), and a test of a token against the organization's rules. Rule names, issuers, claims and keys
// came from people and workloads: shown as text, invisible formatting made visible.
import Link from 'next/link';
import type { Agent } from '@/lib/organizations/agents';
import { AGENT_KEY_ALGS, MAX_AGENT_KEYS, type AgentKey } from '@/lib/organizations/agent-keys';
import type { WorkloadTrustRule } from '@/lib/organizations/workload-trust';
import { WORKLOAD_CLIENT_ID } from '@/lib/oidc/workload-grants';
import { visibleText } from '@/lib/util/visible-text';
import { getT } from '@/app/_lib/i18n/server';
import { When } from '@/app/_components/when';
import { ActionForm } from '../../../_components/action-form';
import { Field, Select, TextArea } from '../../../_components/fields';
import { DataTable, Section } from '../../../_components/page-header';
import {
  addAgentKeyAction,
  addTrustRuleAction,
  removeAgentKeyAction,
  removeTrustRuleAction,
  setAgentDisabledAction,
  setAgentJwksUriAction,
  setAgentSponsorAction,
  testWorkloadTokenAction,
} from '../actions';
import { TrustRuleFields } from './trust-rule-fields';
import { TokenTestForm } from './token-test-form';

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

/** The agent's own OAuth client: where it asks, its public keys (add, remove), and a JWKS URL instead of or beside them. */
export async function KeyCredentialsSection(props: { org: string; agent: Agent; keys: AgentKey[]; issuer: string }) {
  const { agent, org } = props;
  const t = await getT('console.agent');
  const columns = [t('keys.columns.kid'), t('keys.columns.alg'), t('keys.columns.added'), t('keys.columns.lastUsed')];
  return (
    <Section id="keys" title={t('keys.title')}>
      <p className="mb-3 max-w-3xl text-sm text-slate-600">{t('keys.intro')}</p>
      <dl className="mb-4 grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="font-medium text-slate-700">{t('keys.clientId')}</dt>
        <dd className="break-all">
          <code data-testid="agent-client-id">{agent.id}</code>
        </dd>
        <dt className="font-medium text-slate-700">{t('keys.tokenEndpoint')}</dt>
        <dd className="break-all">
          <code data-testid="agent-token-endpoint">{`${props.issuer}/oidc/token`}</code>
        </dd>
      </dl>
      {props.keys.length === 0 ? (
        <p className="mb-4 text-sm text-slate-600" data-testid="agent-keys-empty">
          {t('keys.none')}
        </p>
      ) : (
        <div className="mb-4">
          <DataTable testId="agent-keys" columns={columns} actions>
            {props.keys.map((key) => (
              <tr key={key.id} data-kid={key.kid}>
                <td>
                  <code className="break-all">{visibleText(key.kid)}</code>
                </td>
                <td>{key.alg}</td>
                <td>
                  <When value={key.createdAt} relative={false} />
                </td>
                <td>{key.lastUsedAt ? <When value={key.lastUsedAt} /> : t('keys.never')}</td>
                <td>
                  <ActionForm
                    action={removeAgentKeyAction}
                    org={org}
                    submitLabel={t('keys.remove')}
                    variant="secondary"
                    inline
                    confirm={t('keys.confirmRemove', { kid: visibleText(key.kid) })}
                    confirmLabel={t('keys.confirmRemoveLabel')}
                  >
                    <input type="hidden" name="agentId" value={agent.id} />
                    <input type="hidden" name="keyId" value={key.id} />
                  </ActionForm>
                </td>
              </tr>
            ))}
          </DataTable>
        </div>
      )}
      {/* Hints name long URLs and PEM markers: at 390 px they break anywhere rather than widen the page. */}
      <div className="grid grid-cols-1 gap-6 wrap-anywhere md:grid-cols-2">
        <div className="min-w-0">
          <h3 className="mb-2 text-sm font-semibold text-slate-700">{t('keys.addTitle')}</h3>
          <ActionForm action={addAgentKeyAction} org={org} submitLabel={t('keys.add')} testId="add-agent-key">
            <input type="hidden" name="agentId" value={agent.id} />
            <TextArea id="agent-public-key" label={t('keys.publicKey')} name="publicKey" rows={6} required maxLength={10_000} hint={t('keys.publicKeyHint', { max: MAX_AGENT_KEYS })} />
            <Select id="agent-key-alg" label={t('keys.alg')} name="alg" defaultValue="" options={[{ value: '', label: t('keys.algFromKey') }, ...AGENT_KEY_ALGS.map((alg) => ({ value: alg, label: alg }))]} />
          </ActionForm>
        </div>
        <div className="min-w-0">
          <h3 className="mb-2 text-sm font-semibold text-slate-700">{t('keys.jwksTitle')}</h3>
          <p className="mb-3 text-sm text-slate-600">{t('keys.jwksIntro')}</p>
          <ActionForm action={setAgentJwksUriAction} org={org} submitLabel={t('keys.saveJwksUri')} variant="secondary" keepValues testId="agent-jwks-uri">
            <input type="hidden" name="agentId" value={agent.id} />
            <Field
              id="agent-jwks-uri-field"
              label={t('keys.jwksUri')}
              name="jwksUri"
              type="url"
              maxLength={500}
              defaultValue={agent.jwksUri ?? ''}
              placeholder="https://workloads.example.com/.well-known/jwks.json"
              hint={t('keys.jwksUriHint')}
              autoComplete="off"
              spellCheck={false}
            />
          </ActionForm>
        </div>
      </div>
    </Section>
  );
}

/** What a rule asks of a token: its subject and claims, exactly. */
function RuleMatch({ rule }: { rule: WorkloadTrustRule }) {
  const required = [...(rule.subject !== null ? [['sub', rule.subject] as const] : []), ...Object.entries(rule.claims)];
  return (
    <ul className="grid gap-0.5">
      {required.map(([claim, value]) => (
        <li key={claim}>
          <code className="break-all text-xs">
            {visibleText(claim)} = {visibleText(value)}
          </code>
        </li>
      ))}
    </ul>
  );
}

/** The trust rules that admit other issuers' tokens as this agent, and the form that adds one. */
export async function FederationSection(props: { org: string; agent: Agent; rules: WorkloadTrustRule[]; issuer: string }) {
  const { agent, org } = props;
  const t = await getT('console.agent');
  const columns = [t('federation.columns.name'), t('federation.columns.kind'), t('federation.columns.issuer'), t('federation.columns.match'), t('federation.columns.audience'), t('federation.columns.lastUsed')];
  return (
    <Section id="federation" title={t('federation.title')}>
      <p className="mb-3 max-w-3xl text-sm text-slate-600 wrap-anywhere">{t('federation.intro', { client: WORKLOAD_CLIENT_ID })}</p>
      {props.rules.length === 0 ? (
        <p className="mb-4 text-sm text-slate-600" data-testid="trust-rules-empty">
          {t('federation.none')}
        </p>
      ) : (
        <div className="mb-4">
          <DataTable testId="trust-rules" columns={columns} actions>
            {props.rules.map((rule) => (
              <tr key={rule.id} data-rule={rule.name}>
                <td className="wrap-anywhere font-medium">{visibleText(rule.name)}</td>
                <td>{t(`federation.kinds.${rule.kind}`)}</td>
                <td className="break-all">
                  <code className="text-xs">{visibleText(rule.issuer)}</code>
                  <span className="block text-xs text-slate-500">{rule.jwksUri ? t('federation.keysAt', { url: visibleText(rule.jwksUri) }) : t('federation.keysRegistered', { count: rule.jwks?.keys.length ?? 0 })}</span>
                </td>
                <td>
                  <RuleMatch rule={rule} />
                </td>
                <td className="wrap-anywhere">{rule.audience !== null ? <code className="break-all text-xs">{visibleText(rule.audience)}</code> : t('federation.defaultAudience')}</td>
                <td>{rule.lastUsedAt ? <When value={rule.lastUsedAt} /> : t('federation.never')}</td>
                <td>
                  <ActionForm
                    action={removeTrustRuleAction}
                    org={org}
                    submitLabel={t('federation.remove')}
                    variant="secondary"
                    inline
                    confirm={t('federation.confirmRemove', { name: visibleText(rule.name), agent: visibleText(agent.name) })}
                    confirmLabel={t('federation.confirmRemoveLabel')}
                  >
                    <input type="hidden" name="ruleId" value={rule.id} />
                  </ActionForm>
                </td>
              </tr>
            ))}
          </DataTable>
        </div>
      )}
      <h3 className="mb-2 text-sm font-semibold text-slate-700">{t('federation.addTitle')}</h3>
      <div className="max-w-xl wrap-anywhere">
        <ActionForm action={addTrustRuleAction} org={org} submitLabel={t('federation.add')} testId="add-trust-rule">
          <TrustRuleFields agentId={agent.id} porticoIssuer={props.issuer} />
        </ActionForm>
      </div>
    </Section>
  );
}

/** A token tested against every rule of the organization (not only this agent's): which would take it, and why not. */
export async function TokenTestSection(props: { org: string }) {
  const t = await getT('console.agent');
  return (
    <Section id="token-test" title={t('test.title')}>
      <p className="mb-3 max-w-3xl text-sm text-slate-600">{t('test.intro')}</p>
      <div className="max-w-xl">
        <TokenTestForm action={testWorkloadTokenAction} org={props.org} />
      </div>
    </Section>
  );
}
