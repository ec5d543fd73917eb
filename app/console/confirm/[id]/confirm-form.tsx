'use client';
// Confirm (after step-up) or deny one tool call. Step-up is the person's strongest factor: a passkey (the browser
// asks for it when Confirm is pressed, bound to this confirmation), else a code from their authenticator app, else
// their password. Its error stands under it. Nothing typed here is kept after a refusal: it is a secret or a
// one-time code.
import { startAuthentication } from '@simplewebauthn/browser';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { startTransition, useActionState, useState } from 'react';
import { useTranslations } from 'use-intl/react';
import type { ConfirmFormState } from './actions';
import { SCRIPTED_FORM_METHOD, useScriptReady } from '@/app/_lib/scripted-form';

type Action = (state: ConfirmFormState, data: FormData) => Promise<ConfirmFormState>;
type OptionsAction = () => Promise<{ ok: true; options: PublicKeyCredentialRequestOptionsJSON } | { ok: false; message: string }>;

/** `backchannel`: a CIBA request (an app asks to approve one action), worded as an approval rather than a call. */
export function ConfirmForm({ action, passkeyOptions, factor, variant = 'call' }: { action: Action; passkeyOptions: OptionsAction; factor: 'passkey' | 'totp' | 'password'; variant?: 'call' | 'backchannel' }) {
  const t = useTranslations('confirm.form');
  // Who would be saying yes without the person: the agent of a tool call, the app of a CIBA request.
  const requester = variant === 'backchannel' ? 'app' : 'agent';
  const [state, formAction, pending] = useActionState(action, { status: 'idle' } as ConfirmFormState);
  const ready = useScriptReady();
  const [passkeyError, setPasskeyError] = useState<string | undefined>();
  const [asking, setAsking] = useState(false);
  if (state.status === 'done') {
    const backchannel = variant === 'backchannel';
    if (state.undelivered) {
      return (
        <div className="alert alert-warning" role="status" data-testid="confirmation-done">
          {t('backchannelUndelivered')}
        </div>
      );
    }
    return state.decision === 'confirmed' ? (
      <div className="alert alert-success" role="status" data-testid="confirmation-done">
        {backchannel ? t('backchannelConfirmed') : t('confirmed')}
      </div>
    ) : (
      <div className="alert alert-success" role="status" data-testid="confirmation-done">
        {backchannel ? t('backchannelDenied') : t('denied')}
      </div>
    );
  }
  const errors = state.status === 'error' ? state.fieldErrors : {};
  const field = factor === 'passkey' ? 'passkey' : factor === 'totp' ? 'code' : 'password';
  const fieldError = passkeyError ?? errors[field];
  const errorId = fieldError ? 'step-up-error' : undefined;
  return (
    <form
      method={SCRIPTED_FORM_METHOD}
      data-testid="confirmation-form"
      onSubmit={(event) => {
        event.preventDefault();
        const form = event.currentTarget;
        const submitter = (event.nativeEvent as SubmitEvent).submitter;
        const data = new FormData(form, submitter);
        if (factor !== 'passkey' || data.get('decision') !== 'confirm') {
          startTransition(() => formAction(data));
          return;
        }
        // The passkey ceremony first: options bound to this confirmation, then the browser asks the person.
        setPasskeyError(undefined);
        setAsking(true);
        void (async () => {
          try {
            const options = await passkeyOptions();
            if (!options.ok) return setPasskeyError(options.message);
            const answer = await startAuthentication({ optionsJSON: options.options });
            data.set('passkey', JSON.stringify(answer));
            startTransition(() => formAction(data));
          } catch {
            setPasskeyError(t('passkeyNoAnswer'));
          } finally {
            setAsking(false);
          }
        })();
      }}
    >
      {errors.form ? (
        <div className="alert alert-error" role="alert" data-testid="form-error">
          {errors.form}
        </div>
      ) : null}
      <div className="field">
        {factor === 'passkey' ? (
          <p id="passkey" className="field-hint">
            {t('passkeyHint', { requester })}
          </p>
        ) : (
          <>
            <label htmlFor={field}>{factor === 'totp' ? t('codeLabel') : t('passwordLabel')}</label>
            {factor === 'totp' ? (
              <input id="code" name="code" autoComplete="one-time-code" inputMode="numeric" maxLength={8} aria-invalid={errorId ? true : undefined} aria-describedby={errorId} />
            ) : (
              <input id="password" name="password" type="password" autoComplete="current-password" maxLength={1024} aria-invalid={errorId ? true : undefined} aria-describedby={errorId} />
            )}
            <span className="field-hint">{t('stepUpHint', { requester })}</span>
          </>
        )}
        {errorId ? (
          <span className="field-error" id={errorId} role="alert" data-testid="step-up-error">
            {fieldError}
          </span>
        ) : null}
      </div>
      <div className="button-row">
        <button className="button" type="submit" name="decision" value="confirm" disabled={pending || asking || !ready} data-testid="confirm-call">
          {pending || asking
            ? t('working')
            : variant === 'backchannel'
              ? factor === 'passkey'
                ? t('approveWithPasskey')
                : t('approveOnce')
              : factor === 'passkey'
                ? t('confirmWithPasskey')
                : t('confirmOnce')}
        </button>
        <button className="button button-secondary" type="submit" name="decision" value="deny" disabled={pending || asking || !ready} formNoValidate data-testid="deny-call">
          {t('deny')}
        </button>
      </div>
    </form>
  );
}
