import type { Metadata } from 'next';
import Link from 'next/link';
import { listAuditActions, searchAuditEvents } from '@/lib/audit/events';
import { listApps } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { AuditTable } from '../../_components/audit-table';
import { EmptyState, PageHeader } from '../../_components/page-header';
import { auditFilterFrom } from './filter';
import { getT, requestLocale } from '@/app/_lib/i18n/server';
import { auditActionName, auditFamilyName } from '@/lib/audit/actions';
import { ScrollPanel } from '@/app/console/_components/scroll-panel';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.audit'))('pageTitle') };
}

const PAGE_SIZE = 50;

export default async function AuditPage(props: { params: Promise<{ org: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const access = await requireOrgAccess((await props.params).org);
  const t = await getT('console.audit');
  const locale = await requestLocale();
  if (!access.can('audit.read')) return <PageHeader title={t('title')} description={t('notAllowed')} />;
  const query = await props.searchParams;
  const { filter, values } = auditFilterFrom(query);
  const before = typeof query.before === 'string' && /^\d+$/.test(query.before) ? Number(query.before) : undefined;
  const [{ events, nextBefore }, apps, actions] = await Promise.all([
    searchAuditEvents(db(), access.org.id, filter, { before, limit: PAGE_SIZE }),
    listApps(db(), access.org.slug),
    listAuditActions(db(), access.org.id),
  ]);
  const base = `/console/${access.org.slug}/audit`;
  const filterQuery = new URLSearchParams(Object.entries(values).filter(([, v]) => v !== '')).toString();
  return (
    <>
      <PageHeader
        title={t('title')}
        description={access.org.auditRetentionDays ? `${t('description')} ${t('retention', { days: access.org.auditRetentionDays })}` : t('description')}
        actions={
          <div className="flex gap-2">
            <a className="btn btn-secondary" href={`${base}/export?format=csv&${filterQuery}`}>
              {t('exportCsv')}
            </a>
            <a className="btn btn-secondary" href={`${base}/export?format=json&${filterQuery}`}>
              {t('exportJson')}
            </a>
          </div>
        }
      />
      <form method="get" className="panel mb-4 grid grid-cols-1 gap-3 md:grid-cols-6" aria-label={t('filter.label')}>
        <label className="grid gap-1 text-sm">
          {t('filter.actor')}
          <input className="input" name="actor" defaultValue={values.actor} placeholder={t('filter.actorPlaceholder')} />
        </label>
        <label className="grid gap-1 text-sm">
          {t('filter.subject')}
          <input className="input" name="subject" defaultValue={values.subject} placeholder={t('filter.subjectPlaceholder')} />
        </label>
        <label className="grid gap-1 text-sm">
          {t('filter.app')}
          <select className="input" name="app" defaultValue={values.app}>
            <option value="">{t('filter.any')}</option>
            {apps.map((row) => (
              <option key={row.app.id} value={row.app.id}>
                {row.app.name}
              </option>
            ))}
          </select>
        </label>
        <label className="grid gap-1 text-sm">
          {t('filter.type')}
          <select className="input" name="action" defaultValue={values.action}>
            <option value="">{t('filter.any')}</option>
            {[...new Set(actions.map((action) => `${action.split('.')[0]}.`))].map((family) => {
              const familyName = auditFamilyName(locale, family.slice(0, -1)) ?? `${family}*`;
              return (
                <optgroup key={family} label={familyName}>
                  <option value={family}>{t('filter.family', { family: familyName })}</option>
                  {actions
                    .filter((action) => action.startsWith(family))
                    .map((action) => {
                      const name = auditActionName(locale, action);
                      return (
                        <option key={action} value={action}>
                          {name ? `${name} · ${action}` : action}
                        </option>
                      );
                    })}
                </optgroup>
              );
            })}
          </select>
        </label>
        <label className="grid gap-1 text-sm">
          {t('filter.from')}
          <input className="input" type="date" name="from" defaultValue={values.from} />
        </label>
        <label className="grid gap-1 text-sm">
          {t('filter.to')}
          <input className="input" type="date" name="to" defaultValue={values.to} />
        </label>
        <div className="md:col-span-6">
          <button className="btn btn-primary" type="submit">
            {t('filter.submit')}
          </button>{' '}
          <Link className="btn btn-secondary" href={base}>
            {t('filter.clear')}
          </Link>
        </div>
      </form>
      {events.length === 0 ? (
        <EmptyState title={t('empty.title')}>
          {t('empty.body')}
          {filter.actor || filter.subject ? <> {t('empty.whole')}</> : null}
        </EmptyState>
      ) : (
        <ScrollPanel className="p-0">
          <AuditTable events={events} testId="audit-events" detailBase={base} />
        </ScrollPanel>
      )}
      {nextBefore ? (
        <p className="mt-4">
          <Link className="btn btn-secondary" href={`${base}?${filterQuery}${filterQuery ? '&' : ''}before=${nextBefore}`}>
            {t('older')}
          </Link>
        </p>
      ) : null}
    </>
  );
}
