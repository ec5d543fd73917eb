'use client';
// What is asked, by whom, for how long: the same lines in the list and on a request's own page.
import { createContext, useContext, useState, type ReactNode } from 'react';
import { useTranslations } from 'use-intl/react';
import type { CentralRequestView } from '@/lib/approvals/central';
import { visibleText } from '@/lib/util/visible-text';
import { Countdown, When } from '../../_components/when';

type Profile = NonNullable<CentralRequestView['profile']>;
const PROFILES: readonly string[] = ['read', 'work', 'compose'] satisfies Profile[];

/**
 * The words of a request's access and duration, in the page's language: "read access to /ledgers/2026", "for 2
 * hours". A profile is named in words; one this catalog does not know is shown as it is.
 */
export function useRequestLabels() {
  const t = useTranslations('central.request');
  const profile = (value: string | null): string => (value && PROFILES.includes(value) ? t(`profiles.${value as Profile}`) : (value ?? ''));
  return {
    profile,
    access: (view: Pick<CentralRequestView, 'kind' | 'profile' | 'resource'>): string =>
      view.kind === 'root_access' ? t('accessRoot') : t('accessTo', { profile: profile(view.profile), resource: visibleText(view.resource) }),
    duration: (seconds: number | null): string => {
      if (seconds === null) return t('permanently');
      if (seconds % 3600 === 0) return t('forHours', { hours: seconds / 3600 });
      return t('forMinutes', { minutes: Math.round(seconds / 60) });
    },
  };
}

/**
 * The request on screen, as the server last read it: the page renders it, and a decision replaces it with the view the
 * decision's answer carries, so the count of approvals, the state and the countdown have one source (issue 56, item 6).
 */
const RequestView = createContext<{ view: CentralRequestView; setView: (view: CentralRequestView) => void } | null>(null);

export function RequestViewProvider({ initial, children }: { initial: CentralRequestView; children: ReactNode }) {
  const [view, setView] = useState(initial);
  return <RequestView.Provider value={{ view, setView }}>{children}</RequestView.Provider>;
}

/** The summary of the request in the RequestViewProvider around it. */
export function LiveRequestSummary() {
  const context = useContext(RequestView);
  if (!context) throw new Error('LiveRequestSummary needs a RequestViewProvider around it');
  return <RequestSummary view={context.view} />;
}

/** Replaces the request on screen (undefined outside a RequestViewProvider). */
export function useSetRequestView(): ((view: CentralRequestView) => void) | undefined {
  return useContext(RequestView)?.setView;
}

export function RequestSummary({ view }: { view: CentralRequestView }) {
  const t = useTranslations('central.request');
  const labels = useRequestLabels();
  return (
    // One column on a phone, label beside value from sm up; minmax(0, 1fr) lets a value column narrower than a long
    // client ID or request ID, which then breaks anywhere instead of pushing the card past the screen.
    <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[9rem_minmax(0,1fr)] [&_dd]:min-w-0 [&_dd]:break-words [&_dt]:mt-1 sm:[&_dt]:mt-0" data-testid="request-summary">
      <dt className="text-slate-500">{t('askedBy')}</dt>
      <dd>
        {visibleText(view.askedBy)}
        {view.actor ? <span className="badge">{t('throughAgent', { agent: visibleText(view.actor) })}</span> : null}
      </dd>
      <dt className="text-slate-500">{t('client')}</dt>
      <dd data-testid="request-client">
        {view.clientName ? <>{visibleText(view.clientName)} </> : null}
        <code className="break-all text-xs">{visibleText(view.clientId)}</code>
      </dd>
      <dt className="text-slate-500">{t('app')}</dt>
      <dd>{visibleText(view.app)}</dd>
      <dt className="text-slate-500">{t('access')}</dt>
      <dd data-testid="request-access">
        <strong>{labels.access(view)}</strong> {labels.duration(view.durationSeconds)}
      </dd>
      <dt className="text-slate-500">{t('reason')}</dt>
      <dd data-testid="request-reason">{visibleText(view.reason)}</dd>
      <dt className="text-slate-500">{t('asked')}</dt>
      <dd data-testid="request-asked">
        <When value={view.createdAt} />
      </dd>
      {view.state === 'pending' ? (
        <>
          <dt className="text-slate-500">{t('decideWithin')}</dt>
          <dd data-testid="request-expiry">
            <Countdown until={view.expiresAt} expiredText={t('expired')} />
          </dd>
        </>
      ) : null}
      {view.quorum > 1 || view.votes.length > 0 ? (
        <>
          <dt className="text-slate-500">{t('decisions')}</dt>
          <dd data-testid="request-votes">
            {t('approvalsOf', { approvals: view.votes.filter((vote) => vote.decision === 'approve').length, quorum: view.quorum })}
            {view.votes.length > 0 ? (
              <ul className="mt-1 grid gap-0.5">
                {view.votes.map((vote) => (
                  <li key={vote.email}>
                    {t('vote', { decision: vote.decision, email: visibleText(vote.email) })} <When value={vote.decidedAt} />
                  </li>
                ))}
              </ul>
            ) : null}
          </dd>
        </>
      ) : null}
      {view.policy ? (
        <>
          <dt className="text-slate-500">{t('policy')}</dt>
          <dd data-testid="request-policy">
            <PolicySentence view={view} />
          </dd>
        </>
      ) : null}
      <dt className="text-slate-500">{t('request')}</dt>
      <dd>
        <code className="break-all">{view.id}</code>
      </dd>
    </dl>
  );
}

/** Why the request is decided the way it is: the policy that governs it, in words ("why does this need two people"). */
function PolicySentence({ view }: { view: CentralRequestView }) {
  const t = useTranslations('central.request.policyText');
  const policy = view.policy!;
  return (
    <>
      {t('scope', { scope: policy.scope, kind: view.policyKind })} {t('deciders', { deciders: policy.deciders, team: visibleText(policy.teamName ?? '') })}
      {view.quorum > 1 ? <> {t('quorum', { quorum: view.quorum })}</> : null}
      {view.quorum > 1 && !view.anyDenyEnds ? <> {t('denialWaits')}</> : null}
      {policy.maxGrantSeconds ? (
        <> {policy.maxGrantSeconds % 3600 === 0 ? t('maxGrantHours', { hours: policy.maxGrantSeconds / 3600 }) : t('maxGrantMinutes', { minutes: Math.round(policy.maxGrantSeconds / 60) })}</>
      ) : null}
      {policy.escalatedAt ? (
        <>
          {' '}
          {t('escalated')} <When value={policy.escalatedAt} />
        </>
      ) : policy.escalateAt && view.state === 'pending' ? (
        <>
          {' '}
          {t('escalates')} <When value={policy.escalateAt} />
        </>
      ) : null}
    </>
  );
}
