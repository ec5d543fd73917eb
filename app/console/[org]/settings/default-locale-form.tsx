'use client';
// The organization's default language: what its people read when they chose none and no request asks otherwise.
import { useState } from 'react';
import { useTranslations } from 'use-intl/react';
import { ActionForm } from '../../_components/action-form';
import { Select } from '../../_components/fields';
import { saveDefaultLocaleAction } from './actions';

export function DefaultLocaleForm({ org, initial, languages }: { org: string; initial: string | null; languages: readonly { value: string; label: string }[] }) {
  const t = useTranslations('console.settings.language');
  const [locale, setLocale] = useState<string>(initial ?? '');
  return (
    <ActionForm action={saveDefaultLocaleAction} org={org} submitLabel={t('save')} testId="default-locale" keepValues>
      <Select label={t('label')} name="locale" value={locale} onChange={setLocale} options={[{ value: '', label: t('browser') }, ...languages]} />
    </ActionForm>
  );
}
