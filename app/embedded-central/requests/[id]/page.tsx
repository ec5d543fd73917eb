// /embedded-central/requests/<apr_…> – one request, decided inside an MCP host's view. Only the origins listed in
// PORTICO_OPERATOR_FRAME_ANCESTORS may frame it (proxy.ts); its session is its own (cookie portico_central_embedded,
// Path=/embedded-central) and bound like the external central's. Same authority, step-up and nonces.
import type { Metadata } from 'next';
import { findCentralRequest } from '@/lib/approvals/central';
import { isApprovalRequestId } from '@/lib/approvals/central-urls';
import { db } from '@/lib/runtime';
import { currentCentralSession, EMBEDDED_CENTRAL } from '../../../central/_lib/central';
import { RequestSummary } from '../../../central/_components/request-summary';
import { EmbeddedDecision, EmbeddedSignIn, EmbeddedSignOut, FrameReady } from '../../_components/embedded';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Access request' };

export default async function EmbeddedRequestPage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
  const requestId = isApprovalRequestId(id) ? id : '';
  const session = await currentCentralSession(EMBEDDED_CENTRAL);
  const view = session && requestId ? await findCentralRequest(db(), session.user, requestId) : undefined;
  const decidable = view && view.state === 'pending' && !view.expired && view.centralEligible;
  return (
    <main className="p-4" data-testid="embedded-central">
      <FrameReady requestId={requestId} signedIn={session !== undefined} />
      <header className="mb-3 flex items-center justify-between gap-3">
        <h1 className="font-semibold">Portico · Access request</h1>
        {session ? (
          <span className="flex items-center gap-2 text-sm">
            <span data-testid="central-operator">{session.user.email}</span>
            <EmbeddedSignOut requestId={requestId} />
          </span>
        ) : null}
      </header>
      {!requestId ? (
        <p className="alert alert-error" role="alert">
          This is not a request id.
        </p>
      ) : !session ? (
        <EmbeddedSignIn requestId={requestId} />
      ) : !view ? (
        <p className="alert alert-error" role="alert" data-testid="request-not-found">
          There is no request <code>{requestId}</code> that you may decide.
        </p>
      ) : (
        <section data-testid="central-request" data-request-id={view.id}>
          <RequestSummary view={view} />
          <div className="mt-4">
            {decidable ? (
              <EmbeddedDecision requestId={view.id} fingerprint={view.fingerprint} stepUp={view.stepUp} profile={view.profile} />
            ) : (
              <p className="text-sm" data-testid="request-state">
                {!view.centralEligible ? 'This request is decided with the operator CLI only.' : view.state === 'pending' ? 'This request has expired: the agent must ask again.' : `This request is ${view.state}.`}
              </p>
            )}
          </div>
        </section>
      )}
    </main>
  );
}
