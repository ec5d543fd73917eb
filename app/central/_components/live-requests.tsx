'use client';
// The pending requests, refreshed every 3 seconds without a reload. An answer older than the newest one shown is
// dropped, and once the session has ended the list is cleared rather than restored.
import { useEffect, useRef, useState } from 'react';
import { useTranslations } from 'use-intl/react';
import { centralRequestUrl } from '@/lib/approvals/central-urls';
import type { CentralRequestView } from '@/lib/approvals/central';
import { visibleText } from '@/lib/util/visible-text';
import { useRequestLabels } from './request-summary';

export function LiveRequests({ initial }: { initial: CentralRequestView[] }) {
  const t = useTranslations('central.live');
  const labels = useRequestLabels();
  const [requests, setRequests] = useState(initial);
  const [ended, setEnded] = useState(false);
  const sequence = useRef(0);
  const shown = useRef(0);
  useEffect(() => {
    if (ended) return;
    const timer = setInterval(async () => {
      const mine = ++sequence.current;
      try {
        const response = await fetch('/central/api/requests', { cache: 'no-store' });
        if (mine < shown.current) return;
        if (response.status === 401) {
          shown.current = mine;
          setRequests([]);
          setEnded(true);
          return;
        }
        if (!response.ok) return;
        const body = (await response.json()) as { requests: CentralRequestView[] };
        if (mine < shown.current) return;
        shown.current = mine;
        setRequests(body.requests);
      } catch {
        // Offline for a moment: the next tick tries again.
      }
    }, 3000);
    return () => clearInterval(timer);
  }, [ended]);

  if (ended) {
    return (
      <p className="alert alert-error" role="alert" data-testid="central-session-ended">
        {t.rich('sessionEnded', { link: (chunks) => <a href="/central">{chunks}</a> })}
      </p>
    );
  }
  if (requests.length === 0)
    return (
      <p className="text-sm text-slate-600" data-testid="no-requests">
        {t('noRequests')}
      </p>
    );
  return (
    <ul className="grid gap-2" data-testid="pending-requests">
      {requests.map((request) => (
        <li key={request.id} className="rounded-md border border-slate-200 p-3" data-request-id={request.id}>
          <a href={centralRequestUrl(request.id)} className="font-semibold">
            {t('asks', { askedBy: request.askedBy, access: labels.access(request), duration: labels.duration(request.durationSeconds) })}
          </a>
          <div className="text-xs text-slate-500">
            {visibleText(request.app)} · {visibleText(request.reason)}
          </div>
        </li>
      ))}
    </ul>
  );
}
