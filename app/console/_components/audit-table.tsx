import { columnLabels } from './page-header';
import Link from 'next/link';
import type { AuditEvent } from '@/lib/audit/events';
import { visibleText } from '@/lib/util/visible-text';
import { When } from '../../_components/when';
import { getT, requestLocale } from '@/app/_lib/i18n/server';
import { auditActionName } from '@/lib/audit/actions';
import { AuditActionName } from './event-name';

/** Audit events as a table, newest first as given; each opens its detail page (under `detailBase`). */
export async function AuditTable({ events, testId, showSubject = true, detailBase }: { events: AuditEvent[]; testId: string; showSubject?: boolean; detailBase: string }) {
  const t = await getT('console.auditTable');
  const locale = await requestLocale();
  const columns = showSubject ? [t('when'), t('actor'), t('type'), t('subject'), t('from')] : [t('when'), t('actor'), t('type'), t('from')];
  return (
    <table className="table" data-testid={testId} style={columnLabels(columns)}>
      <thead>
        <tr>
          <th scope="col">{t('when')}</th>
          <th scope="col">{t('actor')}</th>
          <th scope="col">{t('type')}</th>
          {showSubject ? <th scope="col">{t('subject')}</th> : null}
          <th scope="col">{t('from')}</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <tr key={event.id}>
            <td>
              {/* Named by the event and then its visible time (WCAG 2.5.3: the visible text is part of the name). */}
              <span id={`event-${event.id}-label`} hidden>
                {t('eventLabel', { id: event.id, action: auditActionName(locale, event.action) ?? event.action })},
              </span>
              <Link href={`${detailBase}/${event.id}`} aria-labelledby={`event-${event.id}-label event-${event.id}-time`}>
                <span id={`event-${event.id}-time`}>
                  <When value={event.occurredAt} relative={false} />
                </span>
              </Link>
            </td>
            <td>{visibleText(event.actorLabel ?? event.actorId ?? event.actorType)}</td>
            <td>
              <AuditActionName action={event.action} />
            </td>
            {showSubject ? <td>{visibleText(event.subjectLabel ?? event.subjectId ?? '—')}</td> : null}
            <td className="text-slate-500">{event.ip ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
