// Every page of one app: where it sits (breadcrumbs), its name, whether it is off, and its sections as tabs.
import Link from 'next/link';
import { notFound } from 'next/navigation';
import type { ReactNode } from 'react';
import { appResource, findOrgApp } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../../_lib/access';
import { AppTabs } from './app-tabs';

export const dynamic = 'force-dynamic';

export default async function AppLayout(props: { children: ReactNode; params: Promise<{ org: string; app: string }> }) {
  const params = await props.params;
  const access = await requireOrgAccess(params.org);
  const listing = await findOrgApp(db(), access.org.id, params.app);
  if (!listing) notFound();
  const { app } = listing;
  const org = access.org.slug;
  const manage = access.can('apps.manage');
  const tabs = [
    { segment: '', label: 'Overview' },
    ...(manage ? [{ segment: 'security', label: 'Security' }] : []),
    { segment: 'permissions', label: 'Permissions' },
    { segment: 'operators', label: 'Operators' },
  ];
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <ol className="flex flex-wrap items-center gap-1 text-slate-600">
          <li>
            <Link href={`/console/${org}/apps`}>Apps</Link>
          </li>
          <li aria-hidden="true">/</li>
          <li>
            <Link href={`/console/${org}/apps/${app.id}`}>{app.name}</Link>
          </li>
        </ol>
      </nav>
      <div className="mb-4 flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h1 className="text-2xl font-semibold text-slate-900">{app.name}</h1>
        {app.disabledAt ? <span className="badge">off</span> : null}
        <p className="w-full text-sm text-slate-600">
          Resource <code>{appResource(app.publishOrigin)}</code>
        </p>
      </div>
      {app.disabledAt ? (
        <div className="alert alert-error mb-6" role="status" data-testid="app-disabled">
          This app is turned off: sign-ins are refused with a page that says so, and its clients get no tokens.
          {manage ? ' Turn it on again on its Overview tab.' : ''}
        </div>
      ) : null}
      <AppTabs base={`/console/${org}/apps/${app.id}`} tabs={tabs} />
      {props.children}
    </>
  );
}
