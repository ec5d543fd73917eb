'use client';
// Which notices reach the person by mail: one box each, saved together. The server's answer stands under the form.
import { startTransition, useActionState } from 'react';
import { useTranslations } from 'use-intl/react';
import type { NoticeSettings } from '@/lib/notifications/settings';
import type { CardFormState } from '../../account/_lib/form-state';
import { idleCardForm } from '../../account/_lib/form-state';
import { SCRIPTED_FORM_METHOD, useScriptReady } from '@/app/_lib/scripted-form';

type Action = (state: CardFormState, data: FormData) => Promise<CardFormState>;

export function NotificationsForm({ action, initial }: { action: Action; initial: NoticeSettings }) {
  const t = useTranslations('account.notifications');
  const [state, formAction, pending] = useActionState(action, idleCardForm);
  const ready = useScriptReady();
  return (
    <form
      method={SCRIPTED_FORM_METHOD}
      className="grid gap-2"
      data-testid="notification-settings"
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        startTransition(() => formAction(data));
      }}
    >
      {(Object.keys(initial) as (keyof NoticeSettings)[]).map((name) => (
        <label key={name} className="flex items-start gap-2 text-sm">
          <input type="checkbox" name={name} value="on" defaultChecked={initial[name]} className="mt-1" />
          <span>{t(`kinds.${name}`)}</span>
        </label>
      ))}
      <p className="text-xs text-slate-600">{t('always')}</p>
      <div>
        <button type="submit" className="btn btn-secondary" disabled={pending || !ready}>
          {t('save')}
        </button>
      </div>
      {state.status === 'done' ? (
        <p role="status" className="text-sm text-green-800">
          {state.message}
        </p>
      ) : state.status === 'error' ? (
        <p role="alert" className="text-sm text-red-700">
          {Object.values(state.fieldErrors ?? {}).join(' ')}
        </p>
      ) : null}
    </form>
  );
}
