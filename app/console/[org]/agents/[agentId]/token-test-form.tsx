'use client';
// "Test a workload token": the token goes to the server and stays in its field (to test again after changing a
// rule); what comes back is the verdict, rule by rule — names, reasons and the one claim that differed — never the
// token. Everything in it came from outside (rule names, claim values): shown as text.
import { startTransition, useActionState } from 'react';
import { useTranslations } from 'use-intl/react';
import { FieldErrorsContext, TextArea } from '../../../_components/fields';
import type { RuleVerdictShown, TokenTestState } from '../actions';
import { SCRIPTED_FORM_METHOD, useScriptReady } from '@/app/_lib/scripted-form';

type Action = (state: TokenTestState, formData: FormData) => Promise<TokenTestState>;

export function TokenTestForm(props: { action: Action; org: string }) {
  const t = useTranslations('console.agent');
  const [state, formAction, pending] = useActionState(props.action, { status: 'idle' } as TokenTestState);
  const ready = useScriptReady();
  return (
    <form
      method={SCRIPTED_FORM_METHOD}
      className="grid gap-3"
      data-testid="test-workload-token"
      onSubmit={(event) => {
        // Submitted by hand, as ActionForm does: React would reset the form after its action and erase the token.
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        startTransition(() => formAction(data));
      }}
    >
      <input type="hidden" name="org" value={props.org} />
      <FieldErrorsContext.Provider value={state.status === 'error' ? state.fieldErrors : undefined}>
        <TextArea id="workload-token" label={t('test.token')} name="token" rows={5} required maxLength={16_384} />
      </FieldErrorsContext.Provider>
      <div>
        <button type="submit" className="btn btn-secondary" disabled={pending || !ready}>
          {pending ? t('test.testing') : t('test.submit')}
        </button>
      </div>
      {state.status === 'error' ? (
        <p role="alert" className="text-sm text-red-700" data-testid="action-error">
          {state.fieldErrors ? Object.values(state.fieldErrors).join(' ') : state.message}
        </p>
      ) : null}
      {state.status === 'ok' ? (
        <div role="status" className="grid gap-3" data-testid="token-test-result" data-matched={'report' in state && state.report.matched ? 'yes' : 'no'}>
          <p className={'report' in state && state.report.matched ? 'text-sm text-green-800' : 'text-sm text-amber-800'}>{state.message}</p>
          {'report' in state && state.report.verdicts.length > 0 ? (
            <div>
              <h3 className="mb-2 text-sm font-semibold text-slate-700">{t('test.rulesTitle')}</h3>
              <ol className="grid gap-2 text-sm">
                {state.report.verdicts.map((verdict) => (
                  <Verdict key={verdict.ruleId} verdict={verdict} />
                ))}
              </ol>
            </div>
          ) : null}
        </div>
      ) : null}
    </form>
  );
}

function Verdict({ verdict }: { verdict: RuleVerdictShown }) {
  const t = useTranslations('console.agent');
  return (
    <li className="rounded-md border border-slate-200 p-2 wrap-anywhere" data-testid="token-test-verdict" data-matched={verdict.matched ? 'yes' : 'no'}>
      <p className="font-medium">{t('test.rule', { rule: verdict.rule, agent: verdict.agent })}</p>
      <p className={verdict.matched ? 'text-green-800' : 'text-slate-700'}>{verdict.matched ? t('test.matches') : verdict.reason}</p>
      {verdict.mismatch ? (
        <dl className="mt-1 grid grid-cols-1 gap-x-3 text-xs sm:grid-cols-[max-content_1fr]">
          <dt className="font-semibold text-slate-700">{t('test.claim')}</dt>
          <dd>
            <code className="break-all">{verdict.mismatch.claim}</code>
          </dd>
          <dt className="font-semibold text-slate-700">{t('test.expected')}</dt>
          <dd>
            <code className="break-all">{verdict.mismatch.expected}</code>
          </dd>
          <dt className="font-semibold text-slate-700">{t('test.actual')}</dt>
          <dd>{verdict.mismatch.actual === null ? t('test.absent') : <code className="break-all">{verdict.mismatch.actual}</code>}</dd>
        </dl>
      ) : null}
    </li>
  );
}
