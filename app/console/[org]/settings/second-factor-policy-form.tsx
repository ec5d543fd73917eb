'use client';
// Who must have a second factor: the choice stays on screen after it is saved.
import { useState } from 'react';
import { useTranslations } from 'use-intl/react';
import { ActionForm } from '../../_components/action-form';
import { Select } from '../../_components/fields';
import { saveSecondFactorPolicyAction } from './actions';

export function SecondFactorPolicyForm({ org, initial, options }: { org: string; initial: string; options: readonly { value: string; label: string }[] }) {
  const t = useTranslations('console.settings.twoStep');
  const [policy, setPolicy] = useState<string>(initial);
  return (
    <ActionForm action={saveSecondFactorPolicyAction} org={org} submitLabel={t('save')} testId="second-factor-policy" keepValues>
      <Select
        label={t('label')}
        name="policy"
        value={policy}
        onChange={setPolicy}
        options={options}
      />
    </ActionForm>
  );
}
