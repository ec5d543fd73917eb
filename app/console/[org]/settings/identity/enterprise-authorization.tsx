// Settings → Identity → Enterprise-managed authorization (ID-JAG, lib/oidc/id-jag.ts), both sides: the outside MCP
// servers the organization's people reach with an ID-JAG from Portico, and the company identity providers whose
// ID-JAGs the organization's apps accept.
import { ActionForm, ConfirmedAction } from '../../../_components/action-form';
import { DataTable, EmptyState, Section } from '../../../_components/page-header';
import { Field, Select } from '../../../_components/fields';
import { getT } from '@/app/_lib/i18n/server';
import type { RemoteMcpServer, TrustedAssertionIssuer } from '@/lib/identity/enterprise-authorization';
import { addRemoteMcpServerAction, removeRemoteMcpServerAction, removeTrustedIssuerAction, trustConnectionAction, trustIssuerKeysAction } from './actions';

const code = (chunks: React.ReactNode) => <code className="break-all">{chunks}</code>;

export async function EnterpriseAuthorizationSection(props: {
  org: string;
  /** The organization's id: the `tenant` of the ID-JAGs Portico issues for it. */
  orgId: string;
  issuer: string;
  servers: RemoteMcpServer[];
  trusted: (TrustedAssertionIssuer & { connectionName: string | null })[];
  apps: { id: string; name: string }[];
  oidcConnections: { id: string; name: string }[];
}) {
  const t = await getT('console.identity');
  const { org, servers, trusted, apps, oidcConnections } = props;
  const appName = (id: string | null) => apps.find((app) => app.id === id)?.name;
  return (
    <Section id="enterprise-authorization" title={t('idJag.title')}>
      <p className="mb-4 max-w-3xl text-sm text-slate-600">{t('idJag.intro')}</p>

      <h3 className="mb-2 font-semibold">{t('idJag.servers.title')}</h3>
      <p className="mb-3 max-w-3xl text-sm text-slate-600">{t.rich('idJag.servers.intro', { code, tokenEndpoint: `${props.issuer}/oidc/token` })}</p>
      <p className="mb-3 max-w-3xl text-sm text-slate-600" data-testid="id-jag-tenant">
        {t.rich('idJag.servers.yourTenant', { code, tenant: props.orgId })}
      </p>
      {servers.length === 0 ? (
        <EmptyState title={t('idJag.servers.empty')} />
      ) : (
        <DataTable testId="remote-mcp-servers" columns={[t('idJag.servers.columns.name'), t('idJag.servers.columns.target'), t('idJag.servers.columns.scopes'), t('idJag.servers.columns.actions')]}>
          {servers.map((server) => (
            <tr key={server.id} data-server={server.name}>
              <td className="font-medium">{server.name}</td>
              <td className="text-xs">
                <dl className="grid gap-0.5">
                  <dt className="text-slate-600">{t('idJag.servers.fields.authorizationServer')}</dt>
                  <dd className="break-all">
                    <code>{server.authorizationServer}</code>
                  </dd>
                  <dt className="text-slate-600">{t('idJag.servers.fields.resource')}</dt>
                  <dd className="break-all">
                    <code>{server.resource}</code>
                  </dd>
                  <dt className="text-slate-600">{t('idJag.servers.fields.remoteClientId')}</dt>
                  <dd className="break-all">
                    <code>{server.remoteClientId}</code>
                  </dd>
                </dl>
              </td>
              <td className="text-sm">
                {server.allowedScopes.length > 0 ? <code className="break-all">{server.allowedScopes.join(' ')}</code> : <span className="text-slate-500">{t('idJag.servers.noScopes')}</span>}
                <span className="block text-xs text-slate-600">
                  {server.permissionsAppId ? t('idJag.servers.heldOn', { app: appName(server.permissionsAppId) ?? '—' }) : t('idJag.servers.heldByEveryone')}
                </span>
              </td>
              <td>
                <ConfirmedAction
                  action={removeRemoteMcpServerAction}
                  org={org}
                  label={t('idJag.remove')}
                  confirm={t('idJag.servers.removeConfirm', { name: server.name })}
                  confirmLabel={t('idJag.removeConfirmLabel')}
                  fields={{ serverId: server.id }}
                />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <details className="mt-4" open={servers.length === 0} data-testid="add-remote-server-details">
        <summary className="mb-2 cursor-pointer font-semibold">{t('idJag.servers.add.title')}</summary>
        <ActionForm action={addRemoteMcpServerAction} org={org} submitLabel={t('idJag.servers.add.submit')} testId="add-remote-server">
          <Field id="remote-name" label={t('idJag.servers.fields.name')} name="name" required maxLength={100} />
          <Field id="remote-authorizationServer" label={t('idJag.servers.fields.authorizationServer')} name="authorizationServer" required maxLength={500} placeholder="https://auth.vendor.example" hint={t('idJag.servers.fields.authorizationServerHint')} autoComplete="off" />
          <Field id="remote-resource" label={t('idJag.servers.fields.resource')} name="resource" required maxLength={500} placeholder="https://mcp.vendor.example/mcp" hint={t('idJag.servers.fields.resourceHint')} autoComplete="off" />
          <Field id="remote-remoteClientId" label={t('idJag.servers.fields.remoteClientId')} name="remoteClientId" required maxLength={2000} hint={t('idJag.servers.fields.remoteClientIdHint')} autoComplete="off" />
          <Field id="remote-allowedScopes" label={t('idJag.servers.fields.allowedScopes')} name="allowedScopes" maxLength={5000} placeholder="mcp notes:read" hint={t('idJag.servers.fields.allowedScopesHint')} autoComplete="off" />
          <Select
            id="remote-permissionsAppId"
            label={t('idJag.servers.fields.permissionsApp')}
            name="permissionsAppId"
            defaultValue=""
            options={[{ value: '', label: t('idJag.servers.fields.permissionsAppNone') }, ...apps.map((app) => ({ value: app.id, label: app.name }))]}
          />
        </ActionForm>
      </details>

      <h3 className="mb-2 mt-8 font-semibold">{t('idJag.trusted.title')}</h3>
      <p className="mb-3 max-w-3xl text-sm text-slate-600">{t('idJag.trusted.intro')}</p>
      {trusted.length === 0 ? (
        <EmptyState title={t('idJag.trusted.empty')} />
      ) : (
        <DataTable testId="trusted-issuers" columns={[t('idJag.trusted.columns.issuer'), t('idJag.trusted.columns.source'), t('idJag.trusted.columns.actions')]}>
          {trusted.map((entry) => (
            <tr key={entry.id} data-issuer={entry.issuer}>
              <td className="break-all">
                <code>{entry.issuer}</code>
              </td>
              <td className="text-sm">
                {entry.tenant ? <span className="mb-1 block text-xs text-slate-600">{t('idJag.trusted.tenantShown', { tenant: entry.tenant })}</span> : null}
                {entry.connectionId ? (
                  t('idJag.trusted.viaConnection', { name: entry.connectionName ?? '—' })
                ) : (
                  <>
                    {t('idJag.trusted.viaKeys')} <code className="break-all text-xs">{entry.jwksUri}</code>
                  </>
                )}
              </td>
              <td>
                <ConfirmedAction
                  action={removeTrustedIssuerAction}
                  org={org}
                  label={t('idJag.remove')}
                  confirm={t('idJag.trusted.removeConfirm', { issuer: entry.issuer })}
                  confirmLabel={t('idJag.removeConfirmLabel')}
                  fields={{ trustId: entry.id }}
                />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <div className="mt-4 grid gap-6 lg:grid-cols-2">
        <div>
          <h4 className="mb-2 font-medium">{t('idJag.trusted.connection.title')}</h4>
          {oidcConnections.length === 0 ? (
            <p className="text-sm text-slate-600">{t('idJag.trusted.connection.none')}</p>
          ) : (
            <ActionForm action={trustConnectionAction} org={org} submitLabel={t('idJag.trusted.connection.submit')} testId="trust-connection">
              <Select id="trust-connectionId" label={t('idJag.trusted.connection.field')} name="connectionId" options={oidcConnections.map((connection) => ({ value: connection.id, label: connection.name }))} />
              <Field id="trust-connection-tenant" label={t('idJag.trusted.tenant')} name="tenant" maxLength={200} hint={t('idJag.trusted.tenantHint')} autoComplete="off" />
            </ActionForm>
          )}
        </div>
        <div>
          <h4 className="mb-2 font-medium">{t('idJag.trusted.keys.title')}</h4>
          <ActionForm action={trustIssuerKeysAction} org={org} submitLabel={t('idJag.trusted.keys.submit')} testId="trust-issuer-keys">
            <Field id="trust-issuer" label={t('idJag.trusted.keys.issuer')} name="issuer" required maxLength={500} placeholder="https://idp.example.com" autoComplete="off" />
            <Field id="trust-jwksUri" label={t('idJag.trusted.keys.jwksUri')} name="jwksUri" required maxLength={500} placeholder="https://idp.example.com/keys" hint={t('idJag.trusted.keys.jwksUriHint')} autoComplete="off" />
            <Field id="trust-keys-tenant" label={t('idJag.trusted.tenant')} name="tenant" maxLength={200} hint={t('idJag.trusted.tenantHint')} autoComplete="off" />
          </ActionForm>
        </div>
      </div>
    </Section>
  );
}
