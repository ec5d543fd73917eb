// The page where a person confirms (or denies) one approval_required tool call an agent or client made for them
// (human confirmation mode). It shows the call exactly as it will run: the tool, its risk and warning, who asks, and
// the arguments in the canonical form the confirmation token is bound to. Confirming needs step-up.
import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { stepUpFactorOf } from '@/lib/accounts/step-up';
import { findConfirmation } from '@/lib/mcp/confirmations';
import { db } from '@/lib/runtime';
import { visibleText } from '@/lib/util/visible-text';
import { SignInFrame } from '../../../auth/app/_components/sign-in-frame';
import { currentConsoleSession } from '../../_lib/session';
import { answerConfirmationAction, confirmationPasskeyOptionsAction } from './actions';
import { ConfirmForm } from './confirm-form';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Confirm a call', referrer: 'no-referrer' };

export default async function ConfirmationPage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
  const session = await currentConsoleSession();
  if (!session) redirect(`/console/login?next=${encodeURIComponent(`/console/confirm/${id}`)}`);
  const view = await findConfirmation(db(), id, session.user);
  if (!view) {
    return (
      <SignInFrame>
        <h1>Nothing to confirm here</h1>
        <p data-testid="confirmation-missing">
          There is no confirmation at this address for {session.user.email}. It may be for someone else, or it expired and was removed.
        </p>
      </SignInFrame>
    );
  }
  const factor = await stepUpFactorOf(db(), session.user.id);
  const open = view.state === 'pending' && !view.expired;
  return (
    <SignInFrame>
      <h1>Confirm what {view.agent ? 'an agent' : 'an app'} wants to do</h1>
      <p>
        {view.agentOnItsOwn ? (
          <>
            The agent <strong>{visibleText(view.agent)}</strong> acts on its own in <strong>{visibleText(view.app)}</strong>; as an operator of the app you decide.
          </>
        ) : view.agent ? (
          <>
            Your agent <strong>{visibleText(view.agent)}</strong> asks to run this for you, through <strong>{visibleText(view.client)}</strong>.
          </>
        ) : (
          <>
            <strong>{visibleText(view.client)}</strong> asks to run this as you.
          </>
        )}
      </p>
      <dl className="call-facts" data-testid="confirmation-call">
        <dt>Operation</dt>
        <dd>
          <code>{visibleText(view.tool)}</code> in {view.app ? visibleText(view.app) : 'Portico'} <span className="badge badge-warning">approval required</span>
        </dd>
        <dt>What it does</dt>
        <dd>{visibleText(view.description)}</dd>
        <dt>Arguments</dt>
        <dd>
          <pre className="arguments" data-testid="confirmation-arguments">
            {visibleText(view.arguments)}
          </pre>
        </dd>
      </dl>
      {view.warning ? (
        <div className="alert alert-warning" role="note">
          {visibleText(view.warning)}
        </div>
      ) : null}
      {open ? (
        <ConfirmForm action={answerConfirmationAction.bind(null, view.id)} passkeyOptions={confirmationPasskeyOptionsAction.bind(null, view.id)} factor={factor} />
      ) : (
        <div className="alert alert-error" role="status" data-testid="confirmation-closed">
          {view.state === 'confirmed' ? 'You confirmed this call.' : view.state === 'denied' ? 'You denied this call.' : 'This confirmation has expired: the agent has to ask again.'}
        </div>
      )}
      <p className="footnote">Only confirm a call you expect. Portico never asks you to confirm something to sign in.</p>
    </SignInFrame>
  );
}
