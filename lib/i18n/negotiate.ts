// Which language a page or a mail is in. One order everywhere (issue: the request's ui_locales, the person's own
// choice, the organization's default, the browser's Accept-Language, then English); each source is only a wish,
// matched against the catalogs there are (`pt` and `pt-PT` find `pt-BR`; an unknown tag is passed over).
import { match } from '@formatjs/intl-localematcher';
import Negotiator from 'negotiator';
import { DEFAULT_LOCALE, supportedLocale, supportedLocales } from './catalogs';

/** The cookie of the footer's language switcher: a language tag, nothing else (not a secret). */
export const LOCALE_COOKIE = 'portico_locale';

export interface LocaleWishes {
  /** OpenID Connect Core §3.1.2.1 `ui_locales`: space-separated BCP 47 tags, in order of preference. */
  uiLocales?: unknown;
  /** The person's own choice: this browser's, then the one saved on their account. */
  personChoice?: string | null;
  accountChoice?: string | null;
  organizationDefault?: string | null;
  acceptLanguage?: string | null;
}

/** The best supported locale for a list of requested tags, in order, or undefined when none is near. */
export function bestSupported(requested: readonly string[]): string | undefined {
  const wellFormed = requested.filter((tag) => {
    try {
      return Intl.getCanonicalLocales(tag).length === 1;
    } catch {
      return false;
    }
  });
  if (wellFormed.length === 0) return undefined;
  const chosen = match(wellFormed, [...supportedLocales()], '', { algorithm: 'best fit' });
  return chosen ? supportedLocale(chosen) : undefined;
}

export function uiLocalesList(value: unknown): string[] {
  return typeof value === 'string' ? value.split(' ').filter(Boolean).slice(0, 10) : [];
}

export function acceptLanguageList(header: string | null | undefined): string[] {
  if (!header) return [];
  return new Negotiator({ headers: { 'accept-language': header.slice(0, 512) } }).languages().filter((tag) => tag !== '*').slice(0, 10);
}

export function chooseLocale(wishes: LocaleWishes): string {
  return (
    bestSupported(uiLocalesList(wishes.uiLocales)) ??
    supportedLocale(wishes.personChoice) ??
    supportedLocale(wishes.accountChoice) ??
    supportedLocale(wishes.organizationDefault) ??
    bestSupported(acceptLanguageList(wishes.acceptLanguage)) ??
    DEFAULT_LOCALE
  );
}

/** A mail's language: the recipient's own choice, else their organization's default, else English. */
export function recipientLocale(input: { accountChoice?: string | null; organizationDefault?: string | null }): string {
  return supportedLocale(input.accountChoice) ?? supportedLocale(input.organizationDefault) ?? DEFAULT_LOCALE;
}
