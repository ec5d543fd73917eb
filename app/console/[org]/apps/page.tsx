import type { Metadata } from 'next';
import Link from 'next/link';
import { listApps } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { columnLabels, EmptyState, PageHeader } from '../../_components/page-header';
import { getT } from '@/app/_lib/i18n/server';
import { ScrollPanel } from '@/app/console/_components/scroll-panel';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.apps.list'))('pageTitle') };
}

export default async function AppsPage(props: { params: Promise<{ org: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const access = await requireOrgAccess((await props.params).org);
  const deleted = (await props.searchParams).deleted;
  // Only that something was deleted: the query string names nothing the page repeats.
  const apps = await listApps(db(), access.org.slug);
  const base = `/console/${access.org.slug}/apps`;
  const t = await getT('console.apps.list');
  return (
    <>
      <PageHeader
        title={t('title')}
        description={t('description')}
        actions={
          access.can('apps.manage') ? (
            <Link className="btn btn-primary" href={`${base}/new`}>
              {t('new')}
            </Link>
          ) : null
        }
      />
      {(await props.searchParams).created === 'org' ? (
        <div className="alert alert-success mb-4" role="status" data-testid="org-created">
          {t('orgCreated', { name: access.org.name })}
        </div>
      ) : null}
      {typeof deleted === 'string' ? (
        <div className="alert alert-success mb-4" role="status" data-testid="app-deleted">
          {t('deleted')}
        </div>
      ) : null}
      {apps.length === 0 ? (
        <EmptyState title={t('empty.title')}>{access.can('apps.manage') ? t('empty.manage') : t('empty.read')}</EmptyState>
      ) : (
        <ScrollPanel className="p-0">
          <table className="table" style={columnLabels([t('columns.name'), t('columns.address'), t('columns.clientId')])}>
            <thead>
              <tr>
                <th scope="col">{t('columns.name')}</th>
                <th scope="col">{t('columns.address')}</th>
                <th scope="col">{t('columns.clientId')}</th>
              </tr>
            </thead>
            <tbody>
              {apps.map(({ app, clientId }) => (
                <tr key={app.id}>
                  <td>
                    <Link href={`${base}/${app.id}`}>{app.name}</Link>
                    {app.disabledAt ? (
                      <span className="badge badge-warning" data-testid={`app-off-${app.slug}`}>
                        {t('off')}
                      </span>
                    ) : null}
                  </td>
                  <td className="text-slate-600">{app.publishOrigin}</td>
                  <td>
                    <code className="text-xs">{clientId}</code>
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
