'use client';
// Adding a passkey: a name and the password again (step-up), then the browser's registration ceremony with the
// options Portico gives for exactly this person; the answer goes to the server action with the name.
import { startRegistration } from '@simplewebauthn/browser';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { CardForm } from '../../account/_components/card-form';
import type { CardFormState } from '../../account/_lib/form-state';

type OptionsAction = (currentPassword: string) => Promise<{ ok: true; options: PublicKeyCredentialCreationOptionsJSON } | { ok: false; field: string; message: string }>;

export function AddPasskey({ optionsAction, registerAction }: { optionsAction: OptionsAction; registerAction: (state: CardFormState, data: FormData) => Promise<CardFormState> }) {
  return (
    <CardForm
      action={registerAction}
      testId="add-passkey"
      submitLabel="Add a passkey"
      fields={[
        { name: 'name', label: 'Name for this passkey', required: true, maxLength: 64, hint: 'So you can tell your passkeys apart: “Work laptop”, “Phone”.' },
        { name: 'currentPassword', label: 'Your password', type: 'password', autoComplete: 'current-password', required: true },
      ]}
      prepare={async (data) => {
        const answer = await optionsAction(String(data.get('currentPassword') ?? ''));
        if (!answer.ok) return { [answer.field]: answer.message };
        try {
          data.set('response', JSON.stringify(await startRegistration({ optionsJSON: answer.options })));
        } catch {
          return { form: 'Your browser did not create a passkey (cancelled, or this device cannot). Try again.' };
        }
        data.delete('currentPassword');
        return undefined;
      }}
    />
  );
}
