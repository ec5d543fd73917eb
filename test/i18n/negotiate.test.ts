// The order in which a page's language is chosen, and how a wish is matched against the catalogs there are.
import { describe, expect, it } from 'vitest';
import { acceptLanguageList, bestSupported, chooseLocale, recipientLocale } from '@/lib/i18n/negotiate';
import { supportedLocale } from '@/lib/i18n/catalogs';

describe('choosing the language', () => {
  it('takes ui_locales first, then this browser’s choice, the account’s, the organization’s, Accept-Language, English', () => {
    const all = { uiLocales: 'pt-BR', personChoice: 'en', accountChoice: 'en', organizationDefault: 'en', acceptLanguage: 'en' };
    expect(chooseLocale(all)).toBe('pt-BR');
    expect(chooseLocale({ ...all, uiLocales: undefined, personChoice: 'pt-BR' })).toBe('pt-BR');
    expect(chooseLocale({ ...all, uiLocales: undefined, personChoice: null, accountChoice: 'pt-BR' })).toBe('pt-BR');
    expect(chooseLocale({ acceptLanguage: 'en', organizationDefault: 'pt-BR' })).toBe('pt-BR');
    expect(chooseLocale({ acceptLanguage: 'pt-BR,pt;q=0.9,en;q=0.8' })).toBe('pt-BR');
    expect(chooseLocale({})).toBe('en');
  });

  it('matches ui_locales in order (OIDC Core 3.1.2.1), passing over languages it does not speak', () => {
    expect(chooseLocale({ uiLocales: 'fr-CA pt-BR en', acceptLanguage: 'en' })).toBe('pt-BR');
    expect(chooseLocale({ uiLocales: 'en pt-BR' })).toBe('en');
    expect(chooseLocale({ uiLocales: 'xx-YY', organizationDefault: 'pt-BR' })).toBe('pt-BR');
    expect(chooseLocale({ uiLocales: 'xx' })).toBe('en');
  });

  it('finds pt-BR for Portuguese of any region, and ignores case', () => {
    expect(bestSupported(['pt'])).toBe('pt-BR');
    expect(bestSupported(['pt-PT'])).toBe('pt-BR');
    expect(bestSupported(['PT-br'])).toBe('pt-BR');
    expect(bestSupported(['en-GB'])).toBe('en');
    expect(supportedLocale('pt-br')).toBe('pt-BR');
  });

  it('treats malformed tags and unknown stored values as no wish', () => {
    expect(chooseLocale({ uiLocales: '!!! <script>', acceptLanguage: 'pt-BR' })).toBe('pt-BR');
    expect(chooseLocale({ uiLocales: 42 })).toBe('en');
    expect(chooseLocale({ personChoice: 'klingon', accountChoice: 'pt-BR' })).toBe('pt-BR');
    expect(chooseLocale({ acceptLanguage: '*' })).toBe('en');
  });

  it('reads Accept-Language by quality (RFC 9110 §12.5.4)', () => {
    expect(acceptLanguageList('en;q=0.3, pt-BR;q=0.9, fr')).toEqual(['fr', 'pt-BR', 'en']);
    expect(chooseLocale({ acceptLanguage: 'fr, pt;q=0.8, en;q=0.5' })).toBe('pt-BR');
    expect(chooseLocale({ acceptLanguage: 'de, fr' })).toBe('en');
  });

  it('sends a mail in the recipient’s language, else the organization’s, else English', () => {
    expect(recipientLocale({ accountChoice: 'pt-BR', organizationDefault: 'en' })).toBe('pt-BR');
    expect(recipientLocale({ accountChoice: null, organizationDefault: 'pt-BR' })).toBe('pt-BR');
    expect(recipientLocale({})).toBe('en');
  });
});
