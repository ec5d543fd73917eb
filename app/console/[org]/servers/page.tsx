// Servers (the MCP gateway, issue 58): the organization's upstream MCP servers, each with the address agents are
// given, its upstream, whether Portico could read it, whether it is on, and how many of its tools are offered, wait
// for a first approval, or changed since theirs (withheld).
import type { Metadata } from 'next';
import Link from 'next/link';
import { gatewayToolsOf, listGatewayServers, toolStateOf } from '@/lib/gateway/servers';
import { db } from '@/lib/runtime';
import { getT } from '@/app/_lib/i18n/server';
import { CopyButton } from '@/app/_components/copy-button';
import { requireOrgAccess } from '../../_lib/access';
import { DataTable, EmptyState, PageHeader } from '../../_components/page-header';
import { ServerStatus } from './server-status';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.servers'))('list.pageTitle') };
}

export default async function ServersPage(props: { params: Promise<{ org: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const access = await requireOrgAccess((await props.params).org);
  const t = await getT('console.servers');
  if (!access.can('apps.manage')) return <PageHeader title={t('list.title')} description={t('notAllowed')} />;
  const removed = (await props.searchParams).removed;
  const servers = await listGatewayServers(db(), access.org.id);
  const counted = await Promise.all(
    servers.map(async (server) => {
      const states = (await gatewayToolsOf(db(), server.id)).map(toolStateOf);
      return { server, offered: states.filter((state) => state === 'approved').length, waiting: states.filter((state) => state === 'pending').length, changed: states.filter((state) => state === 'changed').length };
    }),
  );
  const base = `/console/${access.org.slug}/servers`;
  const columns = [t('list.columns.name'), t('list.columns.address'), t('list.columns.upstream'), t('list.columns.status'), t('list.columns.tools')];
  return (
    <>
      <PageHeader
        title={t('list.title')}
        description={t('list.description')}
        actions={
          servers.length > 0 ? (
            <Link className="btn btn-primary" href={`${base}/new`} data-testid="add-server-link">
              {t('list.new')}
            </Link>
          ) : null
        }
      />
      {typeof removed === 'string' ? (
        <div className="alert alert-success mb-4" role="status" data-testid="server-removed">
          {t('list.removed')}
        </div>
      ) : null}
      {servers.length === 0 ? (
        <EmptyState title={t('list.empty.title')}>
          <p>{t('list.empty.body')}</p>
          <p className="mt-3">
            <Link className="btn btn-primary" href={`${base}/new`} data-testid="add-server-link">
              {t('list.empty.add')}
            </Link>
          </p>
        </EmptyState>
      ) : (
        <DataTable testId="servers" columns={columns}>
          {counted.map(({ server, offered, waiting, changed }) => (
            <tr key={server.id} data-testid={`server-${server.slug}`}>
              <td>
                <Link href={`${base}/${server.slug}`}>{server.name}</Link>
                {server.disabledAt ? (
                  <span className="badge badge-warning" data-testid={`server-off-${server.slug}`}>
                    {t('off')}
                  </span>
                ) : (
                  <span className="badge">{t('on')}</span>
                )}
              </td>
              <td>
                <code className="break-all text-xs" data-testid="server-resource">
                  {server.resource}
                </code>
                <CopyButton text={server.resource} label={t('list.copyAddress', { name: server.name })} className="btn btn-secondary mt-1 text-xs" />
              </td>
              <td className="break-all text-sm text-slate-600">{server.url}</td>
              <td className="text-sm">
                <ServerStatus server={server} />
              </td>
              <td className="text-sm" data-testid="server-tool-counts">
                <span className="block">{t('list.offered', { count: offered })}</span>
                <span className={`block ${waiting > 0 ? 'font-semibold text-amber-800' : 'text-slate-600'}`}>{t('list.waiting', { count: waiting })}</span>
                {changed > 0 ? <span className="block font-semibold text-red-800">{t('list.changed', { count: changed })}</span> : null}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}
