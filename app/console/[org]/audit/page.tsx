import type { Metadata } from 'next';
import Link from 'next/link';
import { listAuditActions, searchAuditEvents } from '@/lib/audit/events';
import { listApps } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { AuditTable } from '../../_components/audit-table';
import { EmptyState, PageHeader } from '../../_components/page-header';
import { auditFilterFrom } from './filter';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Audit log' };

const PAGE_SIZE = 50;

export default async function AuditPage(props: { params: Promise<{ org: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const access = await requireOrgAccess((await props.params).org);
  if (!access.can('audit.read')) return <PageHeader title="Audit log" description="Only the organization’s owners and admins read the audit log." />;
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
        title="Audit log"
        description="Every change, who made it and from where. Newest first."
        actions={
          <div className="flex gap-2">
            <a className="btn btn-secondary" href={`${base}/export?format=csv&${filterQuery}`}>
              Export CSV
            </a>
            <a className="btn btn-secondary" href={`${base}/export?format=json&${filterQuery}`}>
              Export JSON
            </a>
          </div>
        }
      />
      <form method="get" className="panel mb-4 grid grid-cols-1 gap-3 md:grid-cols-6" aria-label="Filter the audit log">
        <label className="grid gap-1 text-sm">
          Actor
          <input className="input" name="actor" defaultValue={values.actor} placeholder="email or id" />
        </label>
        <label className="grid gap-1 text-sm">
          Subject
          <input className="input" name="subject" defaultValue={values.subject} placeholder="name or id" />
        </label>
        <label className="grid gap-1 text-sm">
          App
          <select className="input" name="app" defaultValue={values.app}>
            <option value="">Any</option>
            {apps.map((row) => (
              <option key={row.app.id} value={row.app.id}>
                {row.app.name}
              </option>
            ))}
          </select>
        </label>
        <label className="grid gap-1 text-sm">
          Type
          <select className="input" name="action" defaultValue={values.action}>
            <option value="">Any</option>
            {[...new Set(actions.map((action) => `${action.split('.')[0]}.`))].map((family) => (
              <optgroup key={family} label={`${family}*`}>
                <option value={family}>every {family}* event</option>
                {actions
                  .filter((action) => action.startsWith(family))
                  .map((action) => (
                    <option key={action} value={action}>
                      {action}
                    </option>
                  ))}
              </optgroup>
            ))}
          </select>
        </label>
        <label className="grid gap-1 text-sm">
          From
          <input className="input" type="date" name="from" defaultValue={values.from} />
        </label>
        <label className="grid gap-1 text-sm">
          To
          <input className="input" type="date" name="to" defaultValue={values.to} />
        </label>
        <div className="md:col-span-6">
          <button className="btn btn-primary" type="submit">
            Filter
          </button>{' '}
          <Link className="btn btn-secondary" href={base}>
            Clear
          </Link>
        </div>
      </form>
      {events.length === 0 ? (
        <EmptyState title="No events match">Change the filters, or make a change: it appears here.</EmptyState>
      ) : (
        <div className="panel overflow-x-auto p-0">
          <AuditTable events={events} testId="audit-events" detailBase={base} />
        </div>
      )}
      {nextBefore ? (
        <p className="mt-4">
          <Link className="btn btn-secondary" href={`${base}?${filterQuery}${filterQuery ? '&' : ''}before=${nextBefore}`}>
            Older events
          </Link>
        </p>
      ) : null}
    </>
  );
}
