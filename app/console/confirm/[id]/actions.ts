'use server';
// The answer to a tool confirmation: confirm (with step-up by the person's strongest factor) or deny.
import { headers } from 'next/headers';
import { StepUpRefusal } from '@/lib/accounts/step-up';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { answerConfirmation, ConfirmationRefusal } from '@/lib/mcp/confirmations';
import { db, runtime } from '@/lib/runtime';
import { currentConsoleSession } from '../../_lib/session';

export type ConfirmFormState =
  | { status: 'idle' }
  | { status: 'error'; fieldErrors: Record<string, string> }
  | { status: 'done'; decision: 'confirmed' | 'denied' };

export async function answerConfirmationAction(id: string, _previous: ConfirmFormState, data: FormData): Promise<ConfirmFormState> {
  const session = await currentConsoleSession();
  if (!session) return { status: 'error', fieldErrors: { form: 'Your Portico session has ended. Reload the page and sign in again.' } };
  const decision = data.get('decision') === 'deny' ? 'deny' : data.get('decision') === 'confirm' ? 'confirm' : undefined;
  if (!decision) return { status: 'error', fieldErrors: { form: 'Choose Confirm or Deny.' } };
  const text = (name: string) => {
    const value = data.get(name);
    return typeof value === 'string' && value !== '' ? value.slice(0, 1024) : undefined;
  };
  try {
    await answerConfirmation(db(), runtime().atRestKey, {
      id,
      user: session.user,
      decision,
      proof: { password: text('password'), code: text('code') },
      ip: clientIpFromHeaders(await headers()),
    });
    return { status: 'done', decision: decision === 'confirm' ? 'confirmed' : 'denied' };
  } catch (error) {
    if (error instanceof StepUpRefusal) return { status: 'error', fieldErrors: { [error.field]: error.message } };
    if (error instanceof ConfirmationRefusal) return { status: 'error', fieldErrors: { form: error.message } };
    throw error;
  }
}
