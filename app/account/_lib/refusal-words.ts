// Refusals (lib/refusals/refusal.ts) in the person's language: they carry catalog keys (only app/ knows the request's
// language); the words are looked up here, for the form that shows them — the account pages' answer and the console
// form's (app/console/_lib/action.ts) both.
import 'server-only';
import { textIn, type LocalizedText } from '@/lib/i18n/catalogs';
import { requestLocale } from '@/app/_lib/i18n/server';
import { Refusal } from '@/lib/refusals/refusal';

/** A refusal's words: its catalog key in the request's language when it carries one, else its message as is. */
export async function refusalWords(refusal: { text?: LocalizedText; message: string }): Promise<string> {
  return refusal.text ? textIn(refusal.text, await requestLocale()) : refusal.message;
}

/**
 * The account pages' one answer to a refusal (a person's own sign-in factors, step-up, a new organization, a
 * confirmation): its words in the request's language and the form field they stand next to (`form`: the whole form).
 * Anything else is thrown on.
 */
export async function refusalAnswer(error: unknown): Promise<{ field: string; message: string }> {
  if (!(error instanceof Refusal)) throw error;
  return { field: error.field ?? 'form', message: await refusalWords(error) };
}

/** Field errors given as catalog keys by field, in the request's language. */
export async function fieldErrorsIn(texts: Partial<Record<string, LocalizedText>>): Promise<Record<string, string>> {
  const locale = await requestLocale();
  return Object.fromEntries(Object.entries(texts).flatMap(([field, text]) => (text ? [[field, textIn(text, locale)]] : [])));
}
