// Every page of one app: where it sits (breadcrumbs), its name, whether it is off, and its sections as tabs.
import Link from 'next/link';
import { notFound } from 'next/navigation';
import type { ReactNode } from 'react';
import { appResource, findOrgApp } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../../_lib/access';
import { AppTabs } from './app-tabs';
import { getT } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';

export default async function AppLayout(props: { children: ReactNode; params: Promise<{ org: string; app: string }> }) {
  const params = await props.params;
  const access = await requireOrgAccess(params.org);
  const listing = await findOrgApp(db(), access.org.id, params.app);
  if (!listing) notFound();
  const { app } = listing;
  const org = access.org.slug;
  const manage = access.can('apps.manage');
  const t = await getT('console.app');
  const tabs = [
    { segment: '', label: t('tabs.overview') },
    ...(manage ? [{ segment: 'security', label: t('tabs.security') }] : []),
    { segment: 'permissions', label: t('tabs.permissions') },
    { segment: 'operators', label: t('tabs.operators') },
  ];
  return (
    <>
      <nav aria-label={t('breadcrumb')} className="mb-2 text-sm">
        <ol className="flex flex-wrap items-center gap-1 text-slate-600">
          <li>
            <Link href={`/console/${org}/apps`}>{t('apps')}</Link>
          </li>
          <li aria-hidden="true">/</li>
          <li>
            <Link href={`/console/${org}/apps/${app.id}`}>{app.name}</Link>
          </li>
        </ol>
      </nav>
      <div className="mb-4 flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h1 className="text-2xl font-semibold text-slate-900">{app.name}</h1>
        {app.disabledAt ? <span className="badge">{t('off')}</span> : null}
        <p className="w-full text-sm text-slate-600">
          {t.rich('resource', { resource: appResource(app.publishOrigin), code: (chunks) => <code>{chunks}</code> })}
        </p>
      </div>
      {app.disabledAt ? (
        <div className="alert alert-error mb-6" role="status" data-testid="app-disabled">
          {manage ? t('disabledManage') : t('disabled')}
        </div>
      ) : null}
      <AppTabs base={`/console/${org}/apps/${app.id}`} tabs={tabs} label={t('sections')} />
      {props.children}
    </>
  );
}
