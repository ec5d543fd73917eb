// One audit event, whole: who, what, when, from where, its details as recorded, and its place in the tamper-evident
// chain (sequence, previous hash, hash). Only an event of this organization's log is shown.
import { AuditActionName } from '../../../_components/event-name';
import { auditActorTypeName, auditSubjectTypeName } from '@/lib/audit/actions';
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { findAuditEvent } from '@/lib/audit/events';
import { db } from '@/lib/runtime';
import { visibleText } from '@/lib/util/visible-text';
import { When } from '../../../../_components/when';
import { requireOrgAccess } from '../../../_lib/access';
import { PageHeader } from '../../../_components/page-header';
import { getT, requestLocale } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.auditEvent'))('pageTitle') };
}

export default async function AuditEventPage(props: { params: Promise<{ org: string; id: string }> }) {
  const params = await props.params;
  const access = await requireOrgAccess(params.org);
  if (!access.can('audit.read')) notFound();
  const event = /^\d{1,15}$/.test(params.id) ? await findAuditEvent(db(), access.org.id, Number(params.id)) : undefined;
  if (!event) notFound();
  const t = await getT('console.auditEvent');
  const locale = await requestLocale();
  const rows: [string, React.ReactNode][] = [
    [t('when'), <When key="when" value={event.occurredAt} />],
    [t('type'), <AuditActionName key="type" action={event.action} />],
    [t('actor'), `${visibleText(event.actorLabel ?? event.actorId ?? '—')} (${auditActorTypeName(locale, event.actorType)}${event.actorId ? `, ${visibleText(event.actorId)}` : ''})`],
    [t('from'), event.ip ?? '—'],
    [t('subject'), event.subjectType ? `${visibleText(event.subjectLabel ?? event.subjectId ?? '—')} (${auditSubjectTypeName(locale, event.subjectType)}${event.subjectId ? `, ${visibleText(event.subjectId)}` : ''})` : '—'],
    [t('app'), event.appId ?? '—'],
    [t('client'), event.clientId ? visibleText(event.clientId) : '—'],
    [t('actingAgent'), event.act ? visibleText(event.act) : '—'],
    [t('chain'), t('chainPosition', { seq: event.chainSeq, org: access.org.slug })],
    [t('previousHash'), <code key="prev" className="break-all text-xs">{event.prevHash || t('firstEvent')}</code>],
    [t('hash'), <code key="hash" className="break-all text-xs">{event.hash}</code>],
  ];
  return (
    <>
      <PageHeader title={t('title', { id: event.id })} description={t('description')} />
      <section className="panel" data-testid="audit-event">
        <dl className="grid grid-cols-1 gap-x-4 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]">
          {rows.map(([label, value]) => (
            <div key={label} className="contents">
              <dt className="text-slate-500">{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
        <h2 className="mb-2 mt-6 font-semibold">{t('details')}</h2>
        <pre className="overflow-x-auto rounded-md bg-slate-100 p-3 text-xs" data-testid="audit-event-details" tabIndex={0} aria-label={t('detailsLabel')}>
          {visibleText(JSON.stringify(event.details, null, 2))}
        </pre>
      </section>
      <p className="mt-6 text-sm">
        <Link href={`/console/${access.org.slug}/audit`}>{t('back')}</Link>
      </p>
    </>
  );
}
