// Translations for server components and server actions: the request's language (app/_lib/i18n/request-locale.ts)
// with the translator of lib/i18n/catalogs.ts. `const t = await getT('signIn')`, then `t('title', { app })`.
import 'server-only';
import { translator, type Namespace } from '../../../lib/i18n/catalogs';
import { requestLocale, requestTimeZone } from './request-locale';

export async function getT<N extends Namespace = never>(namespace?: N) {
  return translator<N>(await requestLocale(), namespace);
}

export { requestLocale, requestTimeZone };

/**
 * A message with one plain argument, formatted once for a whole list: given a function that formats the message
 * with its argument, a function of the argument that formats nothing. Formatting an ICU message per row cost a 100-row page about 2 ms of server CPU
 * (issue 61's profile). Only for an argument inserted as it is: none that a select, plural or number reads.
 */
export function fillIn(format: (slot: string) => string): (value: string) => string {
  const slot = '\u0000';
  const parts = format(slot).split(slot);
  return (value) => parts.join(value);
}
