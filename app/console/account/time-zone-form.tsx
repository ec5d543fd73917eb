'use client';
// The time zone of the person's pages and mail (issue 56, item 3): their browser's until they choose one. A refused
// value keeps the choice and says why under the field.
import { startTransition, useActionState, useEffect, useState } from 'react';
import { useTranslations } from 'use-intl/react';
import type { CardFormState } from '../../account/_lib/form-state';
import { idleCardForm } from '../../account/_lib/form-state';
import { SCRIPTED_FORM_METHOD, useScriptReady } from '@/app/_lib/scripted-form';

type Action = (state: CardFormState, data: FormData) => Promise<CardFormState>;

export function TimeZoneForm({ action, zones, saved }: { action: Action; zones: readonly string[]; saved: string | null }) {
  const t = useTranslations('account.timeZone');
  const [state, formAction, pending] = useActionState(action, idleCardForm);
  const ready = useScriptReady();
  // Known only in the browser: shown in the "my browser's" choice once the page runs.
  const [browserZone, setBrowserZone] = useState<string | undefined>();
  useEffect(() => setBrowserZone(Intl.DateTimeFormat().resolvedOptions().timeZone), []);
  const error = state.status === 'error' ? state.fieldErrors?.timeZone : undefined;
  return (
    <form
      method={SCRIPTED_FORM_METHOD}
      className="grid gap-2"
      data-testid="time-zone-form"
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        startTransition(() => formAction(data));
      }}
    >
      <label className="grid gap-1 text-sm" htmlFor="time-zone-choice">
        {t('label')}
      </label>
      <select id="time-zone-choice" name="timeZone" className="input max-w-full sm:max-w-md" defaultValue={saved ?? ''} aria-invalid={error ? true : undefined} aria-describedby={error ? 'time-zone-error' : undefined}>
        <option value="">{browserZone ? t('browser', { zone: browserZone.replaceAll('_', ' ') }) : t('browserUnknown')}</option>
        {zones.map((zone) => (
          <option key={zone} value={zone}>
            {zone.replaceAll('_', ' ')}
          </option>
        ))}
      </select>
      {error ? (
        <p id="time-zone-error" role="alert" className="text-sm text-red-700" data-testid="field-error-timeZone">
          {error}
        </p>
      ) : null}
      <div>
        <button type="submit" className="btn btn-secondary" disabled={pending || !ready}>
          {t('save')}
        </button>
      </div>
      {state.status === 'done' ? (
        <p role="status" className="text-sm text-green-800">
          {state.message}
        </p>
      ) : null}
    </form>
  );
}
