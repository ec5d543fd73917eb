'use server';
// The answer to a tool confirmation: confirm (with step-up by the person's strongest factor) or deny.
import { headers } from 'next/headers';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { relyingPartyOf } from '@/lib/accounts/factors/passkeys';
import { stepUpPasskeyOptions } from '@/lib/accounts/factors/step-up';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { answerConfirmation, confirmationStepUpContext, findConfirmation } from '@/lib/confirmations/answers';
import { getT } from '@/app/_lib/i18n/server';
import { db, runtime } from '@/lib/runtime';
import { refusalAnswer } from '../../../account/_lib/refusal-words';
import { currentConsoleSession } from '../../_lib/session';

export type ConfirmFormState =
  | { status: 'idle' }
  | { status: 'error'; fieldErrors: Record<string, string> }
  | { status: 'done'; decision: 'confirmed' | 'denied'; undelivered?: true };

const passkeyAnswer = (value: FormDataEntryValue | null) => (typeof value === 'string' && value !== '' && value.length <= 16 * 1024 ? value : undefined);

/** Options for the passkey step-up of this confirmation (bound to it), for the person it is for. */
export async function confirmationPasskeyOptionsAction(id: string): Promise<{ ok: true; options: PublicKeyCredentialRequestOptionsJSON } | { ok: false; message: string }> {
  const t = await getT('confirm.actions');
  const session = await currentConsoleSession();
  if (!session) return { ok: false, message: t('sessionEnded') };
  if (!(await findConfirmation(db(), id, session.user))) return { ok: false, message: t('notFound') };
  try {
    return { ok: true, options: await stepUpPasskeyOptions(db(), relyingPartyOf(runtime().env.PORTICO_ISSUER), { user: session.user, context: confirmationStepUpContext(id) }) };
  } catch (error) {
    return { ok: false, message: (await refusalAnswer(error)).message };
  }
}

export async function answerConfirmationAction(id: string, _previous: ConfirmFormState, data: FormData): Promise<ConfirmFormState> {
  const t = await getT('confirm.actions');
  const session = await currentConsoleSession();
  if (!session) return { status: 'error', fieldErrors: { form: t('sessionEnded') } };
  const decision = data.get('decision') === 'deny' ? 'deny' : data.get('decision') === 'confirm' ? 'confirm' : undefined;
  if (!decision) return { status: 'error', fieldErrors: { form: t('chooseDecision') } };
  const text = (name: string) => {
    const value = data.get(name);
    return typeof value === 'string' && value !== '' ? value.slice(0, 1024) : undefined;
  };
  try {
    const { env, atRestKey, provider } = runtime();
    const answered = await answerConfirmation(db(), { atRestKey, rp: relyingPartyOf(env.PORTICO_ISSUER), provider }, {
      id,
      user: session.user,
      decision,
      proof: { password: text('password'), code: text('code'), passkey: passkeyAnswer(data.get('passkey')) },
      ip: clientIpFromHeaders(await headers()),
    });
    return { status: 'done', decision: decision === 'confirm' ? 'confirmed' : 'denied', ...(answered.undelivered ? { undelivered: true as const } : {}) };
  } catch (error) {
    // A step-up's refusal stands next to its proof (password, code, passkey); the challenge's own, above the form.
    const refused = await refusalAnswer(error);
    return { status: 'error', fieldErrors: { [refused.field]: refused.message } };
  }
}
