'use client';
// The organization's time zone for the mail of its people who chose none on their account page (issue 56, item 3).
import { useState } from 'react';
import { useTranslations } from 'use-intl/react';
import { ActionForm } from '../../_components/action-form';
import { Select } from '../../_components/fields';
import { saveDefaultTimeZoneAction } from './actions';

export function DefaultTimeZoneForm({ org, initial, zones }: { org: string; initial: string | null; zones: readonly string[] }) {
  const t = useTranslations('console.settings.timeZone');
  const [zone, setZone] = useState<string>(initial ?? '');
  return (
    <ActionForm action={saveDefaultTimeZoneAction} org={org} submitLabel={t('save')} testId="default-time-zone" keepValues>
      <Select label={t('label')} name="timeZone" value={zone} onChange={setZone} options={[{ value: '', label: t('none') }, ...zones.filter((value) => value !== 'UTC').map((value) => ({ value, label: value.replaceAll('_', ' ') }))]} />
    </ActionForm>
  );
}
