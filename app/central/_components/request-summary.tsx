// What is asked, by whom, for how long: the same lines in the list and on a request's own page.
import type { CentralRequestView } from '@/lib/approvals/central';
import { visibleText } from '@/lib/util/visible-text';
import { Countdown, When } from '../../_components/when';

export function accessLabel(view: Pick<CentralRequestView, 'kind' | 'profile' | 'resource'>): string {
  return view.kind === 'root_access' ? 'elevated (root) access' : `${view.profile} access to ${visibleText(view.resource)}`;
}

export function durationLabel(seconds: number | null): string {
  if (seconds === null) return 'permanently';
  if (seconds % 3600 === 0) return `for ${seconds / 3600} hour${seconds === 3600 ? '' : 's'}`;
  return `for ${Math.round(seconds / 60)} minutes`;
}

export function RequestSummary({ view }: { view: CentralRequestView }) {
  return (
    <dl className="grid grid-cols-[9rem_1fr] gap-x-4 gap-y-1 text-sm" data-testid="request-summary">
      <dt className="text-slate-500">Asked by</dt>
      <dd>
        {visibleText(view.askedBy)}
        {view.actor ? <span className="badge">through agent {visibleText(view.actor)}</span> : null}
      </dd>
      <dt className="text-slate-500">Client</dt>
      <dd data-testid="request-client">
        {view.clientName ? <>{visibleText(view.clientName)} </> : null}
        <code className="text-xs">{visibleText(view.clientId)}</code>
      </dd>
      <dt className="text-slate-500">App</dt>
      <dd>{visibleText(view.app)}</dd>
      <dt className="text-slate-500">Access</dt>
      <dd data-testid="request-access">
        <strong>{accessLabel(view)}</strong> {durationLabel(view.durationSeconds)}
      </dd>
      <dt className="text-slate-500">Reason</dt>
      <dd data-testid="request-reason">{visibleText(view.reason)}</dd>
      <dt className="text-slate-500">Asked</dt>
      <dd data-testid="request-asked">
        <When value={view.createdAt} />
      </dd>
      {view.state === 'pending' ? (
        <>
          <dt className="text-slate-500">Decide within</dt>
          <dd data-testid="request-expiry">
            <Countdown until={view.expiresAt} expiredText="expired: the agent must ask again" />
          </dd>
        </>
      ) : null}
      <dt className="text-slate-500">Request</dt>
      <dd>
        <code>{view.id}</code>
      </dd>
    </dl>
  );
}
