'use client';
// A form on a sign-in card bound to a server action. What the person typed stays when the server refuses it
// (the form is submitted by hand: React would reset it after an action), and each error stands under its field,
// tied to it with aria-describedby. A password field shows its length against the minimum as the person types.
import { startTransition, useActionState, useId, useState, type ReactNode } from 'react';
import { useTranslations } from 'use-intl/react';
import { MIN_PASSWORD_LENGTH_SINGLE_FACTOR, MIN_PASSWORD_LENGTH_WITH_SECOND_FACTOR } from '@/lib/accounts/factors/password-length';
import { CopyButton } from '@/app/_components/copy-button';
import { DownloadButton } from '@/app/_components/download-button';
import { idleCardForm, type CardFormState } from '../_lib/form-state';
import { SCRIPTED_FORM_METHOD, useScriptReady } from '@/app/_lib/scripted-form';

export interface CardField {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password';
  autoComplete?: string;
  required?: boolean;
  readOnly?: boolean;
  defaultValue?: string;
  hint?: string;
  /** A new password: shows a live length hint against this minimum. */
  newPasswordMinimum?: number;
  maxLength?: number;
}

type Action = (state: CardFormState, data: FormData) => Promise<CardFormState>;

export function CardForm(props: {
  action: Action;
  fields: CardField[];
  hidden?: Record<string, string>;
  submitLabel: string;
  testId?: string;
  footer?: ReactNode;
  /**
   * Runs in the browser before the action (a passkey ceremony, say): it may add to the form data, or answer errors by
   * field, which are shown like the server's and stop the submission.
   */
  prepare?: (data: FormData) => Promise<Record<string, string> | undefined>;
}) {
  const t = useTranslations('account.cardForm');
  const [state, formAction, pending] = useActionState(props.action, idleCardForm);
  const ready = useScriptReady();
  const [preparing, setPreparing] = useState(false);
  const [browserErrors, setBrowserErrors] = useState<Record<string, string> | undefined>();
  // Ids unique per form: a page may hold several forms with a field of the same name (the account page does).
  const formId = useId();
  if (state.status === 'done') {
    return (
      <div data-testid={props.testId ? `${props.testId}-done` : undefined}>
        <div className="alert alert-success" role="status">
          {state.message}
        </div>
        {state.codes ? (
          <ul className="recovery-codes" data-testid="recovery-codes">
            {state.codes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ul>
        ) : null}
        {state.codes ? (
          <div className="recovery-code-actions">
            <CopyButton text={state.codes.join('\n')} className="button button-inline button-secondary" />
            <DownloadButton text={state.codes.join('\n')} fileName="portico-recovery-codes.txt" className="button button-inline button-secondary" />
          </div>
        ) : null}
        {state.next ? (
          <a className="button button-inline" href={state.next.href}>
            {state.next.label}
          </a>
        ) : null}
      </div>
    );
  }
  const errors = browserErrors ?? (state.status === 'error' ? state.fieldErrors : {});
  const busy = pending || preparing;
  return (
    <form
      method={SCRIPTED_FORM_METHOD}
      data-testid={props.testId}
      noValidate={false}
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        setBrowserErrors(undefined);
        if (!props.prepare) {
          startTransition(() => formAction(data));
          return;
        }
        setPreparing(true);
        void props
          .prepare(data)
          .then((refused) => {
            if (refused) setBrowserErrors(refused);
            else startTransition(() => formAction(data));
          })
          .finally(() => setPreparing(false));
      }}
    >
      {errors.form ? (
        <div className="alert alert-error" role="alert" data-testid="form-error">
          {errors.form}
        </div>
      ) : null}
      {Object.entries(props.hidden ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {props.fields.map((field) => (
        <FieldRow key={field.name} formId={formId} field={field} error={errors[field.name]} />
      ))}
      <button className="button" type="submit" disabled={busy || !ready}>
        {busy ? t('working') : props.submitLabel}
      </button>
      {props.footer}
    </form>
  );
}

function FieldRow({ formId, field, error }: { formId: string; field: CardField; error?: string }) {
  const t = useTranslations('account.cardForm');
  const [length, setLength] = useState([...(field.defaultValue ?? '')].length);
  const id = `field-${field.name}-${formId.replace(/[^A-Za-z0-9_-]/g, '')}`;
  const described = [field.hint || field.newPasswordMinimum ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const hint = field.newPasswordMinimum
    ? t('passwordHint', { length, minimum: field.newPasswordMinimum, state: length < field.newPasswordMinimum ? 'short' : 'enough', single: MIN_PASSWORD_LENGTH_SINGLE_FACTOR, withFactor: MIN_PASSWORD_LENGTH_WITH_SECOND_FACTOR })
    : field.hint;
  return (
    <div className="field">
      <label htmlFor={id}>{field.label}</label>
      <input
        id={id}
        name={field.name}
        type={field.type ?? 'text'}
        autoComplete={field.autoComplete}
        required={field.required}
        readOnly={field.readOnly}
        defaultValue={field.defaultValue}
        maxLength={field.maxLength ?? (field.type === 'password' ? 256 : 320)}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        onInput={field.newPasswordMinimum ? (event) => setLength([...event.currentTarget.value].length) : undefined}
      />
      {hint ? (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={`${id}-error`} data-testid={`error-${field.name}`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
