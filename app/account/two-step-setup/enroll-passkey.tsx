'use client';
// A passkey as the second factor a sign-in requires: a name, then the browser's registration ceremony with the options
// Portico made for this pending sign-in; the answer goes to the server action with the name.
import { startRegistration } from '@simplewebauthn/browser';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { useTranslations } from 'use-intl/react';
import { CardForm } from '../_components/card-form';
import type { CardFormState } from '../_lib/form-state';

export function EnrollPasskey(props: {
  optionsAction: () => Promise<{ ok: true; options: PublicKeyCredentialCreationOptionsJSON } | { ok: false; message: string }>;
  registerAction: (state: CardFormState, data: FormData) => Promise<CardFormState>;
}) {
  const t = useTranslations('account.factorForms');
  return (
    <CardForm
      action={props.registerAction}
      testId="setup-passkey"
      submitLabel={t('create')}
      fields={[{ name: 'name', label: t('nameLabel'), required: true, maxLength: 64, hint: t('nameHint') }]}
      prepare={async (data): Promise<Record<string, string> | undefined> => {
        // Before the ceremony: a name the server would refuse must not leave a passkey made for nothing on the device.
        if (String(data.get('name') ?? '').trim() === '') return { name: t('nameMissing') };
        const answer = await props.optionsAction();
        if (!answer.ok) return { form: answer.message };
        try {
          data.set('response', JSON.stringify(await startRegistration({ optionsJSON: answer.options })));
        } catch {
          return { form: t('notCreated') };
        }
        return undefined;
      }}
    />
  );
}
