'use client';
// Adding a passkey: a name and step-up with the strongest factor the person has (their password, their
// authenticator's code, or — asked by the browser — one of their passkeys), then the browser's registration ceremony
// with the options Portico gives for exactly this person; the answer goes to the server action with the name.
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { useTranslations } from 'use-intl/react';
import { CardForm } from '../../account/_components/card-form';
import { useStepUpFields } from './step-up-card-form';
import type { CardFormState } from '../../account/_lib/form-state';

type Proof = { password?: string; code?: string; passkey?: string };
type OptionsAction = (proof: Proof) => Promise<{ ok: true; options: PublicKeyCredentialCreationOptionsJSON } | { ok: false; field: string; message: string }>;
type StepUpOptionsAction = () => Promise<{ ok: true; options: PublicKeyCredentialRequestOptionsJSON } | { ok: false; message: string }>;

export function AddPasskey(props: {
  factor: 'passkey' | 'totp' | 'password';
  optionsAction: OptionsAction;
  stepUpOptionsAction: StepUpOptionsAction;
  registerAction: (state: CardFormState, data: FormData) => Promise<CardFormState>;
}) {
  const t = useTranslations('account.factorForms');
  const stepUpField = useStepUpFields(props.factor);
  return (
    <CardForm
      action={props.registerAction}
      testId="add-passkey"
      submitLabel={t('add')}
      fields={[{ name: 'name', label: t('nameLabel'), required: true, maxLength: 64, hint: props.factor === 'passkey' ? t('nameHintStepUp') : t('nameHint') }, ...stepUpField]}
      prepare={async (data): Promise<Record<string, string> | undefined> => {
        // Before the ceremony: a name the server would refuse must not leave a passkey made for nothing on the device.
        if (String(data.get('name') ?? '').trim() === '') return { name: t('nameMissing') };
        const proof: Proof = {};
        if (props.factor === 'passkey') {
          const stepUp = await props.stepUpOptionsAction();
          if (!stepUp.ok) return { form: stepUp.message };
          try {
            proof.passkey = JSON.stringify(await startAuthentication({ optionsJSON: stepUp.options }));
          } catch {
            return { form: t('noAnswer') };
          }
        } else if (props.factor === 'totp') proof.code = String(data.get('stepUpCode') ?? '');
        else proof.password = String(data.get('currentPassword') ?? '');
        const answer = await props.optionsAction(proof);
        if (!answer.ok) return { [answer.field]: answer.message };
        try {
          data.set('response', JSON.stringify(await startRegistration({ optionsJSON: answer.options })));
        } catch {
          return { form: t('notCreated') };
        }
        data.delete('currentPassword');
        data.delete('stepUpCode');
        return undefined;
      }}
    />
  );
}
