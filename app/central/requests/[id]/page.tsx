// /central/requests/<apr_…> – one request, opened by its id (no listing needed): what is asked, by whom, for how
// long, and the decision. Only an operator of the request's organization sees it.
import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { stepUpFactorOf } from '@/lib/accounts/factors/step-up';
import { findCentralRequest, stepUpCoveredUntil } from '@/lib/approvals/central';
import { centralRequestUrl, isApprovalRequestId } from '@/lib/approvals/central-urls';
import { db } from '@/lib/runtime';
import { currentCentralSession } from '../../_lib/central';
import { CentralFrame } from '../../_components/central-frame';
import { DecisionPanel } from '../../_components/decision-panel';
import { LiveRequestSummary, RequestViewProvider } from '../../_components/request-summary';
import { RevokePanel } from '../../_components/revoke-panel';
import { CliCommand } from '../../../_components/cli-command';
import { getT } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('central.requestPage'))('pageTitle') };
}

export default async function CentralRequestPage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
  const session = await currentCentralSession();
  if (!session) redirect(isApprovalRequestId(id) ? `/central?next=${encodeURIComponent(centralRequestUrl(id))}` : '/central');
  const view = await findCentralRequest(db(), session.user, id);
  const t = await getT('central.requestPage');
  if (!view) {
    return (
      <CentralFrame email={session.user.email}>
        <p className="alert alert-error" role="alert" data-testid="request-not-found">
          {t.rich('notFound', { id, code: (chunks) => <code>{chunks}</code> })}
        </p>
      </CentralFrame>
    );
  }
  const mine = view.votes.find((vote) => vote.email === session.user.email);
  const decidable = view.state === 'pending' && !view.expired && view.centralEligible && !mine;
  const approvals = view.votes.filter((vote) => vote.decision === 'approve').length;
  return (
    <CentralFrame email={session.user.email}>
      <section className="panel" aria-labelledby="request-heading" data-testid="central-request" data-request-id={view.id}>
        <h1 id="request-heading" className="mb-4 text-xl font-semibold">
          {t('title')}
        </h1>
        <RequestViewProvider initial={view}>
        <LiveRequestSummary />
        <div className="mt-5">
          {view.state === 'pending' && !view.expired && mine ? (
            <p className="text-sm" data-testid="request-state">
              {t('youDecided', { decision: mine.decision, missing: Math.max(view.quorum - approvals, 0) })}
            </p>
          ) : decidable ? (
            <DecisionPanel
              requestId={view.id}
              fingerprint={view.fingerprint}
              stepUp={view.stepUp}
              stepUpFactor={await stepUpFactorOf(db(), session.user.id)}
              stepUpCoveredUntil={view.stepUp ? (await stepUpCoveredUntil(db(), session))?.toISOString() : undefined}
              profile={view.profile ?? view.policyKind}
            />
          ) : view.activeGrantId ? (
            <RevokePanel grantId={view.activeGrantId} />
          ) : (
            <p className="text-sm" data-testid="request-state">
              {!view.centralEligible && view.state === 'pending' && !view.expired ? (
                <>
                  {t('cliPending')}
                  <CliCommand command={`npm run portico -- approvals approve ${view.id}`} />
                  {t.rich('cliOrDeny', { id: view.id, code: (chunks) => <code>{chunks}</code> })}
                </>
              ) : !view.centralEligible
                ? t('cliOnly')
                : view.state === 'pending'
                  ? t('expired')
                  : view.state === 'approved' && view.grantState && view.grantState !== 'active'
                    ? view.grantState === 'revoked'
                      ? t('grantRevoked')
                      : t('grantExpired')
                    : t('state', { state: view.state })}
            </p>
          )}
        </div>
        </RequestViewProvider>
      </section>
    </CentralFrame>
  );
}
