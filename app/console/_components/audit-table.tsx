import { columnLabels } from './page-header';
import type { AuditEvent } from '@/lib/audit/events';
import { visibleText } from '@/lib/util/visible-text';
import { LocalTimes } from '../../_components/local-times';
import { utcMoment } from '../../_lib/moments';
import { getT, requestLocale } from '@/app/_lib/i18n/server';
import { auditActionName } from '@/lib/audit/actions';
import { Named } from './event-name';

/**
 * Audit events as a table, newest first as given; each opens its detail page (under `detailBase`). A row is plain
 * server-rendered markup — a link, not next/link, and its moment for LocalTimes, not a When — so that a 50-row page
 * costs what its words cost (issue 61: client components per row were half of the page's server CPU).
 */
export async function AuditTable({ events, testId, showSubject = true, detailBase }: { events: AuditEvent[]; testId: string; showSubject?: boolean; detailBase: string }) {
  const [t, when, locale] = await Promise.all([getT('console.auditTable'), getT('when'), requestLocale()]);
  const columns = showSubject ? [t('when'), t('actor'), t('type'), t('subject'), t('from')] : [t('when'), t('actor'), t('type'), t('from')];
  return (
    <LocalTimes>
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
          {events.map((event) => {
            const actionName = auditActionName(locale, event.action);
            const occurredAt = new Date(event.occurredAt);
            const inUtc = when('utc', { time: utcMoment(locale, occurredAt) });
            return (
              <tr key={event.id}>
                <td>
                  {/* Named by the event and then its visible time (WCAG 2.5.3: the visible text is part of the name). */}
                  <span id={`event-${event.id}-label`} hidden>
                    {t('eventLabel', { id: event.id, action: actionName ?? event.action })},
                  </span>
                  <a href={`${detailBase}/${event.id}`} aria-labelledby={`event-${event.id}-label event-${event.id}-time`}>
                    <span id={`event-${event.id}-time`}>
                      <time dateTime={occurredAt.toISOString()} title={inUtc} data-local="" className="whitespace-nowrap">
                        {inUtc}
                      </time>
                    </span>
                  </a>
                </td>
                <td>{visibleText(event.actorLabel ?? event.actorId ?? event.actorType)}</td>
                <td>
                  <Named name={actionName} code={event.action} />
                </td>
                {showSubject ? <td>{visibleText(event.subjectLabel ?? event.subjectId ?? '—')}</td> : null}
                <td className="text-slate-500">{event.ip ?? '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </LocalTimes>
  );
}
