// Translations for server components and server actions: the request's language (app/_lib/i18n/request-locale.ts)
// with the translator of lib/i18n/catalogs.ts. `const t = await getT('signIn')`, then `t('title', { app })`.
import 'server-only';
import { translator, type Namespace } from '../../../lib/i18n/catalogs';
import { requestLocale, requestTimeZone } from './request-locale';

export async function getT<N extends Namespace = never>(namespace?: N) {
  return translator<N>(await requestLocale(), namespace);
}

export { requestLocale, requestTimeZone };
