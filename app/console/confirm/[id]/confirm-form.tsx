'use client';
// Confirm (after step-up) or deny one tool call. The step-up field is the person's strongest factor; its error
// stands under it. Nothing typed here is kept after a refusal: it is a password or a one-time code.
import { startTransition, useActionState } from 'react';
import type { ConfirmFormState } from './actions';

type Action = (state: ConfirmFormState, data: FormData) => Promise<ConfirmFormState>;

export function ConfirmForm({ action, factor }: { action: Action; factor: 'totp' | 'password' }) {
  const [state, formAction, pending] = useActionState(action, { status: 'idle' } as ConfirmFormState);
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
  const field = factor === 'totp' ? 'code' : 'password';
  const errorId = errors[field] ? 'step-up-error' : undefined;
  return (
    <form
      data-testid="confirmation-form"
      onSubmit={(event) => {
        event.preventDefault();
        const submitter = (event.nativeEvent as SubmitEvent).submitter;
        const data = new FormData(event.currentTarget, submitter);
        startTransition(() => formAction(data));
      }}
    >
      {errors.form ? (
        <div className="alert alert-error" role="alert" data-testid="form-error">
          {errors.form}
        </div>
      ) : null}
      <div className="field">
        <label htmlFor={field}>{factor === 'totp' ? 'Code from your authenticator app' : 'Your password'}</label>
        {factor === 'totp' ? (
          <input id="code" name="code" autoComplete="one-time-code" inputMode="numeric" maxLength={8} aria-invalid={errorId ? true : undefined} aria-describedby={errorId} />
        ) : (
          <input id="password" name="password" type="password" autoComplete="current-password" maxLength={1024} aria-invalid={errorId ? true : undefined} aria-describedby={errorId} />
        )}
        <span className="field-hint">Needed to confirm (not to deny): it shows that you, not the agent, are saying yes.</span>
        {errorId ? (
          <span className="field-error" id={errorId} role="alert" data-testid="step-up-error">
            {errors[field]}
          </span>
        ) : null}
      </div>
      <div className="button-row">
        <button className="button" type="submit" name="decision" value="confirm" disabled={pending} data-testid="confirm-call">
          {pending ? 'Working…' : 'Confirm and let it run once'}
        </button>
        <button className="button button-secondary" type="submit" name="decision" value="deny" disabled={pending} formNoValidate data-testid="deny-call">
          Deny
        </button>
      </div>
    </form>
  );
}
