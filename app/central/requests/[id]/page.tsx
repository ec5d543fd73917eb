// /central/requests/<apr_…> – one request, opened by its id (no listing needed): what is asked, by whom, for how
// long, and the decision. Only an operator of the request's organization sees it.
import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { stepUpFactorOf } from '@/lib/accounts/step-up';
import { findCentralRequest } from '@/lib/approvals/central';
import { centralRequestUrl, isApprovalRequestId } from '@/lib/approvals/central-urls';
import { db } from '@/lib/runtime';
import { currentCentralSession } from '../../_lib/central';
import { CentralFrame } from '../../_components/central-frame';
import { DecisionPanel } from '../../_components/decision-panel';
import { RequestSummary } from '../../_components/request-summary';
import { RevokePanel } from '../../_components/revoke-panel';
import { CliCommand } from '../../../_components/cli-command';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Access request' };

export default async function CentralRequestPage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
  const session = await currentCentralSession();
  if (!session) redirect(isApprovalRequestId(id) ? `/central?next=${encodeURIComponent(centralRequestUrl(id))}` : '/central');
  const view = await findCentralRequest(db(), session.user, id);
  if (!view) {
    return (
      <CentralFrame email={session.user.email}>
        <p className="alert alert-error" role="alert" data-testid="request-not-found">
          There is no request <code>{id}</code> that you may decide.
        </p>
      </CentralFrame>
    );
  }
  const decidable = view.state === 'pending' && !view.expired && view.centralEligible;
  return (
    <CentralFrame email={session.user.email}>
      <section className="panel" aria-labelledby="request-heading" data-testid="central-request" data-request-id={view.id}>
        <h1 id="request-heading" className="mb-4 text-xl font-semibold">
          Access request
        </h1>
        <RequestSummary view={view} />
        <div className="mt-5">
          {decidable ? (
            <DecisionPanel requestId={view.id} fingerprint={view.fingerprint} stepUp={view.stepUp} stepUpFactor={await stepUpFactorOf(db(), session.user.id)} profile={view.profile} />
          ) : view.activeGrantId ? (
            <RevokePanel grantId={view.activeGrantId} />
          ) : (
            <p className="text-sm" data-testid="request-state">
              {!view.centralEligible && view.state === 'pending' && !view.expired ? (
                <>
                  This request is permanent, broad or elevated: an operator decides it on the Portico host, with the CLI:
                  <CliCommand command={`npm run portico -- approvals approve ${view.id}`} />
                  (or <code>approvals deny {view.id}</code>).
                </>
              ) : !view.centralEligible
                ? 'This request is permanent, broad or elevated: it is decided with the operator CLI only.'
                : view.state === 'pending'
                  ? 'This request has expired: the agent must ask again.'
                  : view.state === 'approved' && view.grantState && view.grantState !== 'active'
                    ? `This request was approved; its grant ${view.grantState === 'revoked' ? 'has been revoked' : 'has expired'}.`
                    : `This request is ${view.state}.`}
            </p>
          )}
        </div>
      </section>
    </CentralFrame>
  );
}
