// Settings → Identity → Sign-in connections: the organization's company identity providers (OpenID Connect or SAML
// 2.0). The list page shows each with its state and domains, and the forms to add one (a SAML connection from the
// IdP's metadata, by URL or pasted, or typed); each connection's own page shows what to register at the IdP
// (Portico's redirect URI, or its SAML entity ID, ACS and metadata to download), and the buttons and form to test,
// turn on or off, require, change and delete it.
import Link from 'next/link';
import { ActionForm, ConfirmedAction } from '../../../_components/action-form';
import { Field, FieldError, Select, TextArea } from '../../../_components/fields';
import { DataTable, EmptyState, Section } from '../../../_components/page-header';
import { getT } from '@/app/_lib/i18n/server';
import type { ConnectionListing } from '@/lib/identity/connections';
import type { OrgDomain } from '@/lib/identity/domains';
import { randomUUID } from 'node:crypto';
import { connectionCallbackUrl, legacyCallbackUrl, usesLegacyCallback } from '@/lib/identity/federation/oidc';
import { samlAcsUrl, samlEntityId } from '@/lib/identity/federation/saml';
import { MAX_PASTED_METADATA_CHARS } from '@/lib/identity/saml-metadata';
import { When } from '@/app/_components/when';
import { connectionPath } from './identity-frame';
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
const teamNameIn = (teams: { id: string; name: string }[]) => (id: string) => teams.find((team) => team.id === id)?.name ?? '?';

/** The organization's connections, each a link to its own page. */
export async function ConnectionsListSection({ org, connections }: { org: string; connections: ConnectionListing[] }) {
  const t = await getT('console.identity');
  const columns = [t('connections.columns.name'), t('connections.columns.kind'), t('connections.columns.state'), t('connections.columns.domains')];
  return (
    <Section id="connections" title={t('connections.title')}>
      <p className="mb-4 max-w-3xl text-sm text-slate-600">
        {t('connections.intro')} {t('connections.startsOff')}
      </p>
      {connections.length === 0 ? (
        <EmptyState title={t('connections.empty')} />
      ) : (
        <DataTable testId="connections" columns={columns}>
          {connections.map((connection) => (
            <tr key={connection.id} data-connection={connection.name} data-enabled={connection.enabled ? 'yes' : 'no'}>
              <td className="break-all font-medium">
                <Link href={connectionPath(org, connection.id)}>{connection.name}</Link>
              </td>
              <td>{t(`connections.kinds.${connection.kind}`)}</td>
              <td className={connection.enabled ? 'text-green-800' : 'text-slate-600'}>{connection.enabled ? t('connections.on') : t('connections.off')}</td>
              <td className="break-all">{connection.domains.length > 0 ? connection.domains.map((domain) => domain.domain).join(', ') : t('connections.noDomainsTied')}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </Section>
  );
}

/** The two forms that add a connection; open while there is none, folded under their titles afterwards. */
export async function AddConnectionForms({ org, issuer, hasConnections, domains }: { org: string; issuer: string; hasConnections: boolean; domains: OrgDomain[] }) {
  const t = await getT('console.identity');
  const newConnectionId = randomUUID();
  return (
    <Section id="add-connection" title={t('connections.addTitle')}>
      <details open={!hasConnections} data-testid="add-oidc-details">
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

      <details className="mt-6" open={!hasConnections} data-testid="add-saml-details">
        <summary className="mb-2 cursor-pointer font-semibold">{t('connections.addSaml.title')}</summary>
        <p className="mb-3 max-w-3xl text-sm text-slate-600">{t('connections.addSaml.intro')}</p>
        <ActionForm action={createSamlConnectionAction} org={org} submitLabel={t('connections.addSaml.submit')} testId="add-saml-connection">
          <Field id="saml-name" label={t('connections.fields.name')} name="name" required maxLength={100} />
          <Field id="saml-metadataUrl" label={t('connections.fields.metadataUrl')} name="metadataUrl" type="url" maxLength={2000} placeholder="https://idp.example.com/metadata" hint={t('connections.fields.metadataUrlHint')} autoComplete="off" />
          <TextArea id="saml-metadataXml" label={t('connections.fields.metadataXml')} name="metadataXml" rows={4} maxLength={MAX_PASTED_METADATA_CHARS} hint={t('connections.fields.metadataXmlHint')} />
          <fieldset className="grid gap-3 rounded-md border border-slate-200 p-3">
            <legend className="px-1 text-sm font-medium">{t('connections.fields.typedLegend')}</legend>
            <p className="text-sm text-slate-600">{t('connections.fields.typedHint')}</p>
            <Field id="saml-entityId" label={t('connections.fields.entityId')} name="entityId" maxLength={500} autoComplete="off" />
            <Field id="saml-ssoUrl" label={t('connections.fields.ssoUrl')} name="ssoUrl" maxLength={500} placeholder="https://idp.example.com/sso" autoComplete="off" />
            <TextArea id="saml-certificates" label={t('connections.fields.certificates')} name="certificates" rows={5} hint={t('connections.fields.certificatesHint')} maxLength={40000} />
          </fieldset>
          <RoleAndClaims t={t} idPrefix="saml" saml />
          <DomainChoices t={t} domains={domains} chosen={[]} idPrefix="saml" />
        </ActionForm>
      </details>
    </Section>
  );
}

/** What the company's IdP admin registers there for this connection. */
async function WhatToRegister({ org, issuer, connection }: { org: string; issuer: string; connection: ConnectionListing }) {
  const t = await getT('console.identity');
  const metadataUrl = samlEntityId(issuer, connection.id);
  return (
    <Section id="register" title={t('connections.page.register')}>
      {connection.kind === 'saml' ? <p className="mb-3 max-w-3xl text-sm text-slate-600">{t('connections.page.registerSamlIntro')}</p> : null}
      <dl className="grid gap-1 text-sm sm:grid-cols-[14rem_1fr]">
        {connection.kind === 'oidc' ? (
          <>
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
            <dt className="text-slate-600">{t('connections.page.metadataUrl')}</dt>
            <dd className="break-all">
              <code data-testid="sp-metadata-url">{metadataUrl}</code>
            </dd>
            <dt className="text-slate-600">{t('connections.spEntityId')}</dt>
            <dd className="break-all">
              <code data-testid="sp-entity-id">{samlEntityId(issuer, connection.id)}</code>
            </dd>
            <dt className="text-slate-600">{t('connections.acs')}</dt>
            <dd className="break-all">
              <code data-testid="sp-acs">{samlAcsUrl(issuer, connection.id)}</code>
            </dd>
          </>
        )}
      </dl>
      {connection.kind === 'saml' ? (
        <a className="btn btn-secondary mt-3" href={`${metadataUrl}?download=1`} download data-testid="download-sp-metadata">
          {t('connections.page.downloadMetadata')}
        </a>
      ) : null}
    </Section>
  );
}

/** One connection's page: what to register, its state and buttons, and the form that changes it. */
export async function ConnectionDetails({ org, issuer, connection, domains, teams }: { org: string; issuer: string; connection: ConnectionListing; domains: OrgDomain[]; teams: { id: string; name: string }[] }) {
  const t = await getT('console.identity');
  const teamName = teamNameIn(teams);
  return (
    <div data-connection={connection.name} data-enabled={connection.enabled ? 'yes' : 'no'}>
      <WhatToRegister org={org} issuer={issuer} connection={connection} />
      <Section id="connection-state" title={t('connections.page.actions')}>
        <dl className="grid gap-1 text-sm sm:grid-cols-[14rem_1fr]">
          <dt className="text-slate-600">{t('connections.columns.kind')}</dt>
          <dd>{t(`connections.kinds.${connection.kind}`)}</dd>
          <dt className="text-slate-600">{t('connections.columns.state')}</dt>
          <dd className={connection.enabled ? 'text-green-800' : 'text-slate-600'} data-testid="connection-state">
            {connection.enabled ? t('connections.on') : t('connections.off')}
          </dd>
          {connection.kind === 'oidc' ? (
            <>
              <dt className="text-slate-600">{t('connections.fields.issuer')}</dt>
              <dd className="break-all">{connection.oidcIssuer}</dd>
              <dt className="text-slate-600">{t('connections.fields.clientId')}</dt>
              <dd className="break-all">{connection.oidcClientId}</dd>
            </>
          ) : (
            <>
              <dt className="text-slate-600">{t('connections.fields.entityId')}</dt>
              <dd className="break-all" data-testid="idp-entity-id">{connection.samlIdpEntityId}</dd>
              <dt className="text-slate-600">{t('connections.fields.ssoUrl')}</dt>
              <dd className="break-all" data-testid="idp-sso-url">{connection.samlSsoUrl}</dd>
            </>
          )}
          <dt className="text-slate-600">{t('connections.ssoRequiredLabel')}</dt>
          <dd data-testid="sso-required">{connection.requireSso ? t('connections.ssoRequiredYes') : t('connections.ssoRequiredNo')}</dd>
          <dt className="text-slate-600">{t('connections.fields.domains')}</dt>
          <dd>{connection.domains.length > 0 ? connection.domains.map((domain) => domain.domain).join(', ') : t('connections.noDomainsTied')}</dd>
          <dt className="text-slate-600">{t('connections.fields.defaultRole')}</dt>
          <dd>{t(`connections.roles.${connection.defaultRole === 'admin' ? 'admin' : 'member'}`)}</dd>
          <dt className="text-slate-600">{t('connections.fields.groupTeams')}</dt>
          <dd className="break-all">
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
      </Section>
      <Section id="connection-settings" title={t('connections.page.details')}>
        <ActionForm action={updateConnectionAction} org={org} submitLabel={t('connections.save')} keepValues testId={`edit-connection-${connection.name}`}>
          <input type="hidden" name="connectionId" value={connection.id} />
          <Field id="edit-name" label={t('connections.fields.name')} name="name" defaultValue={connection.name} required maxLength={100} />
          {connection.kind === 'oidc' ? (
            <>
              <Field id="edit-clientId" label={t('connections.fields.clientId')} name="clientId" defaultValue={connection.oidcClientId ?? ''} required maxLength={300} />
              <Field id="edit-clientSecret" label={t('connections.fields.newClientSecret')} name="clientSecret" type="password" autoComplete="off" maxLength={1000} hint={t('connections.fields.newClientSecretHint')} />
            </>
          ) : (
            <>
              <Field id="edit-ssoUrl" label={t('connections.fields.ssoUrl')} name="ssoUrl" defaultValue={connection.samlSsoUrl ?? ''} required maxLength={500} />
              <TextArea id="edit-certificates" label={t('connections.fields.newCertificates')} name="certificates" rows={4} maxLength={40000} hint={t('connections.fields.newCertificatesHint')} />
            </>
          )}
          <RoleAndClaims t={t} connection={connection} idPrefix="edit" saml={connection.kind === 'saml'} />
          <DomainChoices t={t} domains={domains} chosen={connection.domains.map((domain) => domain.id)} connectionId={connection.id} idPrefix="edit" />
          <TextArea
            id="edit-groupTeams"
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
      </Section>
    </div>
  );
}
