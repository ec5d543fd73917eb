// Settings → Identity → Connections: the organization's company identity providers (OpenID Connect or SAML 2.0), what
// to register at each (Portico's redirect URI, or its SAML entity ID, ACS and metadata), which verified domains
// each signs in, and the forms to add, change, test, turn off and delete them.
import { ActionForm, ConfirmedAction } from '../../../_components/action-form';
import { Field, FieldError, Select, TextArea } from '../../../_components/fields';
import { EmptyState, Section } from '../../../_components/page-header';
import { getT } from '@/lib/i18n/server';
import type { ConnectionListing } from '@/lib/identity/connections';
import type { OrgDomain } from '@/lib/identity/domains';
import { randomUUID } from 'node:crypto';
import { connectionCallbackUrl, legacyCallbackUrl, usesLegacyCallback } from '@/lib/identity/federation';
import { samlAcsUrl, samlEntityId } from '@/lib/identity/saml';
import { When } from '@/app/_components/when';
import { createOidcConnectionAction, createSamlConnectionAction, deleteConnectionAction, setConnectionEnabledAction, setRequireSsoAction, updateConnectionAction, useOwnCallbackAction } from './actions';

type T = Awaited<ReturnType<typeof getT<'console.identity'>>>;

function DomainChoices({ t, domains, chosen, connectionId, idPrefix }: { t: T; domains: OrgDomain[]; chosen: string[]; connectionId?: string; idPrefix: string }) {
  const verified = domains.filter((domain) => domain.verifiedAt && (!domain.connectionId || domain.connectionId === connectionId));
  return (
    <fieldset className="grid gap-1" aria-describedby={`${idPrefix}-domains-error`}>
      <legend className="text-sm font-medium">{t('connections.fields.domains')}</legend>
      {verified.length === 0 ? <p className="text-sm text-slate-600">{t('connections.fields.noDomains')}</p> : null}
      {verified.map((domain) => (
        <label key={domain.id} className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="domainIds" value={domain.id} defaultChecked={chosen.includes(domain.id)} />
          {domain.domain}
        </label>
      ))}
      <FieldError name="domains" id={`${idPrefix}-domains-error`} />
    </fieldset>
  );
}

/** A SAML assertion carries attributes, an OIDC ID token claims: the fields say which the connection reads. */
function RoleAndClaims({ t, connection, idPrefix, saml }: { t: T; connection?: ConnectionListing; idPrefix: string; saml: boolean }) {
  return (
    <>
      <Select
        id={`${idPrefix}-defaultRole`}
        label={t('connections.fields.defaultRole')}
        name="defaultRole"
        defaultValue={connection?.defaultRole ?? 'member'}
        options={[
          { value: 'member', label: t('connections.roles.member') },
          { value: 'admin', label: t('connections.roles.admin') },
        ]}
      />
      <div className="grid gap-3 sm:grid-cols-3">
        <Field id={`${idPrefix}-emailClaim`} label={saml ? t('connections.fields.emailAttribute') : t('connections.fields.emailClaim')} name="emailClaim" defaultValue={connection?.emailClaim ?? 'email'} required maxLength={200} />
        <Field id={`${idPrefix}-nameClaim`} label={saml ? t('connections.fields.nameAttribute') : t('connections.fields.nameClaim')} name="nameClaim" defaultValue={connection?.nameClaim ?? 'name'} required maxLength={200} />
        <Field id={`${idPrefix}-groupsClaim`} label={saml ? t('connections.fields.groupsAttribute') : t('connections.fields.groupsClaim')} name="groupsClaim" defaultValue={connection?.groupsClaim ?? 'groups'} required maxLength={200} />
      </div>
    </>
  );
}

const code = (chunks: React.ReactNode) => <code className="break-all">{chunks}</code>;

export async function ConnectionsSection({ org, issuer, connections, domains, teams }: { org: string; issuer: string; connections: ConnectionListing[]; domains: OrgDomain[]; teams: { id: string; name: string }[] }) {
  const t = await getT('console.identity');
  const newConnectionId = randomUUID();
  const teamName = (id: string) => teams.find((team) => team.id === id)?.name ?? '?';
  return (
    <Section id="connections" title={t('connections.title')}>
      <p className="mb-4 max-w-3xl text-sm text-slate-600">
        {t('connections.intro')} {t('connections.startsOff')}
      </p>
      {connections.length === 0 ? <EmptyState title={t('connections.empty')} /> : null}
      <ul className="grid gap-4" data-testid="connections">
        {connections.map((connection) => (
          <li key={connection.id} className="rounded-md border border-slate-200 p-4" data-connection={connection.name} data-enabled={connection.enabled ? 'yes' : 'no'}>
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <h3 className="font-semibold">
                {connection.name} <span className="text-xs font-normal text-slate-600">{t(`connections.kinds.${connection.kind}`)}</span>
              </h3>
              <span className={connection.enabled ? 'text-sm text-green-800' : 'text-sm text-slate-600'}>{connection.enabled ? t('connections.on') : t('connections.off')}</span>
            </div>
            <dl className="mt-2 grid gap-1 text-sm sm:grid-cols-[12rem_1fr]">
              {connection.kind === 'oidc' ? (
                <>
                  <dt className="text-slate-600">{t('connections.fields.issuer')}</dt>
                  <dd className="break-all">{connection.oidcIssuer}</dd>
                  <dt className="text-slate-600">{t('connections.fields.clientId')}</dt>
                  <dd className="break-all">{connection.oidcClientId}</dd>
                  <dt className="text-slate-600">{t('connections.redirectUri')}</dt>
                  <dd className="break-all">
                    <code data-testid="connection-redirect-uri">{connectionCallbackUrl(issuer, connection.id)}</code>
                    {usesLegacyCallback(connection) ? (
                      <div className="mt-2 grid gap-2 rounded-md border border-amber-300 bg-amber-50 p-2 break-normal text-slate-800" data-testid="legacy-callback">
                        <p>
                          {t.rich('connections.legacyCallback', { code, legacy: legacyCallbackUrl(issuer) })} <When value={connection.legacyCallbackUntil!} relative={false} />
                        </p>
                        <ActionForm action={useOwnCallbackAction} org={org} submitLabel={t('connections.useOwnCallback')} variant="secondary" inline>
                          <input type="hidden" name="connectionId" value={connection.id} />
                        </ActionForm>
                      </div>
                    ) : null}
                  </dd>
                </>
              ) : (
                <>
                  <dt className="text-slate-600">{t('connections.fields.entityId')}</dt>
                  <dd className="break-all">{connection.samlIdpEntityId}</dd>
                  <dt className="text-slate-600">{t('connections.spEntityId')}</dt>
                  <dd className="break-all">
                    <code>{samlEntityId(issuer, connection.id)}</code> (<a href={samlEntityId(issuer, connection.id)}>{t('connections.metadata')}</a>)
                  </dd>
                  <dt className="text-slate-600">{t('connections.acs')}</dt>
                  <dd className="break-all">
                    <code>{samlAcsUrl(issuer, connection.id)}</code>
                  </dd>
                </>
              )}
              <dt className="text-slate-600">{t('connections.ssoRequiredLabel')}</dt>
              <dd data-testid="sso-required">{connection.requireSso ? t('connections.ssoRequiredYes') : t('connections.ssoRequiredNo')}</dd>
              <dt className="text-slate-600">{t('connections.fields.domains')}</dt>
              <dd>{connection.domains.length > 0 ? connection.domains.map((domain) => domain.domain).join(', ') : t('connections.noDomainsTied')}</dd>
              <dt className="text-slate-600">{t('connections.fields.defaultRole')}</dt>
              <dd>{t(`connections.roles.${connection.defaultRole === 'admin' ? 'admin' : 'member'}`)}</dd>
              <dt className="text-slate-600">{t('connections.fields.groupTeams')}</dt>
              <dd>
                {Object.keys(connection.groupTeams).length > 0
                  ? Object.entries(connection.groupTeams)
                      .map(([group, team]) => `${group} → ${teamName(team)}`)
                      .join(', ')
                  : t('connections.noGroups')}
              </dd>
            </dl>
            <div className="mt-3 flex flex-wrap items-end gap-2">
              <form method="post" action={`/console/${org}/settings/identity/test/start`}>
                <input type="hidden" name="connection" value={connection.id} />
                <button type="submit" className="btn btn-secondary" data-testid="test-connection">
                  {t('connections.test')}
                </button>
              </form>
              <ActionForm action={setConnectionEnabledAction} org={org} submitLabel={connection.enabled ? t('connections.turnOff') : t('connections.turnOn')} variant="secondary" inline>
                <input type="hidden" name="connectionId" value={connection.id} />
                <input type="hidden" name="enabled" value={connection.enabled ? 'no' : 'yes'} />
              </ActionForm>
              <ActionForm action={setRequireSsoAction} org={org} submitLabel={connection.requireSso ? t('connections.stopRequiringSso') : t('connections.requireSso')} variant="secondary" inline>
                <input type="hidden" name="connectionId" value={connection.id} />
                <input type="hidden" name="required" value={connection.requireSso ? 'no' : 'yes'} />
              </ActionForm>
              <ConfirmedAction
                action={deleteConnectionAction}
                org={org}
                label={t('connections.delete')}
                confirm={t('connections.deleteConfirm', { name: connection.name })}
                confirmLabel={t('connections.deleteConfirmLabel')}
                fields={{ connectionId: connection.id }}
              />
            </div>
            <details className="mt-3">
              <summary className="cursor-pointer text-sm font-medium">{t('connections.edit')}</summary>
              <div className="mt-3">
                <ActionForm action={updateConnectionAction} org={org} submitLabel={t('connections.save')} keepValues testId={`edit-connection-${connection.name}`}>
                  <input type="hidden" name="connectionId" value={connection.id} />
                  <Field id={`edit-${connection.id}-name`} label={t('connections.fields.name')} name="name" defaultValue={connection.name} required maxLength={100} />
                  {connection.kind === 'oidc' ? (
                    <>
                      <Field id={`edit-${connection.id}-clientId`} label={t('connections.fields.clientId')} name="clientId" defaultValue={connection.oidcClientId ?? ''} required maxLength={300} />
                      <Field id={`edit-${connection.id}-clientSecret`} label={t('connections.fields.newClientSecret')} name="clientSecret" type="password" autoComplete="off" maxLength={1000} hint={t('connections.fields.newClientSecretHint')} />
                    </>
                  ) : (
                    <>
                      <Field id={`edit-${connection.id}-ssoUrl`} label={t('connections.fields.ssoUrl')} name="ssoUrl" defaultValue={connection.samlSsoUrl ?? ''} required maxLength={500} />
                      <TextArea id={`edit-${connection.id}-certificates`} label={t('connections.fields.newCertificates')} name="certificates" rows={4} maxLength={40000} hint={t('connections.fields.newCertificatesHint')} />
                    </>
                  )}
                  <RoleAndClaims t={t} connection={connection} idPrefix={`edit-${connection.id}`} saml={connection.kind === 'saml'} />
                  <DomainChoices t={t} domains={domains} chosen={connection.domains.map((domain) => domain.id)} connectionId={connection.id} idPrefix={`edit-${connection.id}`} />
                  <TextArea
                    id={`edit-${connection.id}-groupTeams`}
                    label={t('connections.fields.groupTeams')}
                    name="groupTeams"
                    rows={3}
                    maxLength={20000}
                    hint={t('connections.fields.groupTeamsHint')}
                    defaultValue={Object.entries(connection.groupTeams)
                      .map(([group, team]) => `${group} = ${teamName(team)}`)
                      .join('\n')}
                  />
                </ActionForm>
              </div>
            </details>
          </li>
        ))}
      </ul>

      {/* Open while there is no connection; afterwards the forms fold away under their titles. */}
      <details className="mt-6" open={connections.length === 0} data-testid="add-oidc-details">
      <summary className="mb-2 cursor-pointer font-semibold">{t('connections.addOidc.title')}</summary>
      <p className="mb-3 max-w-3xl text-sm text-slate-600">{t.rich('connections.addOidc.intro', { code, redirectUri: connectionCallbackUrl(issuer, newConnectionId) })}</p>
      <ActionForm action={createOidcConnectionAction} org={org} submitLabel={t('connections.addOidc.submit')} testId="add-oidc-connection">
        {/* The connection is made with the id its redirect URI above names (each connection has its own). */}
        <input type="hidden" name="newConnectionId" value={newConnectionId} />
        <Field id="oidc-name" label={t('connections.fields.name')} name="name" required maxLength={100} placeholder="Company SSO" />
        <Field id="oidc-issuer" label={t('connections.fields.issuer')} name="issuer" required maxLength={500} placeholder="https://login.example.com" hint={t('connections.fields.issuerHint')} autoComplete="off" />
        <Field id="oidc-clientId" label={t('connections.fields.clientId')} name="clientId" required maxLength={300} autoComplete="off" />
        <Field id="oidc-clientSecret" label={t('connections.fields.clientSecret')} name="clientSecret" type="password" required maxLength={1000} autoComplete="off" hint={t('connections.fields.clientSecretHint')} />
        <RoleAndClaims t={t} idPrefix="oidc" saml={false} />
        <DomainChoices t={t} domains={domains} chosen={[]} idPrefix="oidc" />
      </ActionForm>
      </details>

      <details className="mt-6" open={connections.length === 0} data-testid="add-saml-details">
      <summary className="mb-2 cursor-pointer font-semibold">{t('connections.addSaml.title')}</summary>
      <p className="mb-3 max-w-3xl text-sm text-slate-600">{t('connections.addSaml.intro')}</p>
      <ActionForm action={createSamlConnectionAction} org={org} submitLabel={t('connections.addSaml.submit')} testId="add-saml-connection">
        <Field id="saml-name" label={t('connections.fields.name')} name="name" required maxLength={100} />
        <Field id="saml-entityId" label={t('connections.fields.entityId')} name="entityId" required maxLength={500} autoComplete="off" />
        <Field id="saml-ssoUrl" label={t('connections.fields.ssoUrl')} name="ssoUrl" required maxLength={500} placeholder="https://idp.example.com/sso" autoComplete="off" />
        <TextArea id="saml-certificates" label={t('connections.fields.certificates')} name="certificates" rows={5} required hint={t('connections.fields.certificatesHint')} maxLength={40000} />
        <RoleAndClaims t={t} idPrefix="saml" saml />
        <DomainChoices t={t} domains={domains} chosen={[]} idPrefix="saml" />
      </ActionForm>
      </details>
    </Section>
  );
}
