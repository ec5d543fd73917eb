// /embedded-central/requests/<apr_…> – one request, decided inside an MCP host's view. Only the origins listed in
// PORTICO_OPERATOR_FRAME_ANCESTORS may frame it (proxy.ts); its session is its own (cookie portico_central_embedded,
// Path=/embedded-central) and bound like the external central's. Same authority, step-up and nonces.
import type { Metadata } from 'next';
import { findCentralRequest } from '@/lib/approvals/central';
import { isApprovalRequestId } from '@/lib/approvals/central-urls';
import { db } from '@/lib/runtime';
import { currentCentralSession, EMBEDDED_CENTRAL } from '../../../central/_lib/central';
import { LiveRequestSummary, RequestViewProvider } from '../../../central/_components/request-summary';
import { EmbeddedDecision, EmbeddedSignIn, EmbeddedSignOut, FrameReady } from '../../_components/embedded';
import { getT } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('embeddedCentral.page'))('pageTitle') };
}

export default async function EmbeddedRequestPage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
  const requestId = isApprovalRequestId(id) ? id : '';
  const session = await currentCentralSession(EMBEDDED_CENTRAL);
  const view = session && requestId ? await findCentralRequest(db(), session.user, requestId) : undefined;
  const mine = view ? view.votes.find((vote) => vote.email === session?.user.email) : undefined;
  const decidable = !mine && view && view.state === 'pending' && !view.expired && view.centralEligible;
  const t = await getT('embeddedCentral.page');
  return (
    <main className="p-4" data-testid="embedded-central">
      <FrameReady requestId={requestId} signedIn={session !== undefined} />
      <header className="mb-3 flex items-center justify-between gap-3">
        <h1 className="font-semibold">{t('heading')}</h1>
        {session ? (
          <span className="flex items-center gap-2 text-sm">
            <span data-testid="central-operator">{session.user.email}</span>
            <EmbeddedSignOut requestId={requestId} />
          </span>
        ) : null}
      </header>
      {!requestId ? (
        <p className="alert alert-error" role="alert">
          {t('notAnId')}
        </p>
      ) : !session ? (
        <EmbeddedSignIn requestId={requestId} />
      ) : !view ? (
        <p className="alert alert-error" role="alert" data-testid="request-not-found">
          {t.rich('notFound', { id: requestId, code: (chunks) => <code>{chunks}</code> })}
        </p>
      ) : (
        <section data-testid="central-request" data-request-id={view.id}>
          <RequestViewProvider initial={view}>
          <LiveRequestSummary />
          <div className="mt-4">
            {decidable ? (
              <EmbeddedDecision requestId={view.id} fingerprint={view.fingerprint} stepUp={view.stepUp} profile={view.profile ?? view.policyKind} />
            ) : (
              <p className="text-sm" data-testid="request-state">
                {view.state === 'pending' && mine
                  ? t('youDecided', { decision: mine.decision })
                  : !view.centralEligible
                    ? t('cliOnly')
                    : view.state === 'pending'
                      ? t('expired')
                      : t('state', { state: view.state })}
              </p>
            )}
          </div>
          </RequestViewProvider>
        </section>
      )}
    </main>
  );
}
