// Refusals from lib/accounts in the person's language: they carry catalog keys (only app/ knows the request's
// language); the words are looked up here, for the form that shows them.
import 'server-only';
import { textIn, type LocalizedText } from '@/lib/i18n/catalogs';
import { requestLocale } from '@/lib/i18n/server';

/** A refusal's words: its catalog key in the request's language when it carries one, else its message as is. */
export async function refusalWords(refusal: { text?: LocalizedText; message: string }): Promise<string> {
  return refusal.text ? textIn(refusal.text, await requestLocale()) : refusal.message;
}

/** Field errors given as catalog keys by field, in the request's language. */
export async function fieldErrorsIn(texts: Partial<Record<string, LocalizedText>>): Promise<Record<string, string>> {
  const locale = await requestLocale();
  return Object.fromEntries(Object.entries(texts).flatMap(([field, text]) => (text ? [[field, textIn(text, locale)]] : [])));
}
