import type { Metadata } from 'next';
import Link from 'next/link';
import { listApps } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { columnLabels, EmptyState, PageHeader } from '../../_components/page-header';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Apps' };

export default async function AppsPage(props: { params: Promise<{ org: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const access = await requireOrgAccess((await props.params).org);
  const deleted = (await props.searchParams).deleted;
  // Only that something was deleted: the query string names nothing the page repeats.
  const apps = await listApps(db(), access.org.slug);
  const base = `/console/${access.org.slug}/apps`;
  return (
    <>
      <PageHeader
        title="Apps"
        description="Each app is its own OpenID Connect client and protected resource: a token for one app is never accepted by another."
        actions={access.can('apps.manage') ? <Link className="btn btn-primary" href={`${base}/new`}>New app</Link> : null}
      />
      {(await props.searchParams).created === 'org' ? (
        <div className="alert alert-success mb-4" role="status" data-testid="org-created">
          {access.org.name} is ready, with you as its owner. Next: create its first app, then invite people from Members.
        </div>
      ) : null}
      {typeof deleted === 'string' ? (
        <div className="alert alert-success mb-4" role="status" data-testid="app-deleted">
          The app was deleted: its clients, grants and tokens are gone. The audit log keeps its history.
        </div>
      ) : null}
      {apps.length === 0 ? (
        <EmptyState title="No apps yet">{access.can('apps.manage') ? 'Create the first one with “New app”.' : 'Admins of this organization can create one.'}</EmptyState>
      ) : (
        <div className="panel overflow-x-auto p-0">
          <table className="table" style={columnLabels(['Name', 'Address', 'Client ID'])}>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Address</th>
                <th scope="col">Client ID</th>
              </tr>
            </thead>
            <tbody>
              {apps.map(({ app, clientId }) => (
                <tr key={app.id}>
                  <td>
                    <Link href={`${base}/${app.id}`}>{app.name}</Link>
                    {app.disabledAt ? (
                      <span className="badge badge-warning" data-testid={`app-off-${app.slug}`}>
                        off
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
        </div>
      )}
    </>
  );
}
