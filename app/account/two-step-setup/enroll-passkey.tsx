'use client';
// A passkey as the second factor a sign-in requires: a name, then the browser's registration ceremony with the options
// Portico made for this pending sign-in; the answer goes to the server action with the name.
import { startRegistration } from '@simplewebauthn/browser';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { CardForm } from '../_components/card-form';
import type { CardFormState } from '../_lib/form-state';

export function EnrollPasskey(props: {
  optionsAction: () => Promise<{ ok: true; options: PublicKeyCredentialCreationOptionsJSON } | { ok: false; message: string }>;
  registerAction: (state: CardFormState, data: FormData) => Promise<CardFormState>;
}) {
  return (
    <CardForm
      action={props.registerAction}
      testId="setup-passkey"
      submitLabel="Create a passkey"
      fields={[{ name: 'name', label: 'Name for this passkey', required: true, maxLength: 64, hint: 'So you can tell your passkeys apart: “Work laptop”, “Phone”.' }]}
      prepare={async (data): Promise<Record<string, string> | undefined> => {
        // Before the ceremony: a name the server would refuse must not leave a passkey made for nothing on the device.
        if (String(data.get('name') ?? '').trim() === '') return { name: 'Give the passkey a name ("Work laptop").' };
        const answer = await props.optionsAction();
        if (!answer.ok) return { form: answer.message };
        try {
          data.set('response', JSON.stringify(await startRegistration({ optionsJSON: answer.options })));
        } catch {
          return { form: 'Your browser did not create a passkey (cancelled, or this device cannot). Try again.' };
        }
        return undefined;
      }}
    />
  );
}
