import { columnLabels } from './page-header';
import Link from 'next/link';
import type { AuditEvent } from '@/lib/audit/events';
import { visibleText } from '@/lib/util/visible-text';
import { When } from '../../_components/when';

/** Audit events as a table, newest first as given; each opens its detail page (under `detailBase`). */
export function AuditTable({ events, testId, showSubject = true, detailBase }: { events: AuditEvent[]; testId: string; showSubject?: boolean; detailBase: string }) {
  return (
    <table className="table" data-testid={testId} style={columnLabels(showSubject ? ['When', 'Actor', 'Type', 'Subject', 'From'] : ['When', 'Actor', 'Type', 'From'])}>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Actor</th>
          <th scope="col">Type</th>
          {showSubject ? <th scope="col">Subject</th> : null}
          <th scope="col">From</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <tr key={event.id}>
            <td>
              <Link href={`${detailBase}/${event.id}`} aria-label={`Event ${event.id}: ${event.action}`}>
                <When value={event.occurredAt} relative={false} />
              </Link>
            </td>
            <td>{visibleText(event.actorLabel ?? event.actorId ?? event.actorType)}</td>
            <td>
              <code className="text-xs">{event.action}</code>
            </td>
            {showSubject ? <td>{visibleText(event.subjectLabel ?? event.subjectId ?? '—')}</td> : null}
            <td className="text-slate-500">{event.ip ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
