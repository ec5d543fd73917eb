// The page where a person confirms (or denies) one approval_required tool call an agent or client made for them
// (human confirmation mode). It shows the call exactly as it will run: the tool, its risk and warning, who asks, and
// the arguments in the canonical form the confirmation token is bound to. Confirming needs step-up.
import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { redirect } from 'next/navigation';
import { stepUpFactorOf } from '@/lib/accounts/factors/step-up';
import { findConfirmation } from '@/lib/confirmations/answers';
import { getT, requestLocale } from '@/app/_lib/i18n/server';

/**
 * An amount in the reader's language ("R$ 1.250,00", "$1,250.00"): the decimal string as sent, exactly (Intl formats
 * a numeric string without a float's rounding); an unknown currency code is shown as written.
 */
function money(locale: string, value: string, currency: string): string {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(value as unknown as number);
  } catch {
    return `${visibleText(value)} ${visibleText(currency)}`;
  }
}
import { db } from '@/lib/runtime';
import { visibleText } from '@/lib/util/visible-text';
import { SignInFrame } from '../../../auth/app/_components/sign-in-frame';
import { currentConsoleSession } from '../../_lib/session';
import { answerConfirmationAction, confirmationPasskeyOptionsAction } from './actions';
import { ConfirmForm } from './confirm-form';
import type { AuthorizationDetail } from '@/lib/oidc/authorization-details';
import type { ConfirmationView } from '@/lib/confirmations/answers';
import type { StepUpFactor } from '@/lib/accounts/factors/factor';

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
  if (view.backchannel) return <BackchannelRequest view={view} factor={factor} open={open} />;
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

/**
 * A CIBA request (lib/oidc/ciba.ts): the app's backend asks the person to approve one described action. The binding
 * message and every authorization detail are shown as data (visibleText), the arguments as the digest binds them.
 */
async function BackchannelRequest({ view, factor, open }: { view: ConfirmationView; factor: StepUpFactor; open: boolean }) {
  const t = await getT('confirm.backchannel');
  const locale = await requestLocale();
  const footnote = (await getT('confirm'))('footnote');
  const strong = (chunks: ReactNode) => <strong>{chunks}</strong>;
  const code = (chunks: ReactNode) => <code>{chunks}</code>;
  let details: AuthorizationDetail[] = [];
  try {
    details = JSON.parse(view.arguments) as AuthorizationDetail[];
  } catch {
    details = [];
  }
  const app = visibleText(view.app ?? view.client);
  return (
    <SignInFrame>
      <h1>{t('title', { app })}</h1>
      {/* An app's own client usually bears the app's name: say it once. */}
      <p>{view.client === view.app || !view.app ? t.rich('introApp', { app, strong }) : t.rich('intro', { client: visibleText(view.client), app, strong })}</p>
      <dl className="call-facts">
        <dt>{t('bindingMessage')}</dt>
        <dd>
          <strong data-testid="binding-message">{visibleText(view.description)}</strong>
          <br />
          <span className="field-hint">{t('bindingHint')}</span>
        </dd>
      </dl>
      <h2 className="details-title">{t('details')}</h2>
      <ul className="authorization-details" data-testid="authorization-details">
        {details.map((detail, index) =>
          detail.type === 'portico_tool_call' ? (
            <li key={index}>
              <p>
                {t.rich('toolCall', { tool: visibleText(detail.tool), code })}{' '}
                <span className={`badge ${detail.risk_level === 'approval_required' ? 'badge-warning' : 'badge'}`}>{t('risk', { risk: detail.risk_level })}</span>
              </p>
              <p className="field-hint">{t('arguments')}</p>
              <pre className="arguments">{visibleText(JSON.stringify(detail.arguments, null, 2))}</pre>
            </li>
          ) : (
            <li key={index}>
              <dl className="call-facts">
                <dt>{t('action')}</dt>
                <dd>{visibleText(detail.description)}</dd>
                {detail.target ? (
                  <>
                    <dt>{t('target')}</dt>
                    <dd>{visibleText(detail.target)}</dd>
                  </>
                ) : null}
                {detail.amount ? (
                  <>
                    <dt>{t('amount')}</dt>
                    <dd>
                      {money(locale, detail.amount.value, detail.amount.currency)}
                    </dd>
                  </>
                ) : null}
              </dl>
            </li>
          ),
        )}
      </ul>
      {open ? (
        <ConfirmForm action={answerConfirmationAction.bind(null, view.id)} passkeyOptions={confirmationPasskeyOptionsAction.bind(null, view.id)} factor={factor} variant="backchannel" />
      ) : (
        <div className="alert alert-error" role="status" data-testid="confirmation-closed">
          {view.state === 'confirmed' ? t('closedConfirmed') : view.state === 'denied' ? t('closedDenied') : t('closedExpired')}
        </div>
      )}
      <p className="footnote">{footnote}</p>
    </SignInFrame>
  );
}
