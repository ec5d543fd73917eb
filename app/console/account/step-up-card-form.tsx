'use client';
// A card form for a change of the person's own sign-in factors: its fields, plus step-up with the strongest factor
// they have — their password, their authenticator's code, or (asked by the browser) one of their passkeys, made for
// this change — sent along as currentPassword, stepUpCode or stepUpPasskey.
import { startAuthentication } from '@simplewebauthn/browser';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { useTranslations } from 'use-intl/react';
import { CardForm, type CardField } from '../../account/_components/card-form';
import type { CardFormState } from '../../account/_lib/form-state';

type StepUpOptionsAction = () => Promise<{ ok: true; options: PublicKeyCredentialRequestOptionsJSON } | { ok: false; message: string }>;

/** The step-up field a factor asks for on the account page (a passkey asks through the browser, no field). */
export function useStepUpFields(factor: 'passkey' | 'totp' | 'password'): CardField[] {
  const t = useTranslations('account.factorForms');
  if (factor === 'password') return [{ name: 'currentPassword', label: t('passwordLabel'), type: 'password', autoComplete: 'current-password', required: true }];
  if (factor === 'totp') return [{ name: 'stepUpCode', label: t('codeLabel'), autoComplete: 'one-time-code', required: true, maxLength: 8 }];
  return [];
}

export function StepUpCardForm(props: {
  factor: 'passkey' | 'totp' | 'password';
  stepUpOptionsAction: StepUpOptionsAction;
  action: (state: CardFormState, data: FormData) => Promise<CardFormState>;
  fields?: CardField[];
  hidden?: Record<string, string>;
  submitLabel: string;
  testId?: string;
}) {
  const t = useTranslations('account.factorForms');
  const stepUpField = useStepUpFields(props.factor);
  return (
    <CardForm
      action={props.action}
      testId={props.testId}
      hidden={props.hidden}
      submitLabel={props.submitLabel}
      fields={[...(props.fields ?? []), ...stepUpField]}
      footer={props.factor === 'passkey' ? <p className="field-hint">{t('passkeyHint')}</p> : undefined}
      prepare={
        props.factor === 'passkey'
          ? async (data) => {
              const options = await props.stepUpOptionsAction();
              if (!options.ok) return { form: options.message };
              try {
                data.set('stepUpPasskey', JSON.stringify(await startAuthentication({ optionsJSON: options.options })));
              } catch {
                return { form: t('noAnswer') };
              }
              return undefined;
            }
          : undefined
      }
    />
  );
}
