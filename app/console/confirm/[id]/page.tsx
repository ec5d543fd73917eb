// The page where a person confirms (or denies) one approval_required tool call an agent or client made for them
// (human confirmation mode). It shows the call exactly as it will run: the tool, its risk and warning, who asks, and
// the arguments in the canonical form the confirmation token is bound to. Confirming needs step-up.
import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { redirect } from 'next/navigation';
import { stepUpFactorOf } from '@/lib/accounts/step-up';
import { findConfirmation } from '@/lib/mcp/confirmations';
import { getT } from '@/lib/i18n/server';
import { db } from '@/lib/runtime';
import { visibleText } from '@/lib/util/visible-text';
import { SignInFrame } from '../../../auth/app/_components/sign-in-frame';
import { currentConsoleSession } from '../../_lib/session';
import { answerConfirmationAction, confirmationPasskeyOptionsAction } from './actions';
import { ConfirmForm } from './confirm-form';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('confirm'))('pageTitle'), referrer: 'no-referrer' };
}

export default async function ConfirmationPage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
  const session = await currentConsoleSession();
  if (!session) redirect(`/console/login?next=${encodeURIComponent(`/console/confirm/${id}`)}`);
  const t = await getT('confirm');
  const strong = (chunks: ReactNode) => <strong>{chunks}</strong>;
  const view = await findConfirmation(db(), id, session.user);
  if (!view) {
    return (
      <SignInFrame>
        <h1>{t('missingTitle')}</h1>
        <p data-testid="confirmation-missing">{t('missingBody', { email: session.user.email })}</p>
      </SignInFrame>
    );
  }
  const factor = await stepUpFactorOf(db(), session.user.id);
  const open = view.state === 'pending' && !view.expired;
  return (
    <SignInFrame>
      <h1>{t('title', { who: view.agent ? 'agent' : 'app' })}</h1>
      <p>
        {view.agentOnItsOwn
          ? t.rich('agentOnItsOwn', { agent: visibleText(view.agent), app: visibleText(view.app), strong })
          : view.agent
            ? t.rich('yourAgent', { agent: visibleText(view.agent), client: visibleText(view.client), strong })
            : t.rich('clientAsks', { client: visibleText(view.client), strong })}
      </p>
      <dl className="call-facts" data-testid="confirmation-call">
        <dt>{t('operation')}</dt>
        <dd>
          {t.rich('operationIn', { tool: visibleText(view.tool), app: view.app ? visibleText(view.app) : 'Portico', code: (chunks) => <code>{chunks}</code> })}{' '}
          <span className="badge badge-warning">{t('approvalRequired')}</span>
        </dd>
        <dt>{t('whatItDoes')}</dt>
        <dd>{visibleText(view.description)}</dd>
        <dt>{t('arguments')}</dt>
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
          {view.state === 'confirmed' ? t('closed.confirmed') : view.state === 'denied' ? t('closed.denied') : t('closed.expired')}
        </div>
      )}
      <p className="footnote">{t('footnote')}</p>
    </SignInFrame>
  );
}
