import type { Metadata } from 'next';
import { When } from '@/app/_components/when';
import { listApps } from '@/lib/clients/apps';
import { listOrgClients, MAX_EXTERNAL_REDIRECT_URIS, type OrgClientListing } from '@/lib/clients/external';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { ActionForm } from '../../_components/action-form';
import { Field, Select, TextArea } from '../../_components/fields';
import { columnLabels, EmptyState, PageHeader } from '../../_components/page-header';
import { createExternalClientAction, revokeClientAction } from './actions';
import { getT } from '@/app/_lib/i18n/server';
import { ScrollPanel } from '@/app/console/_components/scroll-panel';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.clients'))('pageTitle') };
}

export default async function ClientsPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  const t = await getT('console.clients');
  if (!access.can('clients.manage')) return <PageHeader title={t('title')} description={t('notAllowed')} />;
  const kindLabel = (kind: OrgClientListing['kind']) => t(`kinds.${kind}`);
  const org = access.org.slug;
  const [clients, apps] = await Promise.all([listOrgClients(db(), access.org.id), listApps(db(), org)]);
  return (
    <>
      <PageHeader title={t('title')} description={t('description')} />
      <section className="panel mb-6" aria-label={t('register.title')}>
        <h2 className="mb-3 text-lg font-semibold">{t('register.title')}</h2>
        {apps.length === 0 ? (
          <p className="text-sm text-slate-500">{t('register.noApps')}</p>
        ) : (
          <ActionForm action={createExternalClientAction} org={org} submitLabel={t('register.submit')} testId="register-client">
            <Select label={t('register.app')} name="appId" options={apps.map((row) => ({ value: row.app.id, label: row.app.name }))} />
            <Field label={t('register.label')} name="label" required maxLength={80} placeholder={t('register.labelPlaceholder')} />
            <TextArea
              label={t('register.redirectUris')}
              name="redirectUris"
              required
              placeholder={'http://127.0.0.1/callback\nhttps://client.example/callback'}
              hint={t('register.redirectUrisHint', { max: MAX_EXTERNAL_REDIRECT_URIS })}
            />
          </ActionForm>
        )}
      </section>
      {clients.length === 0 ? (
        <EmptyState title={t('empty.title')}>{t('empty.body')}</EmptyState>
      ) : (
        <ScrollPanel>
          <table
            className="table"
            data-testid="clients-table"
            style={columnLabels([t('columns.client'), t('columns.app'), t('columns.kind'), t('columns.redirectUris'), t('columns.consents'), t('columns.used'), t('columns.status'), null])}
          >
            <thead>
              <tr>
                <th>{t('columns.client')}</th>
                <th>{t('columns.app')}</th>
                <th>{t('columns.kind')}</th>
                <th>{t('columns.redirectUris')}</th>
                <th>{t('columns.consents')}</th>
                <th>{t('columns.used')}</th>
                <th>{t('columns.status')}</th>
                <th aria-label={t('columns.actions')} />
              </tr>
            </thead>
            <tbody>
              {clients.map((client) => (
                <tr key={`${client.clientId}-${client.app.id}`} data-testid={`client-${client.clientId}`}>
                  <td>
                    <div className="font-medium">{client.name}</div>
                    <code className="text-xs break-all text-slate-500">{client.clientId}</code>
                  </td>
                  <td>{client.app.name}</td>
                  <td>{kindLabel(client.kind)}</td>
                  <td>
                    <ul className="grid gap-1">
                      {client.redirectUris.map((uri) => (
                        <li key={uri}>
                          <code className="text-xs break-all">{uri}</code>
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>{client.consents}</td>
                  <td data-testid="client-use">
                    {client.firstUsedAt && client.lastUsedAt ? (
                      <div className="grid gap-0.5 text-xs">
                        <span>{t.rich('firstUsed', { when: () => <When value={client.firstUsedAt!} relative={false} /> })}</span>
                        <span>{t.rich('lastUsed', { when: () => <When value={client.lastUsedAt!} /> })}</span>
                      </div>
                    ) : (
                      <span className="text-xs text-slate-500">{t('neverUsed')}</span>
                    )}
                  </td>
                  <td>
                    {client.revokedAt ? (
                      <span className="text-red-700">{t.rich('revokedAt', { when: () => <When value={client.revokedAt!} relative={false} /> })}</span>
                    ) : (
                      t('active')
                    )}
                  </td>
                  <td>
                    {/* Stays mounted once revoked (without its button) so the outcome it reports stays visible. */}
                    <ActionForm
                      action={revokeClientAction}
                      org={org}
                      submitLabel={t('revoke')}
                      variant="danger"
                      inline
                      hideSubmit={Boolean(client.revokedAt)}
                      confirm={t('confirmRevoke', { client: client.name, app: client.app.name })}
                      confirmLabel={t('confirmRevokeLabel')}
                    >
                      <input type="hidden" name="appId" value={client.app.id} />
                      <input type="hidden" name="clientId" value={client.clientId} />
                    </ActionForm>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollPanel>
      )}
    </>
  );
}
