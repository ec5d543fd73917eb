'use client';
// Confirm (after step-up) or deny one tool call. Step-up is the person's strongest factor: a passkey (the browser
// asks for it when Confirm is pressed, bound to this confirmation), else a code from their authenticator app, else
// their password. Its error stands under it. Nothing typed here is kept after a refusal: it is a secret or a
// one-time code.
import { startAuthentication } from '@simplewebauthn/browser';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { startTransition, useActionState, useState } from 'react';
import type { ConfirmFormState } from './actions';

type Action = (state: ConfirmFormState, data: FormData) => Promise<ConfirmFormState>;
type OptionsAction = () => Promise<{ ok: true; options: PublicKeyCredentialRequestOptionsJSON } | { ok: false; message: string }>;

export function ConfirmForm({ action, passkeyOptions, factor }: { action: Action; passkeyOptions: OptionsAction; factor: 'passkey' | 'totp' | 'password' }) {
  const [state, formAction, pending] = useActionState(action, { status: 'idle' } as ConfirmFormState);
  const [passkeyError, setPasskeyError] = useState<string | undefined>();
  const [asking, setAsking] = useState(false);
  if (state.status === 'done') {
    return state.decision === 'confirmed' ? (
      <div className="alert alert-success" role="status" data-testid="confirmation-done">
        Confirmed. The agent can now run this call once, with exactly these arguments, within five minutes. Go back to it and let it
        continue.
      </div>
    ) : (
      <div className="alert alert-success" role="status" data-testid="confirmation-done">
        Denied. The call will not run; the agent is told so when it tries again.
      </div>
    );
  }
  const errors = state.status === 'error' ? state.fieldErrors : {};
  const field = factor === 'passkey' ? 'passkey' : factor === 'totp' ? 'code' : 'password';
  const fieldError = passkeyError ?? errors[field];
  const errorId = fieldError ? 'step-up-error' : undefined;
  return (
    <form
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
            setPasskeyError('Your passkey did not answer (cancelled, or not on this device). Try again.');
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
            Confirming asks for your passkey (your fingerprint, face or device PIN): it shows that you, not the agent, are saying yes.
          </p>
        ) : (
          <>
            <label htmlFor={field}>{factor === 'totp' ? 'Code from your authenticator app' : 'Your password'}</label>
            {factor === 'totp' ? (
              <input id="code" name="code" autoComplete="one-time-code" inputMode="numeric" maxLength={8} aria-invalid={errorId ? true : undefined} aria-describedby={errorId} />
            ) : (
              <input id="password" name="password" type="password" autoComplete="current-password" maxLength={1024} aria-invalid={errorId ? true : undefined} aria-describedby={errorId} />
            )}
            <span className="field-hint">Needed to confirm (not to deny): it shows that you, not the agent, are saying yes.</span>
          </>
        )}
        {errorId ? (
          <span className="field-error" id={errorId} role="alert" data-testid="step-up-error">
            {fieldError}
          </span>
        ) : null}
      </div>
      <div className="button-row">
        <button className="button" type="submit" name="decision" value="confirm" disabled={pending || asking} data-testid="confirm-call">
          {pending || asking ? 'Working…' : factor === 'passkey' ? 'Confirm with passkey' : 'Confirm and let it run once'}
        </button>
        <button className="button button-secondary" type="submit" name="decision" value="deny" disabled={pending || asking} formNoValidate data-testid="deny-call">
          Deny
        </button>
      </div>
    </form>
  );
}
