import type { AuditEvent } from '@/lib/audit/events';
import { visibleText } from '@/lib/util/visible-text';

const time = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' });

/** Audit events as a table, newest first as given. */
export function AuditTable({ events, testId, showSubject = true }: { events: AuditEvent[]; testId: string; showSubject?: boolean }) {
  return (
    <table className="table" data-testid={testId}>
      <thead>
        <tr>
          <th scope="col">When (UTC)</th>
          <th scope="col">Actor</th>
          <th scope="col">Type</th>
          {showSubject ? <th scope="col">Subject</th> : null}
          <th scope="col">From</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <tr key={event.id}>
            <td className="whitespace-nowrap">{time.format(event.occurredAt)}</td>
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
