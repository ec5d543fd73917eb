'use client';
// A form bound to a console server action: shows pending, success and error states, field errors, a secret
// shown once, and — for destructive actions — a second, explicit confirmation step naming the consequence.
import { startTransition, useActionState, useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslations } from 'use-intl/react';
import type { ActionState } from '../_lib/action';
import { CopyButton } from '../../_components/copy-button';
import { DownloadButton } from '../../_components/download-button';
import { FieldErrorsContext } from './fields';
import { SCRIPTED_FORM_METHOD, useScriptReady } from '@/app/_lib/scripted-form';

type Action = (state: ActionState, formData: FormData) => Promise<ActionState>;

export function ActionForm(props: {
  action: Action;
  org: string;
  submitLabel: string;
  children?: ReactNode;
  /** Destructive: the consequence, shown before the second click. */
  confirm?: string;
  confirmLabel?: string;
  variant?: 'primary' | 'danger' | 'secondary';
  inline?: boolean;
  testId?: string;
  /**
   * Keep the form (and the result it shows, such as a secret shown once) but offer no submit button. Only for a form
   * of hidden fields: one with a text field and no submit button submits itself on Enter (HTML's implicit
   * submission), natively before the page's script runs, with no disabled button to stop it.
   */
  hideSubmit?: boolean;
  /** A settings form: after a save it keeps showing what was saved instead of starting over. */
  keepValues?: boolean;
  /** The file a secret shown once is saved as (its download button). */
  secretFileName?: string;
}) {
  const t = useTranslations('console.action');
  const [state, formAction, pending] = useActionState(props.action, { status: 'idle' } as ActionState);
  const ready = useScriptReady();
  const [armed, setArmed] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const secretRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (state.status !== 'idle') setArmed(false);
    // A form the server accepted starts over; one it refused keeps everything the person typed.
    if (state.status === 'ok' && !props.keepValues) formRef.current?.reset();
    // A secret shown once is the one thing to act on: brought into view and focused, whatever the form's length.
    if (state.status === 'ok' && state.secret) {
      secretRef.current?.scrollIntoView({ block: 'start' });
      secretRef.current?.focus();
    }
  }, [state, props.keepValues]);
  const outcome =
    state.status === 'ok' ? (
      <div
        ref={state.secret ? secretRef : undefined}
        tabIndex={state.secret ? -1 : undefined}
        role="status"
        className={state.secret ? 'rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-slate-900' : state.tone === 'warning' ? 'text-sm text-amber-800' : 'text-sm text-green-800'}
        data-testid="action-ok"
        data-tone={state.tone ?? 'success'}
      >
        <p>{state.message}</p>
        {state.secret ? (
          <>
            <pre className="mt-2 whitespace-pre-wrap break-all rounded-md bg-slate-900 p-3 text-xs text-slate-50" data-testid="secret-once" tabIndex={0} aria-label={t('shownOnce')}>
              {state.secret.join('\n')}
            </pre>
            <div className="flex flex-wrap gap-2">
              <CopyButton text={state.secret.join('\n')} />
              <DownloadButton text={state.secret.join('\n')} fileName={props.secretFileName ?? 'portico-secret.txt'} />
            </div>
          </>
        ) : null}
        {state.next ? (
          <p className="mt-3">
            <a className="btn btn-primary" href={state.next.href} data-testid="action-next">
              {state.next.label}
            </a>
          </p>
        ) : null}
      </div>
    ) : null;
  const variant = props.variant ?? 'primary';
  return (
    <form
      method={SCRIPTED_FORM_METHOD}
      ref={formRef}
      data-testid={props.testId}
      className={props.inline ? 'flex flex-wrap items-end gap-2' : 'grid gap-3'}
      onSubmit={(event) => {
        // Submitted by hand rather than through the form's action prop: React resets a form after its action runs,
        // which would erase what the person typed when the server refuses it.
        event.preventDefault();
        if (props.confirm && !armed) {
          setArmed(true);
          return;
        }
        const data = new FormData(event.currentTarget);
        startTransition(() => formAction(data));
      }}
    >
      <input type="hidden" name="org" value={props.org} />
      {/* A secret shown once goes first, above the fields (a long form would hide it below the fold). */}
      {state.status === 'ok' && state.secret ? outcome : null}
      {props.confirm ? <input type="hidden" name="confirmed" value={armed ? 'yes' : 'no'} /> : null}
      <FieldErrorsContext.Provider value={state.status === 'error' ? state.fieldErrors : undefined}>{props.children}</FieldErrorsContext.Provider>
      {armed && props.confirm ? (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-900">
          <p className="mb-2">{props.confirm}</p>
          <div className="flex gap-2">
            <button type="submit" className="btn btn-danger" disabled={pending || !ready}>
              {props.confirmLabel ?? t('yesContinue')}
            </button>
            <button type="button" className="btn btn-secondary" onClick={() => setArmed(false)}>
              {t('cancel')}
            </button>
          </div>
        </div>
      ) : props.hideSubmit ? null : (
        <div>
          <button type="submit" className={`btn btn-${variant}`} disabled={pending || !ready}>
            {pending ? t('working') : props.submitLabel}
          </button>
        </div>
      )}
      {state.status === 'error' ? (
        <p role="alert" className="text-sm text-red-700" data-testid="action-error">
          {state.fieldErrors
            ? Object.entries(state.fieldErrors).map(([field, message]) => (
                <span key={field} className="block" data-field={field}>
                  {message}
                </span>
              ))
            : state.message}
        </p>
      ) : null}
      {state.status === 'ok' && !state.secret ? outcome : null}
    </form>
  );
}

/** A destructive action on one thing: a secondary button, a confirmation naming the consequence, hidden ids. */
export function ConfirmedAction(props: { action: Action; org: string; label: string; confirm: string; confirmLabel: string; fields: Record<string, string> }) {
  return (
    <ActionForm action={props.action} org={props.org} submitLabel={props.label} variant="secondary" confirm={props.confirm} confirmLabel={props.confirmLabel}>
      {Object.entries(props.fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
    </ActionForm>
  );
}
